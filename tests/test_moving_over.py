"""Moving over is an import change: MXBoard's, tensorboardX's and torch's calls behave as there (MXBoard's
positional orders through tensorboard.mxboard.SummaryWriter, see tests/writers/test_orders.py). What is written
is read back by upstream's reader."""
from __future__ import annotations

import json
import math
import os
import re
import warnings

import numpy as np
import pytest
from upstream import as_array, upstream_read

import tensorboard
from tensorboard import summary
from tensorboard.src import summary_pb2


def scalars(run, tag):
    return [(step, value) for step, _, value in run["scalars"][tag]]


# -- MXBoard's scalars ---------------------------------------------------------------------------------

def test_mxboard_named_scalars_and_dicts_land_in_mxboard_sub_runs(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as sw:
        sw.add_scalar(tag="t", value=("scalar1", 1.5), global_step=0)
        sw.add_scalar(tag="t", value=["scalar2", 2.5], global_step=0)
        x_vals = np.arange(0, 2 * np.pi, 0.07)  # MXBoard's docstring example: steps x * 100
        for x in x_vals:
            sw.add_scalar("curves", {"sin": np.sin(x), "cos": np.cos(x)}, x * 100)
    runs = upstream_read(tmp_path)["runs"]
    assert scalars(runs["t/scalar1"], "t") == [(0, 1.5)] and scalars(runs["t/scalar2"], "t") == [(0, 2.5)]
    sin = scalars(runs["curves/sin"], "curves")
    assert [s for s, _ in sin] == [int(round(x * 100)) for x in x_vals] == list(range(0, 7 * len(x_vals), 7))
    assert np.allclose([v for _, v in sin], np.sin(x_vals), atol=1e-6)


def test_named_scalar_of_the_wrong_shape_fails_naming_value(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as sw:
        with pytest.raises(ValueError, match="^value: a tuple or list is MXBoard's named scalar"):
            sw.add_scalar("t", (1.0, 2.0), 0)
        with pytest.raises(ValueError, match="tag_scalar_dict key '../x' would name a run outside the logdir"):
            sw.add_scalars("t", {"../x": 1.0}, 0)
        sw.add_scalars("t", {"x": 1.0, "y/z": 2.0}, 0)
        for key in ("./x", "x/", ".", "y//z"):  # the same directory as another key's run ("" is refused as a tag)
            with pytest.raises(ValueError, match=f"^tag_scalar_dict key {key!r} has an empty or '.' path part"):
                sw.add_scalars("t", {"y": 0.5, key: 3.0}, 1)
        with pytest.raises(ValueError, match="^main_tag 't/' has an empty or '.' path part"):
            sw.add_scalars("t/", {"x": 4.0}, 2)
    runs = upstream_read(tmp_path)["runs"]
    assert scalars(runs["t/x"], "t") == [(0, 1.0)] and scalars(runs["t/y/z"], "t") == [(0, 2.0)]
    assert "t/y" not in runs  # refused calls log none of their keys


def test_fractional_steps_truncate_with_a_warning_like_the_peers(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as sw:
        with pytest.warns(UserWarning, match=r"global_step 2\.5 is not a whole number: logged at step 2"):
            sw.add_scalar("x", 1.0, 2.5)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sw.add_scalar("x", 2.0, 0.29 * 100)  # 28.999999999999996: a whole number in all but rounding
            sw.add_scalar("x", 3.0, sum([0.1] * 1000))  # 99.9999999999986: rounding error accumulated
            sw.add_scalar("x", 4.0, 2500000000.0000005)  # two float steps above a whole number
        for step, logged in ((2500000001.5, 2500000001), (3000000000.9, 3000000000), (1e15 + 0.5, 10**15)):
            message = f"global_step {step!r} is not a whole number: logged at step {logged}"
            with pytest.warns(UserWarning, match=message):
                sw.add_scalar("big", 5.0, step)  # a large step's fraction is not rounded away
    run = upstream_read(tmp_path)["runs"]["."]
    assert scalars(run, "x") == [(2, 1.0), (29, 2.0), (100, 3.0), (2500000000, 4.0)]
    assert [step for step, _ in scalars(run, "big")] == [2500000001, 3000000000, 10**15]


# -- steps and values out of range -----------------------------------------------------------------

@pytest.mark.parametrize("step", [10**20, 2**63, np.uint64(2**64 - 1), -(2**63) - 1])
def test_steps_outside_int64_raise_on_every_path(tmp_path, step):
    sw = tensorboard.SummaryWriter(tmp_path)
    sw.add_scalar("kept", 1.0, 1)
    for call in (lambda: sw.add_scalar("a", 1.0, step),
                 lambda: sw.add_scalar("a", np.float32(1.0), step),
                 lambda: sw.add_histogram("h", np.arange(3.0), step),
                 lambda: sw.add_scalars("m", {"k": 1.0}, step),
                 lambda: sw.file_writer.add_summary(summary.scalar("a", 1.0), global_step=step),
                 lambda: sw.file_writer.add_session_log("START", global_step=step),
                 lambda: tensorboard.SummaryWriter(tmp_path / "p", purge_step=step)):
        with pytest.raises(ValueError, match=r"(global_step|purge_step) .*outside int64"):
            call()
    sw.close()
    runs = upstream_read(tmp_path)["runs"]
    assert scalars(runs["."], "kept") == [(1, 1.0)] and "a" not in runs["."]["scalars"]
    assert "m/k" not in runs and "p" not in runs


def test_low_level_add_summary_refuses_2_to_the_64(tmp_path):
    with tensorboard.FileWriter(tmp_path) as fw:
        with pytest.raises(ValueError, match="global_step"):
            fw.add_summary(summary.scalar("a", 1.0), global_step=2**64)


def test_beyond_float32_warns_or_is_kept_exactly_with_double_precision(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as sw:
        with pytest.warns(UserWarning, match=r"1e\+300 \(tag 'big'\) is beyond float32's range"):
            sw.add_scalar("big", 1e300, 0)
        with pytest.warns(UserWarning, match="beyond float32"):
            sw.add_scalar("neg", np.float64(-1e300), 0)
        with pytest.warns(UserWarning, match="beyond float32"):
            sw.add_scalars("many", {"a": 1e300}, 0)
        with pytest.warns(UserWarning, match="beyond float32"):
            sw.file_writer.add_summary(summary.scalar("proto", 1e300))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            sw.add_scalar("exact", 1e300, 0, double_precision=True)
            sw.add_scalar("new", 0.25, 0, new_style=True)
            sw.add_scalar("nan", math.nan, 0)  # NaN and inf are data, kept without a word
    run = upstream_read(tmp_path)["runs"]["."]
    assert scalars(run, "big") == [(0, math.inf)] and scalars(run, "neg") == [(0, -math.inf)]
    assert scalars(run, "proto") == [(0, math.inf)]
    (step, _, exact), = run["tensors"]["exact"]
    assert as_array(exact).dtype == np.float64 and float(as_array(exact)) == 1e300
    assert run["metadata"]["exact"]["plugin_name"] == "scalars"
    (_, _, new), = run["tensors"]["new"]
    assert as_array(new).dtype == np.float32 and float(as_array(new)) == 0.25
    assert run["metadata"]["new"]["plugin_name"] == "scalars"


# -- argument orders: one per class, tested in tests/writers/test_orders.py ------------------------------------

def test_add_hparams_name_and_positional_forms(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as sw:
        sw.add_hparams({"lr": 0.1}, {"hparam/acc": 0.5}, name="tbx_kw")
        sw.add_hparams({"lr": 0.2}, {"hparam/acc": 0.6}, name="tbx_pos", global_step=3)  # tensorboardX's keywords
        sw.add_hparams({"lr": 0.3}, {"hparam/acc": 0.7}, {"lr": [0.3, 0.4]}, "torch_pos", 4)  # torch
        with pytest.raises(TypeError, match="'run_name' and its alias 'name'"):
            sw.add_hparams({"lr": 0.1}, {"hparam/acc": 0.5}, run_name="a", name="b")
    runs = upstream_read(tmp_path)["runs"]
    assert scalars(runs["tbx_kw"], "hparam/acc") == [(0, 0.5)]
    assert scalars(runs["tbx_pos"], "hparam/acc") == [(3, pytest.approx(0.6))]
    assert scalars(runs["torch_pos"], "hparam/acc") == [(4, pytest.approx(0.7))]


# -- methods and keywords the other libraries have ------------------------------------------------

def test_image_with_boxes_draws_red_outlines(tmp_path):
    image = np.zeros((3, 40, 50), np.float32)
    with tensorboard.SummaryWriter(tmp_path) as sw:
        sw.add_image_with_boxes("boxes", image, np.array([[5, 6, 30, 20]]), 2, labels=["cat"])
        sw.add_image_with_boxes("plain", image.transpose(1, 2, 0), [[0, 0, 10, 10]], 2, dataformats="HWC")
        with pytest.raises(ValueError, match="^labels: expected one per box"):
            sw.add_image_with_boxes("bad", image, [[0, 0, 1, 1]], labels=["a", "b"])
        with pytest.raises(ValueError, match="^box_tensor: expected N x 4"):
            sw.add_image_with_boxes("bad", image, [[0, 0, 1]])
    images = upstream_read(tmp_path)["runs"]["."]["images"]
    (step, width, height, decoded), = images["boxes"]
    pixels = as_array(decoded["pixels"])
    assert (step, width, height) == (2, 50, 40)
    assert tuple(pixels[6, 15][:3]) == (255, 0, 0) and tuple(pixels[13, 5][:3]) == (255, 0, 0)  # top and left edge
    assert tuple(pixels[6, 29][:3]) == (255, 0, 0) and tuple(pixels[30, 40][:3]) == (0, 0, 0)
    assert tuple(pixels[18, 8][:3]) == (255, 0, 0)  # the label's strip at the bottom-left corner
    (_, _, _, plain), = images["plain"]
    plain = as_array(plain["pixels"])
    assert tuple(plain[0, 5][:3]) == (255, 0, 0) and tuple(plain[5, 5][:3]) == (0, 0, 0)  # inside stays the image
    assert summary.image_boxes("t", image, [[1, 1, 4, 4]]).value[0].image.width == 50


def test_onnx_graph_export_json_and_use_metadata(tmp_path):
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper

    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    path = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph), str(path))
    logdir = tmp_path / "logs"
    with tensorboard.SummaryWriter(logdir) as sw:
        sw.add_onnx_graph(str(path))
        with sw.use_metadata(global_step=10, walltime=1234.5):
            sw.add_scalar("meta", 1.0)
            sw.add_text("note", "hello")
            sw.add_scalar("explicit", 2.0, 11)
        with pytest.raises(ValueError, match="use_metadata: give global_step, walltime or both"):
            with sw.use_metadata():
                pass
        sw.add_scalars("loss", {"train": 1.0, "valid": 2.0}, 5)
        sw.add_scalars("loss", {"train": 0.5}, 6)
        sw.export_scalars_to_json(tmp_path / "all.json")
        sw.export_scalars_to_json(tmp_path / "empty.json")
    exported = json.loads((tmp_path / "all.json").read_text())
    train = exported[os.path.join(str(logdir), "loss/train")]
    assert [row[1:] for row in train] == [[5, 1.0], [6, 0.5]]
    assert json.loads((tmp_path / "empty.json").read_text()) == {}
    run = upstream_read(logdir)["runs"]["."]
    assert [n["op"] for n in run["graph"]["node"] if n["name"].endswith("relu")] == ["Relu"]
    assert run["scalars"]["meta"] == [[10, 1234.5, 1.0]] and run["scalars"]["explicit"][0][0:2] == [11, 1234.5]


def test_global_summary_writer_counts_steps_per_tag_across_processes(tmp_path):
    import multiprocessing

    writer = tensorboard.GlobalSummaryWriter(tmp_path)
    try:
        writer.add_scalar("loss", 1.0)
        writer.add_scalar("loss", 2.0)
        writer.add_text("note", "a")
        context = multiprocessing.get_context("fork")
        children = [context.Process(target=writer.add_scalar, args=("loss", float(10 + i))) for i in range(2)]
        for child in children:
            child.start()
        for child in children:
            child.join(60)
            assert child.exitcode == 0
    finally:
        writer.close()
    run = upstream_read(tmp_path)["runs"]["."]
    assert sorted(s for s, _, _ in run["scalars"]["loss"]) == [0, 1, 2, 3]
    assert sorted(v for _, _, v in run["scalars"]["loss"])[2:] == [10.0, 11.0]


def test_pr_curve_raw_takes_the_series_length_and_pr_curve_one_threshold(tmp_path):
    tp, fp, tn, fn = [5, 4, 3, 2, 1], [5, 3, 2, 1, 0], [0, 2, 3, 4, 5], [0, 1, 2, 3, 4]
    precision, recall = [0.5, 0.57, 0.6, 0.67, 1.0], [1.0, 0.8, 0.6, 0.4, 0.2]
    with tensorboard.SummaryWriter(tmp_path) as sw:
        sw.add_pr_curve_raw("raw", tp, fp, tn, fn, precision, recall, 1)
        sw.add_summary(summary.pr_curve("one", [1, 0, 1], [0.2, 0.5, 0.9], 1), 2)
    run = upstream_read(tmp_path)["runs"]["."]
    (step, _, raw), = run["tensors"]["raw"]
    assert step == 1 and as_array(raw).shape == (6, 5) and as_array(raw)[0].tolist() == tp
    (_, _, one), = run["tensors"]["one"]
    assert as_array(one)[:4, 0].tolist() == [2, 1, 0, 0]  # every prediction is at or above threshold 0


def test_add_images_takes_a_list_of_chw_images(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as sw:
        sw.add_images("x", [np.full((3, 4, 5), i / 4, np.float32) for i in range(5)], 0, dataformats="CHW")
        with pytest.raises(ValueError, match="^images: the images of a list must share one shape"):
            sw.add_images("bad", [np.zeros((3, 4, 5)), np.zeros((3, 4, 6))], 0, dataformats="CHW")
    (_, width, height, _), = upstream_read(tmp_path)["runs"]["."]["images"]["x"]
    assert (width, height) == (25, 4)  # five 5-pixel-wide images side by side


def test_default_logdir_is_a_new_run_per_writer(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with tensorboard.SummaryWriter(comment="_lr0.1") as sw:
        sw.add_scalar("x", 1.0, 0)
        logdir = sw.get_logdir()
    assert re.fullmatch(r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_.+_lr0\.1", logdir.replace(os.sep, "/"))
    with tensorboard.SummaryWriter() as plain:
        assert re.fullmatch(r"runs/[A-Z][a-z]{2}\d{2}_\d{2}-\d{2}-\d{2}_[^/]+", plain.get_logdir())
    assert scalars(upstream_read(tmp_path / logdir)["runs"]["."], "x") == [(0, 1.0)]


def test_file_writer_is_none_after_close_and_comes_back_on_the_next_add(tmp_path):
    sw = tensorboard.SummaryWriter(tmp_path)
    sw.add_scalar("x", 1.0, 0)
    assert isinstance(sw.file_writer, tensorboard.FileWriter)
    sw.close()
    assert sw.file_writer is None
    sw.add_scalar("x", 2.0, 1)
    assert sw.file_writer is not None
    sw.close()
    assert scalars(upstream_read(tmp_path)["runs"]["."], "x") == [(0, 1.0), (1, 2.0)]


def test_use_strict_trace_reaches_torch(tmp_path):
    torch = pytest.importorskip("torch")

    class DictOut(torch.nn.Module):
        def forward(self, x):
            return {"y": x * 2}

    with tensorboard.SummaryWriter(tmp_path) as sw:
        with pytest.raises(RuntimeError, match="strict"):
            sw.add_graph(DictOut(), torch.zeros(2), use_strict_trace=True)
        sw.add_graph(DictOut(), torch.zeros(2), use_strict_trace=False)
        with pytest.raises(TypeError, match="use_strict_trace applies to PyTorch models only"):
            sw.add_graph(summary_pb2.Summary(), use_strict_trace=True)
    assert upstream_read(tmp_path)["runs"]["."]["graph"]["node"]
