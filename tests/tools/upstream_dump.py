"""Reads a logdir with upstream TensorBoard's own readers and prints what they see as JSON.

Runs inside the upstream venv (.venv-upstream, `tensorboard==2.21.0`), never with our
logger on the path: both packages are named `tensorboard`. Usage: upstream_dump.py LOGDIR, or
upstream_dump.py --serve (one JSON request per stdin line, one JSON answer per stdout line).
"""
import base64
import io
import json
import os
import sys
import wave

import numpy as np
from google.protobuf import json_format, text_format
from PIL import Image

from tensorboard.backend.event_processing import (
    event_accumulator,
    event_file_loader,
    io_wrapper,
    plugin_event_accumulator,
)
from tensorboard.plugins.projector import projector_config_pb2, projector_plugin
from tensorboard.util import tensor_util

KEEP_ALL = {
    event_accumulator.COMPRESSED_HISTOGRAMS: 0,
    event_accumulator.IMAGES: 0,
    event_accumulator.AUDIO: 0,
    event_accumulator.SCALARS: 0,
    event_accumulator.HISTOGRAMS: 0,
    event_accumulator.TENSORS: 0,
}


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def array_json(array: np.ndarray) -> dict:
    array = np.asarray(array)
    if array.dtype.kind in "OSU":
        flat = [x.decode("utf-8", "replace") if isinstance(x, bytes) else str(x) for x in array.reshape(-1)]
        return {"dtype": "str", "shape": list(array.shape), "values": flat}
    return {"dtype": str(array.dtype), "shape": list(array.shape), "b64": b64(np.ascontiguousarray(array).tobytes())}


def decode_image(encoded: bytes) -> dict:
    image = Image.open(io.BytesIO(encoded))
    frames = getattr(image, "n_frames", 1)
    pixels = np.asarray(image.convert("RGBA") if image.mode == "P" else image)
    return {"format": image.format, "mode": image.mode, "width": image.width, "height": image.height,
            "frames": frames, "pixels": array_json(pixels)}


def decode_wav(encoded: bytes) -> dict:
    with wave.open(io.BytesIO(encoded)) as wav:
        frames = wav.readframes(wav.getnframes())
        return {"rate": wav.getframerate(), "channels": wav.getnchannels(), "sampwidth": wav.getsampwidth(),
                "frames": wav.getnframes(), "samples": array_json(np.frombuffer(frames, dtype="<i2"))}


def classic(run_dir: str) -> dict:
    acc = event_accumulator.EventAccumulator(run_dir, size_guidance=KEEP_ALL)
    acc.Reload()
    tags = acc.Tags()
    out = {"scalars": {}, "histograms": {}, "images": {}, "audio": {}, "graph": None}
    for tag in tags["scalars"]:
        out["scalars"][tag] = [[e.step, e.wall_time, e.value] for e in acc.Scalars(tag)]
    for tag in tags["histograms"]:
        out["histograms"][tag] = [
            [e.step, {"min": h.min, "max": h.max, "num": h.num, "sum": h.sum, "sum_squares": h.sum_squares,
                      "bucket_limit": list(h.bucket_limit), "bucket": list(h.bucket)}]
            for e in acc.Histograms(tag) for h in [e.histogram_value]]
    for tag in tags["images"]:
        out["images"][tag] = [[e.step, e.width, e.height, decode_image(e.encoded_image_string)]
                              for e in acc.Images(tag)]
    for tag in tags["audio"]:
        out["audio"][tag] = [[e.step, e.sample_rate, e.length_frames, e.content_type,
                              decode_wav(e.encoded_audio_string)] for e in acc.Audio(tag)]
    if tags.get("graph"):
        out["graph"] = json_format.MessageToDict(acc.Graph(), preserving_proto_field_name=True)
    return out


def migrated(run_dir: str) -> dict:
    """What the renderer's Python data path serves: every value migrated to a tensor."""
    acc = plugin_event_accumulator.EventAccumulator(run_dir, size_guidance={"tensors": 0},
                                                    tensor_size_guidance={})
    acc.Reload()
    tensors, metadata, samples = {}, {}, {}
    for tag in acc.Tags()["tensors"]:
        meta = acc.SummaryMetadata(tag)
        metadata[tag] = {"plugin_name": meta.plugin_data.plugin_name,
                         "content": b64(meta.plugin_data.content),
                         "display_name": meta.display_name,
                         "description": meta.summary_description,
                         "data_class": int(meta.data_class)}
        tensors[tag] = [[e.step, e.wall_time, array_json(tensor_util.make_ndarray(e.tensor_proto))]
                        for e in acc.Tensors(tag)]
        if meta.plugin_data.plugin_name == "images":  # [width, height, png, ...]: each sample decoded
            samples[tag] = [[e.step, [decode_image(png) for png in tensor_util.make_ndarray(e.tensor_proto)[2:]]]
                            for e in acc.Tensors(tag)]
    return {"tensors": tensors, "metadata": metadata, "image_samples": samples}


