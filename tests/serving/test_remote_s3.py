"""An s3:// logdir served through each fetch path (s3fs, obstore) answers as the same bytes on a local disk:
an object that grows between reloads is read by ranges from where the last read stopped, and an object
deleted between a reload's listing and its fetch is skipped until the next reload, its run kept as it was;
configuration files on the store are served as the runs' hparams and --where filters by them.
moto's S3 app on 127.0.0.1, endpoint and credentials from the AWS variables, as the server takes them."""
from __future__ import annotations

import logging

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")

from reader.slow_s3 import slow_s3  # noqa: E402
from test_provider import CTX, E, _event, _header, assert_same, ours  # noqa: E402

from tensorboard.serving.provider import StandaloneDataProvider  # noqa: E402
from tensorboard.serving.remote_root import RemoteRoot  # noqa: E402

pytestmark = pytest.mark.usefixtures("fetch_path")  # each test on both fetch paths (tests/conftest.py)
BUCKET = "served"


@pytest.fixture(scope="module")
def server():
    with slow_s3() as s3:
        s3.create_bucket(BUCKET)
        yield s3


@pytest.fixture
def s3(server, monkeypatch, request):
    """The server, the AWS variables pointing at it, and a prefix of its own for the test."""
    import s3fs

    for name, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                        ("AWS_REGION", "us-east-1"), ("AWS_ENDPOINT_URL_S3", server.endpoint)):
        monkeypatch.setenv(name, value)
    s3fs.S3FileSystem.clear_instance_cache()  # an instance cached for another server's endpoint
    server.prefix = "%s/%s" % (BUCKET, request.node.name.replace("[", "-").rstrip("]"))
    server.fs = s3fs.S3FileSystem(**server.storage_options())  # skip_instance_cache: its listings are fresh
    return server


def put(s3, name: str, data: bytes, local) -> None:
    """The same bytes in the bucket and in the local mirror directory."""
    s3.fs.pipe_file("%s/%s" % (s3.prefix, name), data)
    target = local / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


def local_as(local, url: str) -> StandaloneDataProvider:
    store, _ = ours(local)
    return StandaloneDataProvider(store, url)


def test_a_growing_object_is_read_by_ranges_and_served_as_on_disk(s3, tmp_path, fetch_path):
    data = _header() + b"".join(_event(s, loss=float(s), acc=s / 7.0) for s in range(600))
    url = "s3://" + s3.prefix
    put(s3, "other/events.out.tfevents.1.x", _header() + _event(1, x=1.0), tmp_path)
    store = None
    for hi in (5, 1000, 1001, 9000, len(data)):  # inside headers, records and payloads
        put(s3, "run/events.out.tfevents.1.grow", data[:hi], tmp_path)  # re-uploaded whole, longer
        s3.meter.reset()
        if store is None:
            store, provider = ours(url)
        else:
            store.reload()
        assert assert_same(provider, local_as(tmp_path, url)) >= 1
        assert set(s3.meter.clients) == {"object_store" if fetch_path == "obstore" else "botocore"}


def test_an_object_deleted_after_the_listing_is_skipped_until_the_next_reload(s3, tmp_path, caplog):
    url = "s3://" + s3.prefix
    for run in ("a", "b"):
        put(s3, "%s/events.out.tfevents.1.x" % run, _header() + _event(1, x=1.0), tmp_path)
    store, provider = ours(url)
    for run in ("a", "b"):  # both grow; b is deleted between the listing and the fetch
        put(s3, "%s/events.out.tfevents.1.x" % run, _header() + _event(1, x=1.0) + _event(2, x=2.0), tmp_path)
    listing = RemoteRoot.run_files

    def list_then_delete(self):
        found = listing(self)
        s3.fs.rm_file("%s/b/events.out.tfevents.1.x" % s3.prefix)
        return found

    with pytest.MonkeyPatch.context() as patch, caplog.at_level(logging.WARNING, "tensorboard.serving"):
        patch.setattr(RemoteRoot, "run_files", list_then_delete)
        store.reload()
    assert "b/events.out.tfevents.1.x" in caplog.text and "tried again at the next reload" in caplog.text

    def steps(run):
        read = provider.read_scalars(CTX, experiment_id=E, plugin_name="scalars", downsample=100)
        return [d.step for d in read[run]["x"]]

    assert steps("a") == [1, 2] and steps("b") == [1]  # b keeps what it showed
    store.reload()  # listed again: gone
    assert sorted(r.run_name for r in provider.list_runs(CTX, experiment_id=E)) == ["a"]


def test_configuration_files_on_the_store_are_served_as_hparams_and_filter_runs(s3, tmp_path):
    from tensorboard.logdir.query import parse_query
    from tensorboard.plugins.hparams import plugin_data_pb2
    from tensorboard.serving.ingester import size_guidance
    from tensorboard.serving.served_hparams import SESSION_START_INFO_TAG, HParamsFlags, ServedHParams
    from tensorboard.serving.served_logdir import Logdir

    url = "s3://" + s3.prefix
    for run in ("sweep/lr=0.1,seed=1", "sweep/lr=0.01,seed=2"):
        put(s3, f"{run}/events.out.tfevents.1.x", _header() + _event(1, loss=1.0), tmp_path)
    put(s3, "sweep/lr=0.01,seed=2/hparams.yaml", b"optimizer: adam\nmodel:\n  width: 64\n", tmp_path)
    served = ServedHParams(HParamsFlags(where=parse_query('optimizer == "adam"', "--where")))
    sizes, default = size_guidance(None)
    logdir = Logdir({url: None}, sizes, default, after_reload=served.update, loaded_after_it=True)
    logdir.reload()
    provider = StandaloneDataProvider(logdir, url, served)
    assert [run.run_name for run in provider.list_runs(CTX, experiment_id="")] == ["sweep/lr=0.01,seed=2"]
    content = served.contents("sweep/lr=0.01,seed=2")[SESSION_START_INFO_TAG]
    start = plugin_data_pb2.HParamsPluginData.FromString(content).session_start_info
    assert {key: value.WhichOneof("kind") and getattr(value, value.WhichOneof("kind"))
            for key, value in start.hparams.items()} == {"lr": 0.01, "seed": 2.0, "optimizer": "adam",
                                                         "model.width": 64.0}
