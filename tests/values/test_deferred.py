"""add_* with JAX arrays and MXNet NDArrays returns without waiting: the value is snapshotted at the
call and converted in the writer thread. The logged value is the value at the call; order, flush,
close and errors keep their guarantees. Everything is read back by upstream's reader."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest
from upstream import upstream_read
from waiting import eventually

import tensorboard
from tensorboard.values import deferred as _deferred
from tensorboard.values.deferred import DeferredValueError

jax = pytest.importorskip("jax")
jnp = jax.numpy


def scalars(logdir, tag, run="."):
    return [(step, value) for step, _, value in upstream_read(logdir)["runs"][run]["scalars"][tag]]


def test_jax_values_are_deferred_and_numpy_is_not():
    assert _deferred.framework_of(jnp.ones(3)) == "jax"
    assert _deferred.framework_of(np.ones(3)) is None and _deferred.framework_of(1.0) is None


def test_values_order_and_flush(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        for step in range(20):
            value = jnp.float32(step) * 0.5 if step % 2 else float(step) * 0.5  # interleaved with plain floats
            writer.add_scalar("x", value, step)
        writer.flush()  # waits for the conversions
        writer.add_histogram("h", jnp.arange(100.0), 3)
        writer.add_image("img", jnp.full((3, 4, 5), 0.5), 4)
        writer.add_audio("a", jnp.sin(jnp.linspace(0, 50, 800)), sample_rate=8000, global_step=5)
    assert scalars(tmp_path, "x") == [(s, s * 0.5) for s in range(20)]
    run = upstream_read(tmp_path)["runs"]["."]
    assert run["histograms"]["h"][0][0] == 3 and run["histograms"]["h"][0][1]["num"] == 100
    assert run["images"]["img"][0][:3] == [4, 5, 4]
    assert run["audio"]["a"][0][:2] == [5, 8000]


def test_the_value_at_the_call_is_logged_even_if_its_buffer_goes_away(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        value = jnp.asarray([2.5])
        writer.add_scalar("x", value, 0)
        value.delete()  # what donating it to a jitted function does
        writer.add_scalar("x", jnp.asarray(3.5), 1)
    assert scalars(tmp_path, "x") == [(0, 2.5), (1, 3.5)]


def test_argument_errors_at_the_call_value_errors_at_the_next_call(tmp_path):
    writer = tensorboard.SummaryWriter(tmp_path)
    writer.add_scalar("good", jnp.float32(1.0), 0)
    with pytest.raises(TypeError, match=r"^value: expected a single number, got an array of shape \(3,\)"):
        writer.add_scalar("vector", jnp.ones(3), 0)  # the shape is known without waiting
    writer.add_histogram("nan", jnp.array([jnp.nan, 1.0]), 1)
    with pytest.raises(DeferredValueError, match="tag 'nan'.*NaN or infinite"):
        writer.flush()
    writer.add_scalar("after", 2.0, 2)
    writer.close()
    run = upstream_read(tmp_path)["runs"]["."]
    assert sorted(run["scalars"]) == ["after", "good"] and "nan" not in run["histograms"]


def test_an_error_is_raised_at_the_next_add_which_is_still_logged(tmp_path):
    writer = tensorboard.SummaryWriter(tmp_path)
    writer.add_histogram("nan", jnp.array([jnp.inf]), 0)
    with pytest.raises(DeferredValueError, match="tag 'nan'"):
        for step in range(10_000):  # the writer thread converts it soon; some later add reports it
            writer.add_scalar("next", float(step), step)
            threading.Event().wait(0.001)  # let the writer thread run
    writer.close()
    steps = [s for s, _ in scalars(tmp_path, "next")]
    assert steps == list(range(step + 1))  # the add that raised was logged too


def test_pending_snapshots_are_bounded(tmp_path):
    writer = tensorboard.FileWriter(tmp_path, max_pending_snapshot_bytes=1000)
    sw = tensorboard.SummaryWriter(tmp_path / "run")
    sw._file_writer.close()
    sw._file_writer = writer
    for step in range(30):
        sw.add_histogram("h", jnp.arange(200.0) + step, step)  # 800 bytes each: at most one pending
        assert writer._writer._deferred.snapshots_in - writer._writer._deferred.snapshots_out <= 1000
    sw.close()
    hist = upstream_read(tmp_path)["runs"]["."]["histograms"]["h"]
    assert [s for s, _ in hist] == list(range(30)) and hist[-1][1]["min"] == 29.0


MXNET_SCRIPT = textwrap.dedent("""
    import json, sys
    import mxnet as mx
    import tensorboard
    from tensorboard.values import deferred as _deferred

    logdir = sys.argv[1]
    x = mx.nd.array([1.0])
    w = mx.nd.ones((4, 4))
    with tensorboard.SummaryWriter(logdir) as writer:
        kind = _deferred.framework_of(x)
        for step in range(3):
            writer.add_scalar("x", x, step)
            writer.add_histogram("w", w, step)
            writer.add_scalars("acc", {"train": x}, step)  # MXBoard's multi-line chart, same snapshot rule
            predictions = mx.nd.array([0.2, 0.9, 0.7])
            writer.add_pr_curve("pr", mx.nd.array([0, 1, 1]), predictions, global_step=step, num_thresholds=3)
            x += 10  # in place, after the call: must not change what was logged
            w[:] = w * 2
            predictions[:] = 0
        zero_d = mx.nd.array(2.5)  # legacy shape (): NDArray.copy() refuses it, asnumpy() reads it
        writer.add_scalar("zero_d", zero_d, 0)
        writer.add_histogram("zero_d_values", zero_d, 0)
    print(json.dumps({"kind": kind}))
