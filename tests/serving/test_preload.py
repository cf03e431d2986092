"""The first read of a local logdir in preload workers (tensorboard.serving.preload) serves exactly what a
server reading the logdir itself serves, as upstream's loader serves it; any mismatch or failure falls
back to the server's own read; and the launcher preloads only where our reader will serve with the
parameters a worker reads with."""
from __future__ import annotations

import os

import numpy as np
import pytest
from test_provider import _event, _header, assert_same, ours, upstream

from tensorboard.logdir.selection import CLI_FLAGS, Selection
from tensorboard.serving import preload
from tensorboard.serving.ingester import size_guidance
from tensorboard.serving.provider import StandaloneDataProvider
from tensorboard.serving.served_logdir import Logdir


@pytest.fixture(autouse=True)
def no_pending():
    yield
    preload.cancel_pending()


def _logdir(root, runs=30):
    from tensorboard import SummaryWriter

    rng = np.random.default_rng(1)
    for r in range(runs):
        with SummaryWriter(str(root / f"run_{r:03d}" / ("sub" if r % 7 == 0 else ""))) as w:
            for step in range(40 + r):
                w.add_scalar("loss", float(rng.normal()), step)
                w.add_scalar("acc", float(rng.random()), step)
            if r % 5 == 0:
                w.add_histogram("h", rng.normal(size=30), 0)
                w.add_text("t", f"run {r}", 0)
                w.add_image("img", rng.random((3, 4, 4)), 0)


def preloaded(root, workers=1, sizes=None, selection=None, purge=True):
    """A Logdir and its provider whose first reload adopts a preload of `root`."""
    default_sizes, default = size_guidance(None)
    work = preload.Preload(str(root), purge, selection, workers=workers)
    store = Logdir({str(root): None}, sizes or default_sizes, default, purge_orphaned_data=purge,
                   selection=selection, preload=work)
    store.reload()
    return store, StandaloneDataProvider(store, str(root))


@pytest.mark.parametrize("workers", [1, 2])
def test_a_preloaded_logdir_serves_what_upstream_serves(tmp_path, workers):
    _logdir(tmp_path)
    store, provider = preloaded(tmp_path, workers)
    assert len(store.runs()) == 30
    assert assert_same(provider, upstream(tmp_path)[1]) >= 5


def test_after_the_preload_only_appended_records_are_read(tmp_path):
    (tmp_path / "a").mkdir()
    path = tmp_path / "a" / "events.out.tfevents.1.host"
    path.write_bytes(_header() + b"".join(_event(s, loss=float(s)) for s in range(50)))
    store, provider = preloaded(tmp_path)
    with open(path, "ab") as f:
        f.write(b"".join(_event(s, loss=float(s)) for s in range(50, 80)))
    store.reload()
    assert assert_same(provider, upstream(tmp_path)[1]) == 1
    assert [d.step for d in provider.read_scalars(None, experiment_id="e", plugin_name="scalars",
                                                  downsample=1000)["a"]["loss"]] == list(range(80))


def test_a_preload_read_with_other_sizes_is_not_used(tmp_path):
    _logdir(tmp_path, runs=6)
    sizes, _ = size_guidance({"scalars": 5})
    store, provider = preloaded(tmp_path, sizes=sizes)
    theirs = ours(tmp_path)[0]
    assert set(store.runs()) == set(theirs.runs())
    kept = provider.read_scalars(None, experiment_id="e", plugin_name="scalars", downsample=1000)
    assert all(len(points) <= 5 for tags in kept.values() for points in tags.values())


def test_a_failed_worker_leaves_its_chunks_to_the_server(tmp_path, monkeypatch):
    _logdir(tmp_path, runs=6)
    server = os.getpid()
    original = Logdir.read_part
    sent = []

    def failing(self, part):  # in the worker: the first chunk is read and sent, the second fails
        if os.getpid() != server:
            sent.append(part)
            if len(sent) > 1:
                raise OSError("disk went away")
        return original(self, part)

    monkeypatch.setattr(Logdir, "read_part", failing)
    default_sizes, default = size_guidance(None)
    work = preload.Preload(str(tmp_path), workers=1, per_chunk=1)
    work._threads[0].join(timeout=60)  # the worker has failed: the server claims and reads the rest
    store = Logdir({str(tmp_path): None}, default_sizes, default, preload=work)
    store.reload()
    assert list(store.runs()) == list(ours(tmp_path)[0].runs())
    assert assert_same(StandaloneDataProvider(store, str(tmp_path)), upstream(tmp_path)[1]) >= 2


def test_a_selection_preloads_only_the_selected_runs(tmp_path):
    _logdir(tmp_path, runs=12)
    selection = Selection.of("run_00", exclude="run_003", flags=CLI_FLAGS)
    store, _ = preloaded(tmp_path, selection=selection)
    assert sorted(store.runs()) == ["run_000/sub", "run_001", "run_002", "run_004", "run_005", "run_006",
                                    "run_007/sub", "run_008", "run_009"]


