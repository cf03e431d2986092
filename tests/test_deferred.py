"""add_* with JAX arrays and MXNet NDArrays returns without waiting: the value is snapshotted at the
call and converted in the writer thread. The logged value is the value at the call; order, flush,
close and errors keep their guarantees. Everything is read back by upstream's reader."""
from __future__ import annotations

import json
import os
import sys
import textwrap
import threading

import numpy as np
import pytest

import tensorboard
from tensorboard import _deferred
from tensorboard._deferred import DeferredValueError
from upstream import upstream_read

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
        assert writer._writer._snapshots_in - writer._writer._snapshots_out <= 1000
    sw.close()
    hist = upstream_read(tmp_path)["runs"]["."]["histograms"]["h"]
    assert [s for s, _ in hist] == list(range(30)) and hist[-1][1]["min"] == 29.0


MXNET_SCRIPT = textwrap.dedent("""
    import json, sys
    import mxnet as mx
    import tensorboard
    from tensorboard import _deferred

    logdir = sys.argv[1]
    x = mx.nd.array([1.0])
    w = mx.nd.ones((4, 4))
    with tensorboard.SummaryWriter(logdir) as writer:
        kind = _deferred.framework_of(x)
        for step in range(3):
            writer.add_scalar("x", x, step)
            writer.add_histogram("w", w, step)
            writer.add_scalars("acc", {"train": x}, step)  # MXBoard's multi-line chart, same snapshot rule
            x += 10  # in place, after the call: must not change what was logged
            w[:] = w * 2
    print(json.dumps({"kind": kind}))
""")


def test_mxnet_in_place_updates_after_the_call_do_not_change_the_logged_value(tmp_path):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).parent / "seeds"))
    from mxnet_venv import run_mxnet

    script = tmp_path / "mx.py"
    script.write_text(MXNET_SCRIPT)
    result = run_mxnet([str(script), str(tmp_path / "logs")], tmp_path)
    assert '"kind": "mxnet"' in result.stdout
    runs = upstream_read(tmp_path / "logs")["runs"]
    assert [(s, v) for s, _, v in runs["."]["scalars"]["x"]] == [(0, 1.0), (1, 11.0), (2, 21.0)]
    assert [h["sum"] for _, h in runs["."]["histograms"]["w"]] == [16.0, 32.0, 64.0]
    assert [(s, v) for s, _, v in runs["acc/train"]["scalars"]["acc"]] == [(0, 1.0), (1, 11.0), (2, 21.0)]


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
        with pytest.raises(TypeError, match=r"^tag_scalar_dict\['b'\]: expected a single number, got an array of shape \(2,\)"):
            writer.add_scalars("m", {"a": jnp.float32(1.0), "b": jnp.ones(2)}, 0)
        writer.add_scalars("m", {"a": jnp.float32(2.0)}, 1)
    assert scalars(tmp_path, "m", "m/a") == [(1, 2.0)]  # the refused call logged nothing