""")


def test_mxnet_in_place_updates_after_the_call_do_not_change_the_logged_value(tmp_path):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parents[1] / "seeds"))
    from mxnet_venv import run_mxnet

    script = tmp_path / "mx.py"
    script.write_text(MXNET_SCRIPT)
    result = run_mxnet([str(script), str(tmp_path / "logs")], tmp_path)
    assert '"kind": "mxnet"' in result.stdout
    runs = upstream_read(tmp_path / "logs")["runs"]
    assert [(s, v) for s, _, v in runs["."]["scalars"]["x"]] == [(0, 1.0), (1, 11.0), (2, 21.0)]
    assert [h["sum"] for _, h in runs["."]["histograms"]["w"]] == [16.0, 32.0, 64.0]
    assert [(s, v) for s, _, v in runs["."]["scalars"]["zero_d"]] == [(0, 2.5)]
    assert [(h["num"], h["sum"]) for _, h in runs["."]["histograms"]["zero_d_values"]] == [(1.0, 2.5)]
    assert [(s, v) for s, _, v in runs["acc/train"]["scalars"]["acc"]] == [(0, 1.0), (1, 11.0), (2, 21.0)]
    from upstream import as_array

    curves = runs["."]["tensors"]["pr"]  # true positives at thresholds 0, 0.5, 1 of predictions .2 .9 .7
    assert [s for s, _, _ in curves] == [0, 1, 2] and all(list(as_array(c)[0]) == [2, 2, 0] for _, _, c in curves)


def test_add_scalars_takes_jax_values_without_converting_them_at_the_call(tmp_path, deferred_conversions):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_scalars("loss", {"train": jnp.float32(0.25) * 1.0, "val": 0.5}, 7)
        writer.add_scalar("pair", ("train", jnp.float32(1.5)), 8)  # MXBoard's named scalar goes the same way
        export = tmp_path / "scalars.json"
        writer.export_scalars_to_json(export)  # waits for the pending numbers
    conversions = deferred_conversions.values()
    assert sorted(tag for tag, _ in conversions) == ["loss", "pair"]  # deferred; the float was not
    assert all(thread != "MainThread" for _, thread in conversions)
    runs = upstream_read(tmp_path)["runs"]
    assert [(s, v) for s, _, v in runs["loss/train"]["scalars"]["loss"]] == [(7, 0.25)]
    assert [(s, v) for s, _, v in runs["loss/val"]["scalars"]["loss"]] == [(7, 0.5)]
    assert [(s, v) for s, _, v in runs["pair/train"]["scalars"]["pair"]] == [(8, 1.5)]
    exported = {os.path.relpath(run, tmp_path): [e[1:] for e in entries]
                for run, entries in json.loads(export.read_text()).items()}
    assert exported == {"loss/train": [[7, 0.25]], "loss/val": [[7, 0.5]], "pair/train": [[8, 1.5]]}


def test_add_scalars_checks_each_pending_value_at_the_call(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        with pytest.raises(TypeError,
                           match=r"^tag_scalar_dict\['b'\]: expected a single number, got an array of shape \(2,\)"):
            writer.add_scalars("m", {"a": jnp.float32(1.0), "b": jnp.ones(2)}, 0)
        writer.add_scalars("m", {"a": jnp.float32(2.0)}, 1)
    assert scalars(tmp_path, "m", "m/a") == [(1, 2.0)]  # the refused call logged nothing


BAD_PENDING_CALLS = [  # (call on a writer, the argument its error must name first)
    (lambda w: w.add_image("i", jnp.zeros((2, 3)), 0, dataformats="CHW"), r"tensor: dataformats 'CHW' needs a 3-d"),
    (lambda w: w.add_image("i", jnp.zeros((5, 4, 4)), 0), r"tensor: expected 1, 3 or 4 channels"),
    (lambda w: w.add_image("i", jnp.zeros((3, 4, 4)), 0, dataformats="CHX"), r"dataformats: expected distinct"),
    (lambda w: w.add_histogram("h", jnp.zeros((0,)), 0), r"values: cannot make a histogram of an empty array"),
    (lambda w: w.add_histogram("h", jnp.ones(3), 0, bins=-1), r"bins: "),
    (lambda w: w.add_histogram("h", jnp.ones(3), 0, max_bins=0), r"max_bins: "),
    (lambda w: w.add_audio("a", jnp.zeros((2, 3, 4)), 0, 8000), r"snd_tensor: expected \(length,\) or"),
    (lambda w: w.add_audio("a", jnp.zeros(8), sample_rate=0.5, global_step=0), r"sample_rate: "),
    (lambda w: w.add_video("v", jnp.zeros((1, 2, 5, 4, 4)), 0), r"tensor: expected 1, 3 or 4 channels"),
    (lambda w: w.add_video("v", jnp.zeros((1, 2, 3, 4, 4)), 0, fps=0), r"fps: "),
    (lambda w: w.add_pr_curve("p", np.ones(3), jnp.ones(5), 0), r"labels and predictions: expected the same number"),
    (lambda w: w.add_pr_curve("p", np.ones(5), jnp.ones(5), 0, weights=jnp.ones(3)), r"weights: expected a scalar"),
    (lambda w: w.add_pr_curve("p", jnp.ones(5), jnp.ones(5), 0, num_thresholds=0), r"num_thresholds: "),
    (lambda w: w.add_pr_curve("p", [1, 0], jnp.ones(2), 0, weights=[1.0, 2.0, 3.0]), r"weights: expected a scalar"),
    (lambda w: w.add_image_with_boxes("b", jnp.zeros((2, 3, 4, 4)), np.zeros((1, 4)), 0, dataformats="NCHW"),
     r"tensor_image: expected one image, got a batch of 2"),
    (lambda w: w.add_image_with_boxes("b", jnp.zeros((3, 4, 4)), jnp.zeros((2, 5)), 0), r"box_tensor: expected N x 4"),
    (lambda w: w.add_image_with_boxes("b", jnp.zeros((3, 4, 4)), jnp.zeros((2, 4)), 0, labels=["a"]),
     r"labels: expected one per box \(2\), got 1"),
    (lambda w: w.add_mesh("m", jnp.zeros((5, 2))), r"vertices: expected shape \(batch, count, 3\)"),
    (lambda w: w.add_mesh("m", jnp.zeros((1, 5, 3)), colors=jnp.zeros((1, 4, 3))), r"colors: expected one color per"),
    (lambda w: w.add_mesh("m", jnp.zeros((5, 3)), config_dict={"camera": object()}), r"config_dict: "),
    # dtypes, like shapes, are known before the value is
    (lambda w: w.add_histogram("h", jnp.ones(3, jnp.complex64), 0), r"values: expected numeric values, got dtype "
                                                                     r"complex64"),
    (lambda w: w.add_scalar("s", jnp.complex64(1j), 0), r"value: expected a real number, got dtype complex64"),
    (lambda w: w.add_scalars("s", {"a": jax.random.key(0)}, 0),
     r"tag_scalar_dict\['a'\]: expected a real number, got dtype key<fry>"),
    (lambda w: w.add_image("i", jnp.ones((3, 4, 4), jnp.complex64), 0), r"image: expected numeric values"),
    (lambda w: w.add_pr_curve("p", np.ones(2), jnp.ones(2, jnp.complex64), 0), r"predictions: expected numeric"),
    (lambda w: w.add_pr_curve("p", np.ones(2, np.complex64), jnp.ones(2), 0), r"labels: expected numeric values"),
    (lambda w: w.add_audio("a", jnp.zeros(8, bool), 0, 8000), r"snd_tensor: bool samples have no PCM scale"),
]


def test_argument_errors_of_pending_values_are_raised_by_their_own_call(tmp_path):
    """Shapes are known before the value is: a pending value's argument error is its own call's, and
    that call logs nothing (the next call, say of another tag, does not inherit the error)."""
    with tensorboard.SummaryWriter(tmp_path) as writer:
        for step, (call, message) in enumerate(BAD_PENDING_CALLS):
            with pytest.raises((ValueError, TypeError), match="^" + message):
                call(writer)
            writer.add_scalar("after", jnp.float32(step), step)
            writer.flush()  # raises if a refused call had queued anything
    run = upstream_read(tmp_path)["runs"]["."]
    assert [(s, v) for s, _, v in run["scalars"]["after"]] == [(s, float(s)) for s in range(len(BAD_PENDING_CALLS))]
    assert not run["images"] and not run["histograms"] and not run["audio"]
    assert not {"p", "m_VERTEX", "m_COLOR"} & set(run["tensors"])


def test_pending_values_of_every_real_dtype_pass_the_dtype_check(tmp_path):
    """bool, ints and every float (bfloat16, float8 included) are logged; only complex and other
    non-numbers are refused at the call."""
    dtypes = [jnp.bool_, jnp.int8, jnp.uint16, jnp.int32, jnp.float16, jnp.bfloat16, jnp.float8_e4m3fn, jnp.float32]
    with tensorboard.SummaryWriter(tmp_path) as writer:
        for step, dtype in enumerate(dtypes):
            writer.add_histogram("h", jnp.ones(4, dtype), step)
            writer.add_scalar("s", jnp.ones((), dtype), step)
    run = upstream_read(tmp_path)["runs"]["."]
    assert [(s, v) for s, _, v in run["scalars"]["s"]] == [(step, 1.0) for step in range(len(dtypes))]
    assert [(step, h["num"], h["sum"], h["min"]) for step, h in run["histograms"]["h"]] == \
        [(step, 4, 4.0, 1.0) for step in range(len(dtypes))]


def test_torch_dtypes_are_judged_by_torch_itself():
    """A torch device tensor's dtype is a torch.dtype, not a NumPy one (a CPU tensor stands in for
    the device here: only the dtype is read)."""
    torch = pytest.importorskip("torch")
    assert _deferred.nonnumeric_dtype(torch.ones(2, dtype=torch.complex64), "torch-device") == "torch.complex64"
    for dtype in (torch.bool, torch.uint8, torch.int64, torch.bfloat16, torch.float16, torch.float64):
        assert _deferred.nonnumeric_dtype(torch.ones(2, dtype=dtype), "torch-device") is None


def test_boxed_images_and_meshes_take_pending_values_without_converting_them_at_the_call(tmp_path,
                                                                                        deferred_conversions):
    """The same events as from NumPy values, drawn and encoded in the background."""
    from upstream import as_array

    image = np.linspace(0, 1, 3 * 16 * 20, dtype=np.float32).reshape(3, 16, 20)
    boxes = np.array([[2, 3, 10, 12], [5, 1, 18, 8]], np.float32)
    vertices = np.arange(24, dtype=np.float32).reshape(1, 8, 3)
    colors = np.full((1, 8, 3), 0.5, np.float32)
    faces = np.array([[[0, 1, 2], [2, 3, 4]]], np.int32)
    for run, convert in (("numpy", np.asarray), ("jax", jnp.asarray)):
        with tensorboard.SummaryWriter(tmp_path / run) as writer:
            writer.add_image_with_boxes("b", convert(image), convert(boxes), 1, labels=["cat", "dog"])
            writer.add_mesh("m", convert(vertices), colors=convert(colors), faces=convert(faces), global_step=2,
                            config_dict={"camera": {"fov": 60}})
    assert sorted(tag for tag, _ in deferred_conversions.values()) == ["b", "m"]  # started in either order
    assert all(thread != "MainThread" for _, thread in deferred_conversions.values())
    runs = upstream_read(tmp_path)["runs"]
    assert runs["jax"]["images"] == runs["numpy"]["images"] and runs["jax"]["images"]["b"][0][:3] == [1, 20, 16]
    for tag, expected in (("m_VERTEX", vertices), ("m_FACE", faces), ("m_COLOR", np.full((1, 8, 3), 128))):
        (step, _, tensor), = runs["jax"]["tensors"][tag]
        assert step == 2 and np.array_equal(as_array(tensor), expected)
        assert runs["jax"]["metadata"][tag] == runs["numpy"]["metadata"][tag]


def test_pr_curves_and_videos_take_pending_values_without_converting_them_at_the_call(tmp_path,
                                                                                    deferred_conversions):
    from upstream import as_array

    labels = np.array([0, 1, 1, 0, 1, 1])
    scores = jnp.array([0.1, 0.9, 0.6, 0.4, 0.8, 0.3])  # buckets of 5 thresholds: 0 3 2 1 3 1
    weights = jnp.array([1.0, 2.0, 1.0, 0.5, 1.0, 3.0])
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_pr_curve("p", labels, scores, global_step=3, num_thresholds=5, weights=weights)
        writer.add_pr_curve("scalar weight", [True, False], jnp.array([0.9, 0.1]), global_step=1, weights=2.0)
        labels[:] = 0  # the caller's NumPy labels change after the call: the logged curve must not
        writer.add_video("v", jnp.linspace(0, 1, 2 * 3 * 4 * 5).reshape(1, 2, 3, 4, 5), 4, fps=8)
    # the encoder and a writer thread may each start an item: which starts first is theirs to race
    assert sorted(tag for tag, _ in deferred_conversions.values()) == ["p", "scalar weight", "v"]
    assert all(thread != "MainThread" for _, thread in deferred_conversions.values())
    run = upstream_read(tmp_path)["runs"]["."]
    (step, _, curve), = run["tensors"]["p"]
    tp, fp = [7, 7, 4, 3, 0], [1.5, 0.5, 0, 0, 0]  # weighted counts at or above each threshold, by hand
    expected = [tp, fp, [0, 1, 1.5, 1.5, 1.5], [0, 0, 3, 4, 7], [7 / 8.5, 7 / 7.5, 1, 1, 0], [1, 1, 4 / 7, 3 / 7, 0]]
    assert step == 3 and np.allclose(as_array(curve), expected)
    (_, _, weighted), = run["tensors"]["scalar weight"]
    assert as_array(weighted)[:4, 0].tolist() == [2.0, 2.0, 0.0, 0.0]  # TP, FP, TN, FN at threshold 0
    assert run["images"]["v"][0][:3] == [4, 5, 4]  # step, width, height of the GIF


def test_every_failed_value_is_raised_in_turn_and_close_counts_them(tmp_path, monkeypatch):
    writer = tensorboard.SummaryWriter(tmp_path)
    try:
        raised = []
        # a flush that raises a pending failure returns without waiting: flush until one returns
        for call in [lambda: writer.add_histogram("bad1", jnp.asarray([jnp.nan]), 0),
                     lambda: writer.add_histogram("bad2", jnp.asarray([jnp.inf]), 0),
                     lambda: writer.add_histogram("bad3", jnp.asarray([jnp.inf]), 0), *[writer.flush] * 4,
                     *[lambda step=step: writer.add_scalar("x", float(step), step) for step in range(4)]]:
            try:
                call()
            except DeferredValueError as err:
                raised.append(err.tag)
        assert raised == ["bad1", "bad2", "bad3"]  # none is dropped

        # two failures recorded before the caller's next call: that call names both. The encoder is held
        # until both are queued (else the first could fail, and be raised, at the second's add_histogram).
        gate, encode_histogram = threading.Event(), tensorboard.summary.histogram
        monkeypatch.setattr(tensorboard.summary, "histogram",
                            lambda *args, **kwargs: (gate.wait(), encode_histogram(*args, **kwargs))[1])
        writer.add_histogram("bad4", jnp.asarray([jnp.nan]), 1)
        writer.add_histogram("bad5", jnp.asarray([jnp.nan]), 1)
        gate.set()
        deferred = writer._file_writer._writer._deferred
        assert eventually(lambda: deferred.error is not None and len(deferred._backlog) == 1)
        with pytest.raises(DeferredValueError, match=r"tag 'bad4' .* \(1 more failed after it, under tags 'bad5'; "):
            writer.flush()
        with pytest.raises(DeferredValueError, match="tag 'bad5'"):
            writer.close()
        assert scalars(tmp_path, "x") == [(step, float(step)) for step in range(4)]
    finally:
        with contextlib.suppress(DeferredValueError):
            writer.close()  # a failed assertion above must not leave the writer's threads to later tests


def test_arguments_beside_a_pending_value_are_taken_at_the_call(tmp_path):
    """bins, labels and config_dict are the caller's objects: changing them after the call changes nothing."""
    with tensorboard.SummaryWriter(tmp_path / "pending") as pending, \
            tensorboard.SummaryWriter(tmp_path / "numpy") as direct:
        for writer, array in ((pending, jnp.asarray), (direct, np.asarray)):
            bins, labels = np.array([0.0, 1.0, 2.0, 3.0]), ["cat"]
            config = {"camera": {"cls": "PerspectiveCamera", "fov": 75}}
            writer.add_histogram("h", array([0.5, 1.5, 2.5]), 0, bins=bins)
            writer.add_image_with_boxes("b", array(np.full((3, 20, 20), 0.5)), array([[1.0, 1, 5, 5]]), 0,
                                        labels=labels)
            writer.add_mesh("m", array(np.ones((1, 3, 3))), config_dict=config, global_step=0)
            bins[:] = [10, 20, 30, 40]  # before the pending values are converted (close() waits for them)
            labels[:] = ["dog", "extra"]
            config["camera"]["fov"] = 10
    views = upstream_read(tmp_path)["runs"]

    def logged(run):  # everything but wall times; the mesh config is in the plugin metadata
        view = views[run]
        tensors = {tag: [[step, value] for step, _, value in rows] for tag, rows in view["tensors"].items()}
        return view["histograms"], view["images"], tensors, view["metadata"]

    assert logged("pending") == logged("numpy")
    assert views["pending"]["histograms"]["h"][0][1]["bucket_limit"] == [1.0, 2.0, 3.0]


