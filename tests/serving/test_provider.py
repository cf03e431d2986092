"""StandaloneDataProvider, in process, against upstream's MultiplexerDataProvider on the same logdir:
every list_*/read_* answer and every blob equal, through restarts that purge, samples past the
reservoir sizes, files read in pieces across reloads, and runs that vanish or are re-created."""
from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

from tensorboard import context
from tensorboard.backend.event_processing import data_ingester, data_provider, plugin_event_multiplexer
from tensorboard.events.record import frame
from tensorboard.logdir import decode_many
from tensorboard.serving.ingester import size_guidance
from tensorboard.serving.provider import StandaloneDataProvider
from tensorboard.serving.served_logdir import Logdir
from tensorboard.src import event_pb2

CTX = context.RequestContext()
E = "exp"
LEGACY_PLUGINS = ("scalars", "histograms", "images", "audio")  # the plugins upstream migrates legacy values to


@pytest.fixture(autouse=True, params=["batched", "file by file"])
def reading(request, monkeypatch):
    """Every test twice: small files read together (the default) and each file read on its own (what a
    file with more than decode_many.DECODE_GROUP_BYTES new bytes gets)."""
    if request.param == "file by file":
        monkeypatch.setattr(decode_many, "DECODE_GROUP_BYTES", -1)
    return request.param


def ours(logdir) -> tuple[Logdir, StandaloneDataProvider]:
    sizes, default = size_guidance(None)
    store = Logdir({str(logdir): None}, sizes, default)
    store.reload()
    return store, StandaloneDataProvider(store, str(logdir))


def upstream(logdir):
    mux = plugin_event_multiplexer.EventMultiplexer(
        size_guidance=data_ingester.DEFAULT_SIZE_GUIDANCE,
        tensor_size_guidance=dict(data_ingester.DEFAULT_TENSOR_SIZE_GUIDANCE))
    mux.AddRunsFromDirectory(str(logdir))
    mux.Reload()
    return mux, data_provider.MultiplexerDataProvider(mux, str(logdir))


def _plain(value):
    """Provider answers as comparable values (TensorDatum holds arrays)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if hasattr(value, "numpy") and hasattr(value, "step"):
        array = value.numpy
        return value.step, value.wall_time, array.dtype.str, array.shape, array.tolist()
    return value


def as_the_file_names(plugin: str, listing: dict) -> dict:
    """Upstream's listing with the display names the file holds: its Python loader names a legacy value
    (plain scalar, image, audio clip, histogram) the file names not after its tag; ours leaves it unnamed, as
    the native data server does."""
    if plugin not in LEGACY_PLUGINS:
        return listing
    out: dict = {}
    for run, tags in listing.items():
        for tag, series in tags.items():
            if series.display_name == tag:
                fields = {name: getattr(series, name) for name in inspect.signature(type(series)).parameters}
                series = type(series)(**{**fields, "display_name": ""})
            out.setdefault(run, {})[tag] = series
    return out


def assert_same(a: StandaloneDataProvider, b) -> int:
    """Every answer of `a` equals `b`'s; returns how many series were compared."""
    by_name = lambda runs: sorted(runs, key=lambda r: r.run_name)  # noqa: E731  (order: discovery order)
    assert by_name(a.list_runs(CTX, experiment_id=E)) == by_name(b.list_runs(CTX, experiment_id=E))
    assert a.list_plugins(CTX, experiment_id=E) == set(b.list_plugins(CTX, experiment_id=E))
    assert a.experiment_metadata(CTX, experiment_id=E) == b.experiment_metadata(CTX, experiment_id=E)
    compared = 0
    for plugin in sorted(b.list_plugins(CTX, experiment_id=E)):
        for kind in ("scalars", "tensors", "blob_sequences"):
            listed = getattr(b, "list_" + kind)(CTX, experiment_id=E, plugin_name=plugin)
            assert getattr(a, "list_" + kind)(CTX, experiment_id=E, plugin_name=plugin) == \
                as_the_file_names(plugin, listed)
            compared += sum(len(tags) for tags in listed.values())
            for downsample in (10000, 7, 1, 0):
                args = dict(experiment_id=E, plugin_name=plugin, downsample=downsample)
                theirs = getattr(b, "read_" + kind)(CTX, **args)
                assert _plain(getattr(a, "read_" + kind)(CTX, **args)) == _plain(theirs), (plugin, kind, downsample)
                if kind == "blob_sequences":
                    for tags in theirs.values():
                        for data in tags.values():
                            for datum in data:
                                for ref in datum.values:
                                    assert a.read_blob(CTX, blob_key=ref.blob_key) == \
                                        b.read_blob(CTX, blob_key=ref.blob_key)
        assert a.read_last_scalars(CTX, experiment_id=E, plugin_name=plugin) == \
            b.read_last_scalars(CTX, experiment_id=E, plugin_name=plugin)
    return compared


def _event(step, wall=None, **fields) -> bytes:
    event = event_pb2.Event(step=step, wall_time=1000.0 + step if wall is None else wall)
    for tag, value in fields.items():
        event.summary.value.add(tag=tag, simple_value=value)
    return frame(event.SerializeToString())


def _header(version="brain.Event:2") -> bytes:
    return frame(event_pb2.Event(wall_time=999.0, file_version=version).SerializeToString())


