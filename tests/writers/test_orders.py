"""One positional order per class, never guessed: tensorboard.SummaryWriter takes torch's (and
tensorboardX's) order, tensorboard.mxboard.SummaryWriter MXBoard's. Each is called with the peer's own
positional argument lists (tests/tools/peer_calls.py), read back by upstream's reader, and compared with
what real torch.utils.tensorboard and tensorboardX (in .venv-upstream) write for the same calls."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from upstream import as_array, upstream_python, upstream_read

import tensorboard
from tensorboard.mxboard import SummaryWriter as MXBoardWriter

TOOLS = Path(__file__).resolve().parents[1] / "tools"
sys.path.insert(0, str(TOOLS))

from peer_calls import clip, mxboard_calls, torch_calls  # noqa: E402


def run_calls(writer, calls) -> None:
    with writer:
        for method, args, kwargs in calls:
            getattr(writer, method)(*args, **kwargs)


def run_peer(lib: str, logdir: Path) -> list:
    out = subprocess.run([upstream_python(), str(TOOLS / "run_peer_calls.py"), lib, str(logdir)], capture_output=True,
                         text=True, timeout=600, env={**os.environ, "PYTHONPATH": ""})
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def view(run: dict) -> dict:
    """What a user sees of a run, in terms every writer shares (our histograms merge empty buckets, so
    buckets are compared by their statistics)."""
    pr = {tag: [(e[0], as_array(e[2]).shape[1]) for e in events] for tag, events in run["tensors"].items()
          if run["metadata"][tag]["plugin_name"] == "pr_curves"}
    return {
        "scalars": {tag: [(e[0], e[2]) for e in events] for tag, events in run["scalars"].items()},
        "histograms": {tag: [(e[0], e[1]["num"], e[1]["min"], e[1]["max"], pytest.approx(e[1]["sum"]))
                             for e in events] for tag, events in run["histograms"].items()},
        "audio": {tag: [(e[0], e[1], e[4]["channels"], e[4]["frames"]) for e in events]
                  for tag, events in run["audio"].items()},
        "images": {tag: [tuple(e[:3]) for e in events] for tag, events in run["images"].items()},
        "pr_curves": pr,
    }


@pytest.fixture(scope="module")
def torch_order_runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("orders")
    run_calls(tensorboard.SummaryWriter(root / "ours"), torch_calls())
    refused = {lib: run_peer(lib, root / lib) for lib in ("torch", "tbx")}
    return {lib: upstream_read(root / lib)["runs"] for lib in ("ours", "torch", "tbx")}, refused


def test_torch_order_calls_read_back_as_torch_writes_them(torch_order_runs):
    runs, refused = torch_order_runs
    assert refused["torch"] == []
    ours, theirs = view(runs["ours"]["."]), view(runs["torch"]["."])
    assert ours == theirs
    assert ours["audio"]["tone"] == [(0, 44100, 1, 800), (1, 44100, 1, 800), (2, 44100, 1, 800),
                                     (16000, 44100, 1, 800)]  # the step never becomes a sample rate
    assert ours["audio"]["mono_row"] == [(0, 16000, 1, 800)]  # (1, L): one channel of L frames, as torch
    assert ours["histograms"]["w"][0][:2] == (10, 100)  # add_histogram(tag, v, 10): step 10
    assert ours["pr_curves"] == {"pr": [(3, 127)], "pr11": [(4, 11)]}
    ours_samples = as_array(runs["ours"]["."]["audio"]["rate"][0][4]["samples"]).astype(int)
    torch_samples = as_array(runs["torch"]["."]["audio"]["rate"][0][4]["samples"]).astype(int)
    assert np.abs(ours_samples - torch_samples).max() <= 1  # torch truncates to int16, we round
    trial = runs["ours"]["trial"]["scalars"]["hp/acc"]
    assert [(step, value) for step, _, value in trial] == [(7, 0.5)]
    assert [(s, v) for s, _, v in runs["torch"]["trial"]["scalars"]["hp/acc"]] == [(7, 0.5)]
    (emb,) = runs["ours"]["."]["projector"]["embeddings"]
    (peer_emb,) = runs["torch"]["."]["projector"]["embeddings"]
    assert (emb["tensor_name"], emb["metadata"]) == (peer_emb["tensor_name"], peer_emb["metadata"]) == \
        ("emb:00002", [str(i) for i in range(6)])


def test_torch_order_calls_read_back_as_tensorboardx_writes_them(torch_order_runs):
    runs, refused = torch_order_runs
    # tensorboardX's add_hparams has no hparam_domain_discrete (its 3rd positional is `name`), and its
    # audio needs soundfile, which .venv-upstream lacks: those calls are compared with torch only
    assert {(method, error.split(":")[0]) for method, _, error in refused["tbx"]} == {
        ("add_hparams", "TypeError"), ("add_audio", "ModuleNotFoundError")}
    ours, theirs = view(runs["ours"]["."]), view(runs["tbx"]["."])
    ours.pop("audio")
    theirs.pop("audio")
    assert ours == theirs
    assert set(runs["tbx"]) >= {"pair/a", "pair/b"} and set(runs["ours"]) >= {"pair/a", "pair/b"}


def test_mxboard_order_calls_read_back_as_mxboard_writes_them(tmp_path):
    run_calls(MXBoardWriter(tmp_path), mxboard_calls())
    runs = upstream_read(tmp_path)["runs"]
    seen = view(runs["."])
    assert seen["audio"] == {"tone": [(5, 16000, 1, 800)], "mono_row": [(0, 8000, 1, 800)]}
    assert [h[:2] for h in seen["histograms"]["w"]] == [(10, 100), (11, 100)]
    assert len(runs["."]["histograms"]["w"][1][1]["bucket"]) == 20  # bins=20 in 4th place
    assert seen["pr_curves"] == {"pr": [(3, 11)]}
    assert seen["scalars"]["loss"] == [(3, 0.5)]
    assert [(s, v) for s, _, v in runs["curves/sin"]["scalars"]["curves"]] == [(4, 0.5)]
    assert [(s, v) for s, _, v in runs["named/exp"]["scalars"]["named"]] == [(5, 1.5)]
    (emb,) = runs["."]["projector"]["embeddings"]
    assert (emb["tensor_name"], emb["tensor_shape"]) == ("emb:00002", [6, 3])


def test_every_add_method_is_called_in_its_peers_order(tmp_path):
    """The rest of the torch-order methods, positionally (those the peer lists above do not reach)."""
    image = np.zeros((3, 20, 30), np.float32)
    with tensorboard.SummaryWriter(tmp_path) as writer:
        # torch: (tag, img_tensor, box_tensor, global_step, walltime, rescale, dataformats, labels)
        writer.add_image_with_boxes("boxes", image, np.array([[1, 2, 10, 12]]), 4, None, 2, "CHW", ["cat"])
        writer.add_video("video", np.zeros((1, 2, 3, 8, 8), np.float32), 5, 4, None)
        writer.add_pr_curve_raw("raw", [3, 2], [2, 1], [0, 1], [0, 1], [0.6, 0.66], [1.0, 0.66], 6, 2, None, None)
        writer.add_histogram_raw("hraw", 0.0, 2.0, 3, 3.0, 5.0, [1.0, 2.0], [1, 2], 8, None)
        writer.add_custom_scalars({"c": {"chart": ["Multiline", ["loss"]]}})
        writer.add_custom_scalars_marginchart(["v", "lo", "hi"], "c", "margin")
        writer.add_custom_scalars_multilinechart(["loss"], "c", "lines")
    run = upstream_read(tmp_path)["runs"]["."]
    assert [tuple(e[:3]) for e in run["images"]["boxes"]] == [(4, 60, 40)]  # rescale 2 in 6th place
    assert [e[0] for e in run["images"]["video"]] == [5]
    assert [e[0] for e in run["tensors"]["raw"]] == [6]
    assert [(e[0], e[1]["num"]) for e in run["histograms"]["hraw"]] == [(8, 3)]
    covered = {method for method, _, _ in torch_calls() + mxboard_calls()} | {
        "add_image_with_boxes", "add_video", "add_pr_curve_raw", "add_histogram_raw", "add_custom_scalars",
        "add_custom_scalars_marginchart", "add_custom_scalars_multilinechart"}
    elsewhere = {"add_graph", "add_onnx_graph", "add_figure", "add_summary"}  # tests/graph, test_moving_over
    for cls in (tensorboard.SummaryWriter, MXBoardWriter):
        assert {name for name in dir(cls) if name.startswith("add_")} - covered == elsewhere


# -- a call in the other class's order fails naming the parameter and this class's signature -----------

TORCH_SIGNATURE = r"\[tensorboard\.SummaryWriter\.{}\(.*torch\.utils\.tensorboard's order"
MXBOARD_SIGNATURE = r"\[tensorboard\.mxboard\.SummaryWriter\.{}\(.*MXBoard's order"


@pytest.mark.parametrize("method, args, error, message", [
    ("add_embedding", ("emb", np.ones((3, 2))), TypeError, "^mat: expected a 2-D matrix, got str"),
    ("add_hparams", ({"lr": 0.1}, {"m": 1.0}, "trial", 3), TypeError, "^hparam_domain_discrete: expected a dict"),
    ("add_histogram", ("h", np.arange(5.0), "auto", 3), TypeError, "^global_step must be an int, got str"),
    ("add_audio", ("a", np.zeros((800, 2)), 0), ValueError, r"^snd_tensor: shape \(800, 2\) read as "
                                                             r"\(channels, length\) is 800 channels"),
    ("add_image_with_boxes", ("b", np.zeros((3, 20, 30)), [[0, 0, 5, 5]], 0, None, "CHW"), ValueError,
     "^rescale: expected a positive number, got 'CHW'"),  # tensorboardX's 6th is dataformats
    ("add_audio", ("a", clip(), 1, 2, 3, 4), TypeError, "positional arguments but"),
    ("add_scalar", ("s", 1.0, 0, None, "Loss"), TypeError, "^new_style: expected a bool, got str"),  # tensorboardX's
    # display_name
])
def test_torch_class_refuses_other_orders(tmp_path, method, args, error, message):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        with pytest.raises(error, match=message) as raised:
            getattr(writer, method)(*args)
    assert raised.match(TORCH_SIGNATURE.format(method))


@pytest.mark.parametrize("method, args, error, message", [
    ("add_embedding", (np.ones((3, 2)),), TypeError, "^tag: expected str"),
    ("add_pr_curve", ("p", np.array([0, 1]), np.array([0.2, 0.8]), 0), ValueError, "^num_thresholds"),
    ("add_audio", ("a", clip(), 0), ValueError, "^sample_rate: expected a positive integer"),
    ("add_audio", ("a", np.zeros((2, 800)), 8000), ValueError, r"^audio: shape \(2, 800\) read as "
                                                               r"\(length, channels\) is 800 channels"),
    ("add_histogram", ("h", np.arange(5.0), 1, 10, None), TypeError, "positional arguments but"),
])
def test_mxboard_class_refuses_other_orders(tmp_path, method, args, error, message):
    with MXBoardWriter(tmp_path) as writer:
        with pytest.raises(error, match=message) as raised:
            getattr(writer, method)(*args)
    assert raised.match(MXBOARD_SIGNATURE.format(method))


def test_mxboard_and_seed_keywords_work_on_the_torch_class(tmp_path):
    rng = np.random.default_rng(0)
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_scalar(tag="s", value=2.5, global_step=1)
        writer.add_histogram(tag="h", values=np.arange(50.0), bins=5, global_step=2)
        writer.add_audio(tag="a", audio=clip(), sample_rate=8000, global_step=3)
        writer.add_image(tag="i", image=rng.random((3, 4, 5)), global_step=4)
        writer.add_text(tag="t", text="x", global_step=5)
        writer.add_pr_curve("p", np.array([0, 1, 1]), np.array([0.1, 0.6, 0.9]), num_thresholds=9, global_step=6)
        writer.add_embedding(tag="e", embedding=rng.random((4, 2)), labels=list("abcd"), global_step=7)
    run = upstream_read(tmp_path)["runs"]["."]
    seen = view(run)
    assert seen["scalars"]["s"] == [(1, 2.5)] and [h[0] for h in seen["histograms"]["h"]] == [2]
    assert len(run["histograms"]["h"][0][1]["bucket"]) == 5
    assert seen["audio"]["a"] == [(3, 8000, 1, 800)] and seen["images"]["i"] == [(4, 5, 4)]
    assert seen["pr_curves"]["p"] == [(6, 9)]
    assert run["projector"]["embeddings"][0]["metadata"] == list("abcd")


def test_constructors_take_their_librarys_order(tmp_path):
    with tensorboard.SummaryWriter(tmp_path / "torch", "_c", None, 3, 60, ".sfx") as writer:  # torch's order
        assert writer.get_logdir() == str(tmp_path / "torch")
        writer.add_scalar("x", 1.0, 0)
        name = os.path.basename(writer.file_writer._writer.path)
    assert name.endswith(".sfx") and writer._options["max_queue"] == 3 and writer._options["flush_secs"] == 60
    with MXBoardWriter(tmp_path / "mx", 4, 30, ".mx", False) as writer:  # MXBoard's order
        assert writer._options["max_queue"] == 4 and writer._options["flush_secs"] == 30
        assert writer.file_writer._writer.path.endswith(".mx")
    assert not tensorboard.SummaryWriter(tmp_path / "off", "", None, 10, 120, "", False).writes  # tensorboardX's 7th