def test_a_held_back_value_is_written_when_the_encoder_is_done(tmp_path, monkeypatch):
    """The writer thread leaves a value the background encoder has not finished at its queue's head
    and looks again every HELD_RECHECK_SECS, so the value reaches the file without a flush, not at
    flush_secs (the tail of a run)."""
    from tensorboard.reader import SummaryReader
    from tensorboard.values import background

    writer = tensorboard.SummaryWriter(str(tmp_path), flush_secs=3600, max_queue=1)
    writer.add_scalar("warm", jnp.float32(0.0), 0)  # starts the background encoder
    writer.flush()
    # an encoder that takes its time: the writer thread, woken by the add, finds the value not done
    submit = background.submit
    monkeypatch.setattr(background, "submit", lambda item: threading.Timer(0.5, submit, (item,)).start())
    writer.add_scalar("x", jnp.float32(3.0), 7)
    rows = []
    for _ in range(600):  # a hang guard of 60 s; the value is there within milliseconds
        frame = SummaryReader(tmp_path).scalars
        rows = list(zip(frame["step"], frame["value"])) if "tag" in frame else []
        if (7, 3.0) in rows:
            break
        threading.Event().wait(0.1)
    writer.close()
    assert rows == [(0, 0.0), (7, 3.0)]
    assert scalars(tmp_path, "x") == [(7, 3.0)]


