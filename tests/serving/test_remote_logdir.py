"""A logdir on an object store (here fsspec's in-memory one) is served as the same bytes on a local disk
are: read in pieces across reloads (records cut anywhere), new and vanished runs, and an object
re-written in place with other bytes (no inode to tell it: the bytes before the last read point do)."""
from __future__ import annotations

import uuid

import fsspec
import pytest
from test_provider import CTX, E, _event, _header, assert_same, ours

from tensorboard.serving.provider import StandaloneDataProvider
from tensorboard.serving.remote_root import RemoteRoot


def local_as(local, url: str) -> StandaloneDataProvider:
    """The local mirror's provider, named by the bucket's URL (data_location is the --logdir as given)."""
    store, _ = ours(local)
    return StandaloneDataProvider(store, url)


@pytest.fixture
def bucket():
    """A fresh memory:// prefix, removed afterwards."""
    fs = fsspec.filesystem("memory")
    prefix = "/logs-%s" % uuid.uuid4().hex
    yield fs, prefix
    if fs.exists(prefix):
        fs.rm(prefix, recursive=True)


def put(fs, path: str, data: bytes, local) -> None:
    """The same bytes in the bucket and in the local mirror directory."""
    fs.pipe_file(path, data)
    target = local / path.split("/", 2)[2]
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


@pytest.mark.parametrize("max_bytes", [RemoteRoot.max_bytes, 4096])  # 4096: most pieces streamed by ranges
def test_read_in_pieces_across_reloads_equals_the_local_read(bucket, tmp_path, monkeypatch, max_bytes):
    monkeypatch.setattr(RemoteRoot, "max_bytes", max_bytes)
    fs, prefix = bucket
    data = _header() + b"".join(_event(s, loss=float(s), acc=s / 7.0) for s in range(1100))
    path = prefix + "/run/events.out.tfevents.1.grow"
    store, provider = ours("memory://" + prefix)
    for hi in (5, 1000, 1001, 30000, 30017, len(data)):  # inside headers, records and payloads
        put(fs, path, data[:hi], tmp_path)  # an object store re-uploads the whole, longer object
        store.reload()
    assert assert_same(provider, local_as(tmp_path, "memory://" + prefix)) == 2


def test_new_vanished_and_rewritten_runs(bucket, tmp_path):
    fs, prefix = bucket
    for name in ("a", "b"):
        put(fs, "%s/%s/events.out.tfevents.1.x" % (prefix, name), _header() + _event(1, x=1.0), tmp_path)
    store, provider = ours("memory://" + prefix)
    put(fs, prefix + "/c/events.out.tfevents.1.x", _header() + _event(5, y=5.0), tmp_path)
    fs.rm(prefix + "/b", recursive=True)
    (tmp_path / "b" / "events.out.tfevents.1.x").unlink()
    (tmp_path / "b").rmdir()
    store.reload()
    assert sorted(r.run_name for r in provider.list_runs(CTX, experiment_id=E)) == ["a", "c"]
    # the same object written anew, longer, with other records: read again from its start
    put(fs, prefix + "/a/events.out.tfevents.1.x", _header() + _event(7, x=7.0) + _event(8, x=8.0), tmp_path)
    store.reload()
    steps = provider.read_scalars(CTX, experiment_id=E, plugin_name="scalars", downsample=100)["a"]["x"]
    assert [(d.step, d.value) for d in steps] == [(7, 7.0), (8, 8.0)]
    assert assert_same(provider, local_as(tmp_path, "memory://" + prefix)) == 2
