"""Writes the logdirs the serving tests compare: every dashboard's data, by our writer, by torch's
`torch.utils.tensorboard` and by tensorboardX. Scalars (1,200 steps) and images (12 steps) pass
upstream's default sample sizes, so downsampling is compared too.

    <python> tests/serving/write_logdirs.py {ours,torch,tbx} LOGDIR
(tbx runs in .venv-upstream, where tensorboardX is installed; its add_audio needs soundfile, so it
writes no audio.)
"""
from __future__ import annotations

import sys

import numpy as np

STEPS = 1200  # more than the 1,000 scalars upstream keeps per tag
IMAGE_STEPS = 12  # more than the 10 images it keeps
NAMED = ("learning rate", "the optimizer's step size")  # display name and description of the tag "lr"


def _common(writer, rng, audio: bool = True) -> None:
    for step in range(STEPS):
        writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_scalar("acc/train", (step % 97) / 97.0, step)
    for step in range(3):
        writer.add_histogram("weights", rng.normal(size=300) + step, step)
    for step in range(IMAGE_STEPS):
        writer.add_image("digit", rng.random((3, 8, 6)), step)
    for step in range(2):
        t = np.linspace(0, 1, 800)
        if audio:
            writer.add_audio("tone", np.sin(2 * np.pi * (220 + 110 * step) * t).reshape(1, -1), step, sample_rate=8000)
        writer.add_text("notes", "step **%d**" % step, step)
        labels = rng.integers(0, 2, 50)
        writer.add_pr_curve("pr", labels, rng.random(50), step)
    vertices = np.array([[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]], dtype=np.float32)
    faces = np.array([[[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]]], dtype=np.int32)
    writer.add_mesh("tetra", vertices=vertices, faces=faces, global_step=0)
    writer.add_custom_scalars({"losses": {"both": ["Multiline", ["loss", "acc/train"]]}})


def _graph(kind: str, writer) -> None:
    """torch's writer traces a model (and logs its run metadata); ours logs a GraphDef (no tracing: fast);
    tensorboardX's tracing is torch's, so it logs none."""
    if kind == "ours":
        from tensorboard.src import graph_pb2

        graph = graph_pb2.GraphDef()
        for name, op, inputs in (("input", "Placeholder", []), ("dense/matmul", "MatMul", ["input"]),
                                 ("output", "Relu", ["dense/matmul"])):
            graph.node.add(name=name, op=op, input=inputs)
        writer.add_graph(graph)
        return
    if kind != "torch":
        return
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    writer.add_graph(model, torch.zeros(2, 4))


def write(kind: str, logdir: str) -> None:
    rng = np.random.default_rng(0)
    if kind == "ours":
        from tensorboard import SummaryWriter
    elif kind == "torch":
        from torch.utils.tensorboard import SummaryWriter
    elif kind == "tbx":
        from tensorboardX import SummaryWriter
    else:
        raise SystemExit("write_logdirs.py: kind must be ours, torch or tbx, not %r" % kind)
    writer = SummaryWriter(logdir + "/main")
    _common(writer, rng, audio=kind != "tbx")  # tensorboardX's add_audio needs soundfile
    if kind != "torch":  # a scalar the file names (torch's add_scalar takes no display name)
        for step in range(3):
            writer.add_scalar("lr", 0.1 / (step + 1), step, display_name=NAMED[0], summary_description=NAMED[1])
    _graph(kind, writer)
    writer.close()
    for lr in (0.1, 0.01):
        hp = SummaryWriter(logdir + "/hp_%s" % lr)
        hp.add_hparams({"lr": lr, "opt": "adam"}, {"hp/metric": lr * 3})
        hp.close()


if __name__ == "__main__":
    write(sys.argv[1], sys.argv[2])