def test_pending_values_respect_the_queue_bound_when_the_encoder_gets_no_cpu(tmp_path, monkeypatch):
    """With the idle-priority encoder starved, pending values must not pile up beyond max_pending_bytes:
    callers wait, as for any event, and the writer thread encodes them itself meanwhile."""
    from tensorboard.events import event_file
    from tensorboard.values import background

    monkeypatch.setattr(background, "submit", lambda item: None)  # the encoder never gets to them
    writer = tensorboard.SummaryWriter(str(tmp_path), flush_secs=3600, max_queue=10)
    inner = writer.file_writer._writer
    inner._max_pending_bytes = 50 * event_file._PER_ITEM_OVERHEAD
    longest = 0
    for step in range(500):
        writer.add_scalar("x", jnp.float32(step), step)
        longest = max(longest, len(inner._queue))
    writer.close()
    assert longest <= 70  # the bound (50 items) plus one batch of max_queue
    assert [s for s, _ in scalars(tmp_path, "x")] == list(range(500))


class _CompileLog:
    """Counts JAX's "Compiling ..." log records, by the thread that compiled."""

    def __init__(self):
        import logging

        self.records: list[tuple[str, str]] = []
        self.logger = logging.getLogger("jax")
        self.handler = logging.Handler()
        self.handler.emit = lambda record: self.records.append((record.threadName, record.getMessage()[:80])) \
            if record.getMessage().startswith("Compiling") else None

    def __enter__(self):
        self.logger.addHandler(self.handler)
        self.previous = jax.config.jax_log_compiles
        jax.config.update("jax_log_compiles", True)
        return self

    def __exit__(self, *exc_info):
        jax.config.update("jax_log_compiles", self.previous)
        self.logger.removeHandler(self.handler)