def raw_events(run_dir: str) -> dict:
    """Counts events per file with the upstream loader (which verifies framing as it goes)."""
    files = {}
    for path in sorted(io_wrapper.GetLogdirSubdirectories(run_dir) and os.listdir(run_dir)):
        full = os.path.join(run_dir, path)
        if not io_wrapper.IsSummaryEventsFile(full):
            continue
        events = list(event_file_loader.RawEventFileLoader(full).Load())
        files[path] = len(events)
    return files


def projector(run_dir: str) -> dict | None:
    path = os.path.join(run_dir, "projector_config.pbtxt")
    if not os.path.exists(path):
        return None
    config = projector_config_pb2.ProjectorConfig()
    with open(path) as f:
        text_format.Parse(f.read(), config)
    embeddings = []
    for emb in config.embeddings:
        tensor_file = os.path.join(run_dir, emb.tensor_path)
        try:  # the same fallback order as the projector plugin's
            tensor = projector_plugin._read_tensor_tsv_file(tensor_file)
        except UnicodeDecodeError:
            tensor = projector_plugin._read_tensor_binary_file(tensor_file, list(emb.tensor_shape))
        entry = {"tensor_name": emb.tensor_name, "tensor_path": emb.tensor_path,
                 "tensor_shape": list(emb.tensor_shape), "tensor": array_json(np.asarray(tensor)),
                 "metadata_path": emb.metadata_path, "metadata": None, "sprite": None}
        if emb.metadata_path:
            with open(os.path.join(run_dir, emb.metadata_path), encoding="utf-8") as f:
                entry["metadata"] = f.read().splitlines()
        if emb.sprite.image_path:
            with open(os.path.join(run_dir, emb.sprite.image_path), "rb") as f:
                entry["sprite"] = {"image_path": emb.sprite.image_path,
                                   "single_image_dim": list(emb.sprite.single_image_dim),
                                   "image": decode_image(f.read())}
        embeddings.append(entry)
    return {"embeddings": embeddings}


PARTS = ("files", "classic", "tensors", "projector")  # tests/upstream.py's Part names the same


def dump(logdir: str, parts=PARTS) -> dict:
    """What upstream's readers see in `logdir`, in the `parts` asked for: "files" (events per file, by the
    raw loader), "classic" (scalars, histograms, images, audio, graph: the EventAccumulator), "tensors"
    (tensors, metadata, image_samples: the renderer's migrated data path), "projector"."""
    unknown = set(parts) - set(PARTS)
    if unknown:
        raise ValueError(f"parts: no such part {sorted(unknown)}; the parts are {PARTS}")
    runs = {}
    for run_dir in sorted(io_wrapper.GetLogdirSubdirectories(logdir)):
        view = runs[os.path.relpath(run_dir, logdir)] = {}
        if "files" in parts:
            view["files"] = raw_events(run_dir)
        if "classic" in parts:
            view.update(classic(run_dir))
        if "tensors" in parts:
            view.update(migrated(run_dir))
    if "projector" in parts:
        for dirpath, _, filenames in os.walk(logdir):
            if "projector_config.pbtxt" in filenames:
                name = os.path.relpath(dirpath, logdir)
                runs.setdefault(name, {})["projector"] = projector(dirpath)
    return {"runs": runs}


def serve() -> None:
    """Answers one request per stdin line (JSON: {"logdir": ..., "parts": [...]}) with one JSON line on
    stdout ({"error": ...} for a failure), until stdin ends: one interpreter reads every logdir a test
    session asks about (tests/upstream.py). Each answer is read afresh from disk, and whatever the readers
    left in reference cycles (open files among them) is collected before the answer goes out."""
    import gc

    answers = sys.stdout
    sys.stdout = sys.stderr  # whatever upstream prints stays out of the answers
    for line in sys.stdin:
        try:
            request = json.loads(line)
            answer = dump(request["logdir"], request["parts"])
        except Exception:
            import traceback

            answer = {"error": traceback.format_exc()}
        gc.collect()
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--serve"]:
        serve()
    else:
        json.dump(dump(sys.argv[1]), sys.stdout)
