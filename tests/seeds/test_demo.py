"""demo/demo.py end to end: every data type reaches upstream's readers, for NumPy and MXNet; a second
run into the same logdir starts afresh (same files, tags and steps); a directory the demo did not
write is refused; the printed command names the port and a launcher that exists."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from graph.graph_view import GraphView
from seeds.mxnet_venv import run_mxnet
from upstream import as_array, upstream_read

from tensorboard.reader import read_events
from tensorboard.src import layout_pb2

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "demo.py"
EPOCHS = 6
RUNS = ["lr_0.01", "lr_0.1", "lr_0.5"]
LAYOUT_TAG = "custom_scalars__config__"


def written_layout(run_dir: Path) -> layout_pb2.Layout:
    """The last custom-scalars layout in the run's event file, read with our reader."""
    layouts = [layout_pb2.Layout.FromString(value.tensor.string_val[0])
               for path in sorted(run_dir.glob("events.out.tfevents.*")) for event in read_events(path)
               for value in event.summary.value if value.tag == LAYOUT_TAG]
    assert layouts, f"no {LAYOUT_TAG} in {run_dir}"
    return layouts[-1]


def check_custom_scalars(run_dir: Path, run: dict) -> None:
    """Every chart of the layout draws tags the run logged at every epoch."""
    layout = written_layout(run_dir)
    assert [c.title for c in layout.category] == ["loss", "accuracy"]
    scalar_tags = set(run["scalars"])
    charts = 0
    for category in layout.category:
        for chart in category.chart:
            charts += 1
            if chart.HasField("multiline"):
                (pattern,) = chart.multiline.tag
                matched = sorted(t for t in scalar_tags if re.search(pattern, t))
                assert matched == [f"{category.title}/train", f"{category.title}/validation"], (pattern, matched)
            else:
                (series,) = chart.margin.series
                tags = [series.value, series.lower, series.upper]
                assert tags == ["loss/train", "loss/train_batch_min", "loss/train_batch_max"]
                for step_low, step_mid, step_high in zip(*(run["scalars"][t] for t in (tags[1], tags[0], tags[2]))):
                    assert step_low[0] == step_mid[0] == step_high[0]
                    assert step_low[2] <= step_mid[2] <= step_high[2]
    assert charts == 3


def check_mesh(run: dict, pr_steps: list[int]) -> None:
    """The hidden layer as a 3-D point cloud: 360 coloured points per logged epoch, one colour per digit."""
    assert run["metadata"]["hidden_layer_3d_VERTEX"]["plugin_name"] == "mesh"
    assert run["metadata"]["hidden_layer_3d_COLOR"]["plugin_name"] == "mesh"
    assert [s for s, _, _ in run["tensors"]["hidden_layer_3d_VERTEX"]] == pr_steps
    for (_, _, vertices), (_, _, colors) in zip(run["tensors"]["hidden_layer_3d_VERTEX"],
                                                run["tensors"]["hidden_layer_3d_COLOR"]):
        points, rgb = as_array(vertices), as_array(colors)
        assert points.shape == (1, 360, 3) and rgb.shape == (1, 360, 3) and rgb.dtype == np.uint8
        assert np.abs(points).max() == pytest.approx(1.0) and np.isfinite(points).all()
        assert len({tuple(c) for c in rgb[0]}) == 10


