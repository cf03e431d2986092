"""demo/demo.py end to end: every data type reaches upstream's readers, for NumPy and MXNet."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from graph.graph_view import GraphView
from seeds.mxnet_venv import run_mxnet
from upstream import as_array, upstream_read

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo" / "demo.py"
EPOCHS = 6
RUNS = ["lr_0.01", "lr_0.1", "lr_0.5"]


def check_logdir(runs: dict, framework: str) -> None:
    assert set(RUNS) <= set(runs)
    for name in RUNS:
        run = runs[name]
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
        for sub in ("loss/train", "loss/validation"):
            assert [s for s, _, _ in runs[f"{name}/{sub}"]["scalars"]["loss"]] == list(range(1, EPOCHS + 1))
        hparams = runs[f"{name}/hparams"]
        assert {m["plugin_name"] for m in hparams["metadata"].values()} >= {"hparams"}
        assert "hparam/accuracy" in hparams["scalars"]
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
    check_logdir(upstream_read(logdir)["runs"], "numpy")


def test_demo_mxnet(tmp_path):
    logdir = tmp_path / "demo_logs"
    result = run_mxnet([str(DEMO), "--logdir", str(logdir), "--framework", "mxnet", "--epochs", str(EPOCHS)],
                       cwd=tmp_path)
    assert "mxnet MLP" in result.stdout
    check_logdir(upstream_read(logdir)["runs"], "mxnet")