@pytest.mark.parametrize("args,started", [
    (["--logdir", "{d}"], True),  # auto: our reader serves local logdirs
    (["--logdir", "{d}", "--load_fast=false"], True),
    (["--logdir", "{d}", "--exclude", "x"], True),  # the run flags serve through our reader
    (["--logdir={d}", "--data_provider=standalone", "--runs", "a"], True),
    (["--logdir", "{d}", "--data_provider", "native"], False),
    (["--logdir", "{d}", "--load_fast=true"], False),
    (["--logdir", "{d}", "--samples_per_plugin", "scalars=10"], False),
    (["--logdir", "{d}", "--purge_orphaned_data=false"], False),
    (["--logdir_spec", "a:{d}"], False),
    (["--logdir", "s3://bucket/logs"], False),
    (["--logdir", "{d}/missing"], False),
    (["--logdir", "{d}", "--runs", "("], False),  # the server refuses the regex, naming the flag
    (["--logdir", "{d}", "--grpc_data_provider", "localhost:1"], False),
])
def test_the_launcher_preloads_where_our_reader_serves_with_the_workers_parameters(tmp_path, args, started):
    preload.start_for([a.format(d=tmp_path) for a in args])
    work = preload.take_pending(str(tmp_path))
    assert (work is not None) == started
    if work is not None:
        work.cancel()


def test_a_preload_of_another_logdir_is_not_taken(tmp_path):
    other = tmp_path / "other"
    other.mkdir()
    preload.start(str(tmp_path))
    assert preload.take_pending(str(other)) is None
    assert preload.take_pending(str(tmp_path)) is None  # handed out once, cancelled


def test_workers_and_the_server_share_the_chunks_and_the_workers_end(tmp_path):
    _logdir(tmp_path, runs=10)
    work = preload.Preload(str(tmp_path), workers=2, per_chunk=1)
    store = Logdir({str(tmp_path): None}, *size_guidance(None))
    read_here = []

    def here(part):
        read_here.extend(part)
        return store.read_part(part)

    assert work.plan == store.plan()
    names = [name for name, *_ in work.runs(here)]
    assert sorted(names) == sorted(os.path.relpath(d, tmp_path) for d, _, files in os.walk(tmp_path)
                                   if any("tfevents" in f for f in files))
    assert len(set(names)) == len(names)  # each chunk read once, by a worker or here
    assert set(read_here) <= set(names)
    for thread in work._threads:
        thread.join(timeout=60)
    for pid in work._pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reaped


def test_runs_list_in_discovery_order_as_without_a_preload(tmp_path):
    _logdir(tmp_path, runs=25)
    assert list(preloaded(tmp_path, workers=2)[0].runs()) == list(ours(tmp_path)[0].runs())


def test_the_workers_sizes_are_upstreams_defaults():
    sizes, default = size_guidance(None)
    assert (sizes, default) == (preload.UPSTREAM_SIZES, preload.UPSTREAM_DEFAULT_SIZE)


def test_garbage_collection_is_back_once_the_runs_are_adopted_or_cancelled(tmp_path):
    import gc

    _logdir(tmp_path, runs=3)
    assert gc.isenabled()
    preloaded(tmp_path)
    assert gc.isenabled()
    work = preload.Preload(str(tmp_path))
    assert not gc.isenabled()
    work.cancel()
    assert gc.isenabled()


def test_the_first_reload_takes_a_complete_preload_as_it_is_and_the_next_reads_what_came_since(tmp_path):
    (tmp_path / "a").mkdir()
    path = tmp_path / "a" / "events.out.tfevents.1.host"
    path.write_bytes(_header() + b"".join(_event(s, loss=float(s)) for s in range(10)))
    default_sizes, default = size_guidance(None)
    work = preload.Preload(str(tmp_path), workers=1)
    work._threads[0].join(timeout=60)  # the worker has read and sent the file as it was
    with open(path, "ab") as f:
        f.write(_event(10, loss=10.0))
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "events.out.tfevents.1.host").write_bytes(_header() + _event(0, loss=0.0))
    store = Logdir({str(tmp_path): None}, default_sizes, default, preload=work)
    store.reload()
    provider = StandaloneDataProvider(store, str(tmp_path))

    def steps():
        data = provider.read_scalars(None, experiment_id="e", plugin_name="scalars", downsample=1000)
        return {run: [d.step for d in tags["loss"]] for run, tags in data.items()}

    assert steps() == {"a": list(range(10))}
    store.reload()
    assert steps() == {"a": list(range(11)), "b": [0]}
    assert assert_same(provider, upstream(tmp_path)[1]) == 2