def check_logdir(logdir: Path, runs: dict, framework: str) -> None:
    assert sorted(runs) == sorted(RUNS)  # one run per experiment: no sub-runs
    assert (logdir / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    for name in RUNS:
        run = runs[name]
        check_custom_scalars(logdir / name, run)
        for tag in ("loss/train", "loss/validation", "accuracy/train", "accuracy/validation", "learning_rate"):
            assert [s for s, _, _ in run["scalars"][tag]] == list(range(1, EPOCHS + 1)), (name, tag)
        assert {"weights/hidden/weight", "gradients/output/weight"} <= set(run["histograms"])
        for step, h in run["histograms"]["weights/hidden/weight"]:
            assert h["num"] == 64 * 32 and sum(h["bucket"]) == 64 * 32
        (_, width, height, image), = run["images"]["digits/train_samples"]
        assert width * height >= 32 * 32 * 32 and image["width"] == width
        plugins = {tag: meta["plugin_name"] for tag, meta in run["metadata"].items()}
        assert plugins["notes/setup"] == "text" and plugins["notes/summary"] == "text"
        assert [t for t in plugins if t.startswith("pr_curve/")] == [f"pr_curve/digit_{d}" for d in range(10)]
        assert all(plugins[f"pr_curve/digit_{d}"] == "pr_curves" for d in range(10))
        pr_steps = [s for s, _, _ in run["tensors"]["pr_curve/digit_3"]]
        assert pr_steps[-1] == EPOCHS
        check_mesh(run, pr_steps)
        # the hparams session is in the run itself; its metrics are the run's validation curves
        assert {"_hparams_/session_start_info", "_hparams_/session_end_info"} <= set(run["metadata"])
        assert [s for s, _, _ in run["scalars"]["accuracy/validation"]] == list(range(1, EPOCHS + 1))
        (embedding,) = run["projector"]["embeddings"]
        assert embedding["tensor_shape"] == [360, 32]
        assert sorted(set(embedding["metadata"])) == [str(d) for d in range(10)]
        assert embedding["sprite"]["single_image_dim"] == [16, 16]
        view = GraphView.from_upstream(run["graph"])
        ops = {n["op"] for n in view.nodes.values()}
        assert view.dangling_inputs() == []
        if framework == "numpy":
            assert {"hidden/MatMul", "hidden/Relu", "output/Softmax", "hidden/weight"} <= set(view.nodes)
            assert view.nodes["hidden/MatMul"]["inputs"] == [("input/digits", 0), ("hidden/weight", 0)]
            assert view.nodes["hidden/weight"]["attrs"]["_output_shapes"] == [[64, 32]]
        else:
            assert {"FullyConnected", "Activation", "Parameter"} <= ops
            assert view.nodes["mlp/hidden/weight"]["attrs"]["_output_shapes"] == [[32, 64]]
    rich = runs["lr_0.1"]
    (_, rate, frames, content_type, wav), = rich["audio"]["audio/predicted_digits"]
    assert rate == 16000 and frames == 8 * 4000 and wav["frames"] == frames
    (_, width, height, figure), = rich["images"]["confusion_matrix"]
    assert width > 100 and height > 100
    # the middle learning rate learns the digits
    assert rich["scalars"]["accuracy/validation"][-1][2] > 0.85


def test_demo_numpy(tmp_path):
    pytest.importorskip("sklearn")
    logdir = tmp_path / "demo_logs"
    subprocess.run([sys.executable, str(DEMO), "--logdir", str(logdir), "--framework", "numpy",
                    "--epochs", str(EPOCHS)], check=True, capture_output=True, text=True)
    check_logdir(logdir, upstream_read(logdir)["runs"], "numpy")


def test_demo_mxnet(tmp_path):
    logdir = tmp_path / "demo_logs"
    result = run_mxnet([str(DEMO), "--logdir", str(logdir), "--framework", "mxnet", "--epochs", str(EPOCHS)],
                       cwd=tmp_path)
    assert "mxnet MLP" in result.stdout
    check_logdir(logdir, upstream_read(logdir)["runs"], "mxnet")


def run_demo(logdir: Path, *extra: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(DEMO), "--logdir", str(logdir), "--framework", "numpy",
                           "--epochs", "2", *extra], check=check, capture_output=True, text=True,
                          cwd=logdir.parent)


def files_of(logdir: Path) -> list[str]:
    """Every file under `logdir`, event files by directory only (their names hold time, host and pid)."""
    return sorted(re.sub(r"events\.out\.tfevents\..*", "events.out.tfevents.*", str(p.relative_to(logdir)))
                  for p in logdir.rglob("*") if p.is_file())


def tags_and_steps(runs: dict) -> dict:
    """{run: {kind: {tag: [steps]}}} of everything upstream's reader saw."""
    return {run: {kind: {tag: [entry[0] for entry in entries] for tag, entries in view[kind].items()}
                  for kind in ("scalars", "histograms", "images", "audio", "tensors")}
            for run, view in runs.items()}


def test_a_second_run_starts_afresh_and_names_the_port_and_a_launcher_that_exists(tmp_path):
    pytest.importorskip("sklearn")
    logdir = tmp_path / "demo_logs"
    run_demo(logdir)
    first_files, first = files_of(logdir), tags_and_steps(upstream_read(logdir)["runs"])
    assert ".tensorboard-demo" in first_files and len(first_files) > 3 * len(RUNS)  # runs, projector files
    second = run_demo(logdir, "--port", "6123")
    assert files_of(logdir) == first_files
    assert tags_and_steps(upstream_read(logdir)["runs"]) == first
    assert all(len(list((logdir / run).glob("events.out.tfevents.*"))) == 1 for run in RUNS)

    last = second.stdout.strip().splitlines()[-1]
    command = re.search(r"View it with: (.*?)  \(then open http://localhost:6123/\)$", last)
    assert command, last
    launcher, *args = shlex.split(command.group(1))
    assert args == ["--logdir", str(logdir), "--port", "6123"]
    assert Path(launcher).name == "tensorboard" and os.access(tmp_path / launcher, os.X_OK), launcher


def test_a_directory_the_demo_did_not_write_is_refused_and_kept(tmp_path):
    pytest.importorskip("sklearn")
    logdir = tmp_path / "experiments"
    logdir.mkdir()
    (logdir / "notes.txt").write_text("mine")
    result = run_demo(logdir, check=False)
    assert result.returncode != 0
    assert result.stderr.strip() == (f"demo: {logdir} exists and was not written by demo.py (no .tensorboard-demo "
                                     f"file in it); pass another --logdir, or remove {logdir} yourself")
    assert [p.name for p in logdir.iterdir()] == ["notes.txt"]