def test_a_new_shape_or_dtype_compiles_nothing_in_the_callers_thread(tmp_path):
    """The snapshot of a JAX value is a buffer copy, not a jitted function: nothing is compiled per
    shape or dtype in the caller's thread (a compile there is what stalled the first call)."""
    values = [jnp.arange(float(n)).reshape(shape) for n, shape in ((6, (6,)), (12, (3, 4)), (24, (2, 3, 4)))]
    values += [jnp.arange(7, dtype=jnp.int32), jnp.ones(5, jnp.bfloat16), jnp.float16(2.0) * jnp.ones(())]
    image, clip = jnp.full((3, 4, 5), 0.5, jnp.float32), jnp.zeros((2, 40), jnp.float32)
    for value in [*values, image, clip]:  # made (and their makers compiled) before logging starts
        value.block_until_ready()
    with tensorboard.SummaryWriter(tmp_path) as writer, _CompileLog() as log:
        writer.add_scalar("first", values[-1], 0)
        for index, value in enumerate(values):
            writer.add_histogram(f"h{index}", value, 1)
        writer.add_scalars("pair", {"a": values[-1]}, 2)
        writer.add_image("img", image, 3)
        writer.add_audio("clip", clip, 4, 8000)
        caller = threading.current_thread().name
        compiled_here = [message for thread, message in log.records if thread == caller]
    assert compiled_here == []
    run = upstream_read(tmp_path)["runs"]["."]
    assert [run["histograms"][f"h{i}"][0][1]["num"] for i in range(len(values))] == [6, 12, 24, 7, 5, 1]
    assert scalars(tmp_path, "first") == [(0, 2.0)]