def _start(step) -> bytes:
    return frame(event_pb2.Event(wall_time=1000.0 + step, step=step,
                                 session_log=event_pb2.SessionLog(status=event_pb2.SessionLog.START)).SerializeToString())


def test_every_kind_our_writer_logs_reads_back_as_upstream_serves_it(tmp_path):
    from tensorboard import SummaryWriter

    rng = np.random.default_rng(0)
    with SummaryWriter(str(tmp_path / "run")) as w:
        for step in range(1500):  # past the 1,000 scalars kept: the reservoir's draws must match
            w.add_scalar("loss", float(rng.normal()), step)
        for step in range(14):
            w.add_image("img", rng.random((3, 4, 5)), step)
            w.add_histogram("h", rng.normal(size=40), step)
            w.add_text("t", "text %d" % step, step)
        w.add_pr_curve("pr", rng.integers(0, 2, 20), rng.random(20), 0)
        w.add_hparams({"lr": 0.1}, {"m": 1.0})
    assert assert_same(ours(tmp_path)[1], upstream(tmp_path)[1]) >= 6


def test_restarts_purge_as_upstream_purges(tmp_path):
    (tmp_path / "v1").mkdir()
    (tmp_path / "v2").mkdir()
    old = [_event(s, a=float(s), b=-float(s)) for s in range(300)] + [_event(s, a=7.0) for s in range(100, 160)]
    (tmp_path / "v1" / "events.out.tfevents.1.old").write_bytes(b"".join(old))
    new = [_header(), _start(0)] + [_event(s, a=float(s)) for s in range(200)] + [_start(120)] + \
        [_event(s, a=5.0) for s in range(120, 300)]
    (tmp_path / "v2" / "events.out.tfevents.1.new").write_bytes(b"".join(new))
    a, b = ours(tmp_path)[1], upstream(tmp_path)[1]
    assert assert_same(a, b) == 3
    kept = a.read_scalars(CTX, experiment_id=E, plugin_name="scalars", downsample=10000)
    assert [d.step for d in kept["v1"]["a"]][-61:-59] == [99, 100]  # steps 100.. of the first pass are gone


def test_reading_in_pieces_across_reloads_equals_one_read(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    records = [_header()] + [_event(s, loss=float(s), acc=s / 7.0) for s in range(1100)]
    data = b"".join(records)
    path = run / "events.out.tfevents.1.grow"
    store, provider = ours(tmp_path)
    cuts = [0, 5, 1000, 1001, 30000, 30017, len(data)]  # inside headers, records and payloads
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        with open(path, "ab") as f:
            f.write(data[lo:hi])
        store.reload()
    assert assert_same(provider, upstream(tmp_path)[1]) == 2
    assert assert_same(provider, ours(tmp_path)[1]) == 2


def test_a_second_file_new_runs_vanished_runs_and_replaced_files(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "events.out.tfevents.1.x").write_bytes(_header() + _event(1, x=1.0))
    store, provider = ours(tmp_path)
    (tmp_path / "a" / "events.out.tfevents.2.x").write_bytes(_header() + _event(2, x=2.0))
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "events.out.tfevents.1.x").write_bytes(_header() + _event(5, y=5.0))
    os.remove(tmp_path / "b" / "events.out.tfevents.1.x")
    store.reload()
    assert sorted(r.run_name for r in provider.list_runs(CTX, experiment_id=E)) == ["a", "c"]
    assert assert_same(provider, upstream(tmp_path)[1]) == 2
    replaced = tmp_path / "a" / "events.out.tfevents.1.x"  # re-created: another file, other content
    os.remove(replaced)
    replaced.write_bytes(_header() + _event(9, x=9.0) + _event(10, x=10.0))
    store.reload()
    steps = provider.read_scalars(CTX, experiment_id=E, plugin_name="scalars", downsample=100)["a"]["x"]
    assert [d.step for d in steps] == [9, 10, 2]
    assert assert_same(provider, ours(tmp_path)[1]) == 2


def test_a_damaged_file_serves_the_records_before_the_damage(tmp_path):
    (tmp_path / "run").mkdir()
    data = bytearray(_header() + b"".join(_event(s, v=float(s)) for s in range(100)))
    data[len(data) // 2] ^= 0x55
    (tmp_path / "run" / "events.out.tfevents.1.x").write_bytes(bytes(data))
    provider = ours(tmp_path)[1]
    served = provider.read_scalars(CTX, experiment_id=E, plugin_name="scalars", downsample=1000)["run"]["v"]
    assert 0 < len(served) < 100 and [d.step for d in served] == list(range(len(served)))


def test_no_python_object_per_event_is_kept(tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "events.out.tfevents.1.x").write_bytes(
        _header() + b"".join(_event(s, v=float(s)) for s in range(5000)))
    store, _ = ours(tmp_path)
    series = store.runs()["run"].series["v"]
    assert series.n == 1000 and series.blobs == []
    assert all(isinstance(c, np.ndarray) for c in (series.steps, series.walls, series.values))


def test_downsample_must_be_an_int(tmp_path):
    provider = ours(tmp_path)[1]
    with pytest.raises(TypeError, match="downsample"):
        provider.read_scalars(CTX, experiment_id=E, plugin_name="scalars", downsample=None)
