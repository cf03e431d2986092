"""torch.utils.tensorboard, unchanged, writes through our event file writer; upstream's reader reads it all back."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from upstream import as_array, upstream_read

from tensorboard.events import event_file as core
from tensorboard.summary.writer import event_file_writer as ours

torch = pytest.importorskip("torch")  # CPU torch is part of .venv (tools/test_envs.sh); TB_STRICT fails a skip
from torch.utils.tensorboard import SummaryWriter  # noqa: E402

REPO = Path(__file__).resolve().parents[3]


def test_summary_writer_uses_our_event_file_writer(tmp_path):
    writer = SummaryWriter(str(tmp_path))
    event_writer = writer.file_writer.event_writer
    assert type(event_writer) is ours.EventFileWriter
    assert isinstance(event_writer._core, core.EventFileWriter)
    assert event_writer.path.startswith(str(tmp_path))
    writer.close()


def test_everything_torch_wrote_is_read_back_by_upstream(tmp_path):
    rng = np.random.default_rng(7)
    weights = rng.standard_normal(1000).astype(np.float32)
    image = rng.integers(0, 256, size=(3, 8, 10), dtype=np.uint8)
    with SummaryWriter(str(tmp_path), flush_secs=1000) as writer:
        for step in range(300):
            writer.add_scalar("loss", 1.0 / (step + 1), step, walltime=100.0 + step)
        writer.add_scalars("pair", {"a": 1.0, "b": 2.0}, 3)  # one more writer (and file) per key, in subdirectories
        writer.add_histogram("weights", torch.from_numpy(weights), 5)
        writer.add_image("picture", torch.from_numpy(image), 6)
        writer.add_text("note", "hello torch", 7)
    runs = upstream_read(tmp_path)["runs"]
    root = runs["."]
    assert [s[0] for s in root["scalars"]["loss"]] == list(range(300))
    assert [s[2] for s in root["scalars"]["loss"]] == pytest.approx([1.0 / (s + 1) for s in range(300)], rel=1e-6)
    assert [s[1] for s in root["scalars"]["loss"]] == [100.0 + s for s in range(300)]
    (hist,) = root["histograms"]["weights"]
    assert hist[0] == 5 and hist[1]["num"] == 1000 and hist[1]["min"] == pytest.approx(float(weights.min()))
    ((step, width, height, decoded),) = root["images"]["picture"]
    assert (step, width, height) == (6, 10, 8)
    np.testing.assert_array_equal(as_array(decoded["pixels"]), image.transpose(1, 2, 0))
    assert [row[0] for row in root["tensors"]["note/text_summary"]] == [7]
    assert runs["pair_a"]["scalars"]["pair"][0][::2] == [3, 1.0]
    assert runs["pair_b"]["scalars"]["pair"][0][::2] == [3, 2.0]
    # every file starts with upstream's first record and holds all its events, framing intact
    assert sum(len(run["files"]) for run in runs.values()) == 3
    assert root["files"] and list(root["files"].values()) == [1 + 300 + 3]


def test_torch_file_writer_reopen_works_on_our_core(tmp_path):
    """torch documents FileWriter.reopen(); on upstream's core it raises AttributeError, on ours it works."""
    writer = SummaryWriter(str(tmp_path))
    writer.add_scalar("x", 1.0, 1)
    file_writer = writer.file_writer
    file_writer.close()
    file_writer.reopen()
    file_writer.add_summary(_torch_scalar("x", 2.0), 2)
    file_writer.close()
    runs = upstream_read(tmp_path)["runs"]
    assert [s[::2] for s in runs["."]["scalars"]["x"]] == [[1, 1.0], [2, 2.0]]
    assert len(runs["."]["files"]) == 2


def _torch_scalar(tag: str, value: float):
    from torch.utils.tensorboard.summary import scalar

    return scalar(tag, value)


def test_upstreams_own_summary_output_writes_through_our_core(tmp_path):
    """Upstream's tensorboard.summary._output (its experimental writer API) builds our EventFileWriter too."""
    from tensorboard.summary import _output

    output = _output.DirectoryOutput(str(tmp_path))
    assert type(output._ev_writer) is ours.EventFileWriter
    output.emit_scalar(plugin_name="scalars", tag="acc", data=0.75, step=4, wall_time=50.0)
    output.close()
    tensors = upstream_read(tmp_path)["runs"]["."]["tensors"]
    ((step, wall_time, value),) = tensors["acc"]
    assert (step, wall_time, float(as_array(value))) == (4, 50.0, 0.75)


_WHEEL_LAYOUT = """
import tempfile
from torch.utils.tensorboard import SummaryWriter
from tensorboard import upstream_path
from tensorboard.summary.writer import event_file_writer
w = SummaryWriter(tempfile.mkdtemp())
w.add_scalar("x", 1.0, 1)
module = type(w.file_writer.event_writer).__module__
w.close()
print(event_file_writer.__file__, module, upstream_path.upstream_dir())
"""


def test_wheel_layout_serves_torch_from_our_core(tmp_path):
    """As installed from the wheel: our package and the renderer side by side in site-packages, upstream's
    package found next to ours (not through the source tree's lookup); torch still gets our writer."""
    import shutil

    import tensorboard_standalone_renderer

    site = tmp_path / "site"
    shutil.copytree(REPO / "python" / "tensorboard", site / "tensorboard",
                    ignore=shutil.ignore_patterns("__pycache__"))
    os.symlink(os.path.dirname(tensorboard_standalone_renderer.__file__), site / "tensorboard_standalone_renderer")
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run([sys.executable, "-c", _WHEEL_LAYOUT], capture_output=True, text=True, timeout=300,
                          env=env, cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    path, module, upstream_dir = proc.stdout.split()
    assert path == str(site / "tensorboard" / "summary" / "writer" / "event_file_writer.py")
    assert module == "tensorboard.summary.writer.event_file_writer"
    assert upstream_dir.startswith(str(site / "tensorboard_standalone_renderer"))