def test_donated_and_updated_buffers_log_their_value_at_the_call(tmp_path):
    step = jax.jit(lambda w: w * 0 - 1, donate_argnums=0)
    slow = jax.jit(lambda w: jnp.tanh(w @ w.T / 64.0).sum(axis=1) * 0 + w.sum(axis=1))
    base = jnp.ones((256, 256), jnp.float32)
    with tensorboard.SummaryWriter(tmp_path) as writer:
        for index in range(3):
            weights = slow(base * (index + 1))  # still computing at the call
            writer.add_histogram("w", weights, index)
            writer.add_scalar("sum", weights.sum(), index)
            step(weights)  # donates the buffer: it is reused or freed at once
            assert weights.is_deleted()
    run = upstream_read(tmp_path)["runs"]["."]
    assert [(s, h["min"], h["max"], h["num"]) for s, h in run["histograms"]["w"]] == \
        [(i, 256.0 * (i + 1), 256.0 * (i + 1), 256) for i in range(3)]
    assert scalars(tmp_path, "sum") == [(i, 65536.0 * (i + 1)) for i in range(3)]


FIRST_CALL_PROBE = """
import abc, collections.abc, sys
import jax.numpy as jnp
import tensorboard
pending = jnp.arange(4.0) * 2.0  # a JAX value, as the training loop hands it over
writer = tensorboard.SummaryWriter(sys.argv[1])  # loads now what a first snapshot would load
before = set(sys.modules)
writer.add_scalar("loss", pending[1], 0)
writer.add_histogram("h", pending, 0)
loaded = sorted(set(sys.modules) - before)
negative_cache = abc._get_dump(collections.abc.Mapping)[2]
checked = any(ref() is type(pending) for ref in negative_cache)
writer.close()
print(loaded, checked)
"""


def test_the_first_add_of_a_jax_value_loads_no_module_and_runs_no_abc_check(tmp_path):
    """The first add_* of a JAX value does none of the one-off work that stalled it (no wall clock:
    counted): no module is imported at the call (JAX's device_put loads one on its first use, so the
    writer loads it when it is created), and no ABC check walks the registered Mappings for the new type."""
    out = subprocess.run([sys.executable, "-c", FIRST_CALL_PROBE, str(tmp_path)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "False"]
    assert scalars(tmp_path, "loss") == [(0, 2.0)]
