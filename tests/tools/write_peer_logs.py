"""Writes logdirs with other libraries, in .venv-upstream: `write_peer_logs.py {tbx,torch,v1} LOGDIR [MODE LOGDIR]...`
(several in one interpreter, which imports torch and tensorboardX once; `v1` runs last, as its TensorFlow
stand-in stays in sys.modules).

Each writes scalars (2 tags x 5 steps), histograms, text and (tbx, torch) hparams; `v1` writes
upstream's `tensorboard.summary.v1` *_pb summaries (tensor scalars, tensor histograms, text).
"""
import sys

import numpy as np


def write(writer_cls, logdir: str) -> None:
    rng = np.random.default_rng(0)
    writer = writer_cls(logdir)
    for step in range(5):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_scalar("acc/train", step / 10, step)
        writer.add_histogram("weights", rng.normal(size=200), step)
        writer.add_text("note", f"step {step} text", step)
    writer.add_hparams({"lr": 0.1, "opt": "adam", "deep": True}, {"hp/metric": 0.5})
    writer.close()


def _tensorflow_stand_in() -> None:
    """The *_pb functions call tf.make_tensor_proto & co.; upstream's TF-free tensor_util does the same job."""
    import types

    from tensorboard.compat.proto import summary_pb2
    from tensorboard.compat.tensorflow_stub import dtypes
    from tensorboard.util import tensor_util

    v1 = types.ModuleType("tensorflow.compat.v1")
    v1.make_tensor_proto = tensor_util.make_tensor_proto
    v1.Summary, v1.SummaryMetadata = summary_pb2.Summary, summary_pb2.SummaryMetadata
    v1.float64, v1.string = dtypes.float64, dtypes.string
    compat = types.ModuleType("tensorflow.compat")
    compat.v1 = v1
    tf = types.ModuleType("tensorflow")
    tf.compat = compat
    sys.modules.update({"tensorflow": tf, "tensorflow.compat": compat, "tensorflow.compat.v1": v1})


def write_v1(logdir: str) -> None:
    _tensorflow_stand_in()
    from tensorboardX import FileWriter
    from tensorboardX.proto.summary_pb2 import Summary

    from tensorboard.summary import v1

    rng = np.random.default_rng(1)  # image_pb/audio_pb need a TF graph: images and audio come from tbx/torch
    writer = FileWriter(logdir)
    for step in range(4):
        for pb in (v1.scalar_pb("v1/loss", 0.5 * step), v1.histogram_pb("v1/hist", rng.normal(size=50), bucket_count=6),
                   v1.text_pb("v1/text", f"hello {step}")):
            writer.add_summary(Summary.FromString(pb.SerializeToString()), step)
    writer.close()


def write_mode(mode: str, logdir: str) -> None:
    if mode == "tbx":
        from tensorboardX import SummaryWriter
        write(SummaryWriter, logdir)
    elif mode == "torch":
        from torch.utils.tensorboard import SummaryWriter
        write(SummaryWriter, logdir)
    elif mode == "v1":
        write_v1(logdir)
    else:
        raise SystemExit(f"unknown mode {mode}")


if __name__ == "__main__":
    pairs = list(zip(sys.argv[1::2], sys.argv[2::2]))
    if not pairs or len(sys.argv) % 2 != 1:
        raise SystemExit("usage: write_peer_logs.py MODE LOGDIR [MODE LOGDIR]...")
    for mode, logdir in sorted(pairs, key=lambda pair: pair[0] == "v1"):
        write_mode(mode, logdir)
