"""The two fetch paths of s3:// logdirs, s3fs and obstore (tensorboard.logdir.fetch_obstore), on moto's S3
app on 127.0.0.1: the same frames, the same bytes from an offset of a file that grew, the same error for an
object deleted between the listing and its fetch; obstore's settings taken from s3fs's storage options
and the AWS variables, and an option it cannot take refused by name."""
import os

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")
pytest.importorskip("obstore")

from reader.slow_s3 import slow_s3  # noqa: E402
from reader.sweep_logs import local_sweep  # noqa: E402

from tensorboard.events.storage import storage_for  # noqa: E402
from tensorboard.logdir import fetch, fetch_obstore  # noqa: E402
from tensorboard.reader import SummaryReader  # noqa: E402

KINDS = ("scalars", "histograms", "tensors", "text", "hparams", "images", "audio")
AWS = ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION",
       "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3", "AWS_PROFILE")


@pytest.fixture(scope="module")
def s3(tmp_path_factory):
    import s3fs

    root = local_sweep(tmp_path_factory.mktemp("paths") / "logs")
    with slow_s3() as server:
        server.create_bucket("paths")
        server.fs = s3fs.S3FileSystem(**server.storage_options())
        server.fs.put(root + "/", "paths/exp/", recursive=True)
        yield server


@pytest.fixture
def no_aws(monkeypatch):
    """None of the AWS variables: what a test gives is all there is."""
    for name in AWS:
        monkeypatch.delenv(name, raising=False)


def _on(path: str, monkeypatch, read):
    monkeypatch.setenv("TB_OBJECT_STORE", path)
    return read()


def test_both_paths_read_the_same_frames(s3, monkeypatch):
    def frames():
        reader = SummaryReader("s3://paths/exp", storage_options=s3.storage_options(),
                               extra_columns={"dir_name", "file_name", "wall_time"})
        return {kind: reader.get_events(kind).astype(str) for kind in KINDS}

    s3.meter.reset()
    through_s3fs = _on("fsspec", monkeypatch, frames)
    assert set(s3.meter.clients) == {"botocore"}
    s3.meter.reset()
    through_obstore = _on("obstore", monkeypatch, frames)
    assert set(s3.meter.clients) == {"object_store"}
    for kind in KINDS:
        assert through_obstore[kind].equals(through_s3fs[kind]), kind
    assert len(through_obstore["scalars"]) and len(through_obstore["histograms"])


def test_a_grown_file_read_from_an_offset_gives_the_same_bytes(s3, monkeypatch):
    first, more = b"0123456789" * 50, b"abcdefghij" * 70
    s3.fs.pipe_file("paths/grow/events.out.tfevents.1.a", first)
    s3.fs.pipe_file("paths/grow/events.out.tfevents.1.b", b"whole object")
    s3.fs.pipe_file("paths/grow/events.out.tfevents.1.a", first + more)  # re-uploaded, longer, as our writer does
    files = [fetch.ObjectFile("s3://paths/grow/events.out.tfevents.1.a", len(first + more), len(first) - 16),
             fetch.ObjectFile("s3://paths/grow/events.out.tfevents.1.b", 12)]

    def fetched():
        storage = storage_for("s3://paths/grow", **s3.storage_options())
        assert fetch.list_files(storage, "s3://paths/grow") == {f.url: f.size for f in files}
        return [data for batch in fetch.fetch_batches(storage, files) for _, data in batch]

    expected = [(first + more)[len(first) - 16:], b"whole object"]
    assert _on("fsspec", monkeypatch, fetched) == expected
    assert _on("obstore", monkeypatch, fetched) == expected


def _b_deleted_after_the_listing(s3, read):
    """read(storage, files) of runs a, b and c of s3://paths/gone, b's object deleted after the listing."""
    storage = storage_for("s3://paths/gone", **s3.storage_options())
    listed = fetch.list_files(storage, "s3://paths/gone")
    s3.fs.rm_file("paths/gone/b/events.out.tfevents.1.x")
    try:
        return read(storage, [fetch.ObjectFile(url, size) for url, size in sorted(listed.items())])
    finally:
        s3.fs.pipe_file("paths/gone/b/events.out.tfevents.1.x", b"b" * 10)


def test_an_object_deleted_after_the_listing_is_the_same_error(s3, monkeypatch):
    """fetch_batches raises it; the planner asked to return errors (what serving's object-store roots and
    configuration files read through) hands it with that file, the others with their bytes."""
    from tensorboard.logdir import planner

    for name in ("a", "b", "c"):
        s3.fs.pipe_file(f"paths/gone/{name}/events.out.tfevents.1.x", name.encode() * 10)

    def error(storage, files):
        with pytest.raises(FileNotFoundError) as caught:
            list(fetch.fetch_batches(storage, files))
        return str(caught.value)

    def returned(storage, files):
        return [(f.url.split("/")[-2], data if isinstance(data, bytes) else type(data).__name__)
                for batch in planner.batches(storage, files, on_error="return") for f, data in batch]

    message = "s3://paths/gone/b/events.out.tfevents.1.x: listed, then gone before it was read"
    expected = [("a", b"a" * 10), ("b", "FileNotFoundError"), ("c", b"c" * 10)]
    for path in ("fsspec", "obstore"):
        assert _on(path, monkeypatch, lambda: _b_deleted_after_the_listing(s3, error)) == message
        assert _on(path, monkeypatch, lambda: _b_deleted_after_the_listing(s3, returned)) == expected


def test_configuration_files_read_the_same_from_s3_on_both_paths_as_from_a_local_disk(s3, monkeypatch, tmp_path):
    from tensorboard.logdir.config_files import MAX_CONFIG_BYTES, ConfigError
    from tensorboard.logdir.discovery import list_runs
    from tensorboard.logdir.hparams_sources import read_config_bytes

    files = {"small/hparams.yaml": b"lr: 0.1\n", "large/hparams.yaml": b"#" * (MAX_CONFIG_BYTES + 1),
             "edge/params.json": b" " * (MAX_CONFIG_BYTES - 2) + b"{}", "gone/hparams.yaml": b"lr: 0.2\n"}
    for name, data in files.items():
        s3.fs.pipe_file(f"paths/configs/{name}", data)
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)

    def read(root: str, sep: str):
        """What each file gave, "gone" deleted after the listing; an error as its kind (the words of an OS's
        error and a store's differ)."""
        remote = root.startswith("s3://")
        listing = list_runs(root, s3.storage_options() if remote else None)
        (s3.fs.rm_file("paths/configs/gone/hparams.yaml") if remote else (tmp_path / "gone/hparams.yaml").unlink())
        try:
            got = read_config_bytes(listing, [root + sep + name.replace("/", sep) for name in sorted(files)])
        finally:
            (s3.fs.pipe_file("paths/configs/gone/hparams.yaml", files["gone/hparams.yaml"]) if remote
             else (tmp_path / "gone/hparams.yaml").write_bytes(files["gone/hparams.yaml"]))
        return [(str(value).split(": ", 1)[-1].split(":")[0] if isinstance(value, ConfigError) else value)
                for _, value in sorted(got.items())]

    local = read(str(tmp_path), os.sep)
    assert local == [files["edge/params.json"], "unreadable", f"larger than {MAX_CONFIG_BYTES} bytes; not read",
                     files["small/hparams.yaml"]]
    assert _on("fsspec", monkeypatch, lambda: read("s3://paths/configs", "/")) == local
    assert _on("obstore", monkeypatch, lambda: read("s3://paths/configs", "/")) == local


def test_a_missing_bucket_or_path_is_not_found_on_both_paths(s3, monkeypatch):
    from tensorboard.reader._summary_reader import LogPathNotFoundError

    for path in ("fsspec", "obstore"):
        monkeypatch.setenv("TB_OBJECT_STORE", path)
        for url in ("s3://paths/nothing", "s3://no-such-bucket/x"):
            with pytest.raises(LogPathNotFoundError, match="not found"):
                SummaryReader(url, storage_options=s3.storage_options())


def test_requests_are_signed_with_the_credentials_given(s3, monkeypatch, no_aws):
    monkeypatch.setenv("TB_OBJECT_STORE", "obstore")
    endpoint = {"client_kwargs": {"endpoint_url": s3.endpoint}}
    given = {"key": "AKIDOPTIONS", "secret": "s", "token": "option-token", **endpoint}
    monkeypatch.setenv("AWS_SESSION_TOKEN", "env-token")  # not mixed with keys given as options (as botocore)
    for options, signer in ((given, ("AKIDOPTIONS", "option-token")),
                            ({"key": "AKIDNOTOKEN", "secret": "s", **endpoint}, ("AKIDNOTOKEN", None))):
        s3.meter.reset()
        SummaryReader("s3://paths/exp", storage_options=options).scalars
        assert dict(s3.meter.signers) == {signer: sum(s3.meter.clients.values())}
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDENVIRONMENT")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "s")
    monkeypatch.setenv("AWS_ENDPOINT_URL_S3", s3.endpoint)
    s3.meter.reset()
    SummaryReader("s3://paths/exp").scalars  # endpoint and credentials from the environment alone
    assert set(s3.meter.signers) == {("AKIDENVIRONMENT", "env-token")}
    s3.meter.reset()
    try:  # moto refuses some anonymous reads of objects that are not public, as s3fs's are refused
        SummaryReader("s3://paths/exp", storage_options={"anon": True}).scalars
    except PermissionError:
        pass
    assert set(s3.meter.signers) == {(None, None)} and s3.meter.clients["object_store"]


def test_settings_come_from_s3fs_options_then_the_environment():
    settings = fetch_obstore.s3_settings(
        {"key": "k", "secret": "s", "token": "t", "skip_instance_cache": True, "profile": "p",
         "client_kwargs": {"endpoint_url": "http://127.0.0.1:9000", "region_name": "eu-west-3", "verify": False},
         "config_kwargs": {"max_pool_connections": 64, "connect_timeout": 2, "retries": {"max_attempts": 3},
                           "s3": {"addressing_style": "path"}}},
        env={"AWS_ACCESS_KEY_ID": "env", "AWS_SECRET_ACCESS_KEY": "env", "AWS_REGION": "us-west-2",
             "AWS_ENDPOINT_URL_S3": "http://elsewhere"})
    assert settings["credentials"] == ("k", "s", "t") and settings["region"] == "eu-west-3"
    assert settings["config"] == {"endpoint": "http://127.0.0.1:9000", "aws_endpoint_url_s3": "http://127.0.0.1:9000",
                                  "virtual_hosted_style_request": False}
    assert settings["client_options"]["allow_http"] and settings["client_options"]["allow_invalid_certificates"]
    assert settings["client_options"]["connect_timeout"].total_seconds() == 2
    assert settings["retry_config"] == {"max_retries": 2} and settings["profile"] == "p"
    env = {"AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_SESSION_TOKEN": "c",
           "AWS_DEFAULT_REGION": "ap-south-1", "AWS_ENDPOINT_URL": "https://minio.example:9000"}
    from_env = fetch_obstore.s3_settings({"requester_pays": True}, env=env)
    assert from_env["credentials"] == ("a", "b", "c") and from_env["region"] == "ap-south-1"
    assert from_env["config"]["endpoint"] == "https://minio.example:9000" and from_env["config"]["request_payer"]
    assert "allow_http" not in from_env["client_options"]
    nothing = fetch_obstore.s3_settings({}, env={})
    assert nothing["credentials"] is None and nothing["region"] is None and "endpoint" not in nothing["config"]
    assert fetch_obstore.s3_settings({"anon": True}, env={})["config"]["skip_signature"]


@pytest.mark.parametrize("options, named", [
    ({"session": object()}, "session"),
    ({"s3_additional_kwargs": {"ServerSideEncryption": "AES256"}}, "s3_additional_kwargs"),
    ({"client_kwargs": {"proxies": {"https": "http://proxy"}}}, "client_kwargs['proxies']"),
    ({"config_kwargs": {"read_timeout": 5}}, "config_kwargs['read_timeout']"),
    ({"config_kwargs": {"signature_version": "s3"}}, "signature_version"),
    ({"use_ssl": False}, "use_ssl=False"),
    ({"endpoint_url": "http://h", "config_kwargs": {"s3": {"addressing_style": "virtual"}}}, "addressing_style"),
])
def test_an_option_obstore_cannot_take_is_refused_by_name(options, named):
    with pytest.raises(ValueError, match="storage option .*TB_OBJECT_STORE=fsspec") as caught:
        fetch_obstore.s3_settings(options, env={})
    assert named in str(caught.value)
    with pytest.raises(ValueError, match="key without its secret"):
        fetch_obstore.s3_settings({"key": "k"}, env={})


def test_the_switch_and_each_paths_default_concurrency(s3, monkeypatch):
    monkeypatch.setenv("TB_OBJECT_STORE", "fsspec")
    assert fetch_obstore.fetcher_for("s3", {}) is None
    s3_storage = storage_for("s3://paths/exp", **s3.storage_options())
    assert fetch.default_concurrency(s3_storage) == fetch.FSSPEC_CONCURRENCY == 64
    assert fetch.default_ahead(s3_storage) == fetch.FSSPEC_BATCHES_AHEAD == 1
    monkeypatch.setenv("TB_OBJECT_STORE", "obstore")
    assert fetch.default_concurrency(s3_storage) == fetch.OBSTORE_CONCURRENCY == 256
    assert fetch.default_ahead(s3_storage) == fetch.OBSTORE_BATCHES_AHEAD == 2  # two batches of 128 in flight
    assert fetch.default_concurrency(storage_for("memory://x")) == 64
    for value in ("obstore", "auto", ""):
        monkeypatch.setenv("TB_OBJECT_STORE", value)
        assert fetch_obstore.wanted("s3") and fetch_obstore.wanted("s3a") and not fetch_obstore.wanted("gs")
    assert fetch.object_fetcher(storage_for("memory://x")) is None
    monkeypatch.setenv("TB_OBJECT_STORE", "rust")
    with pytest.raises(ValueError, match="TB_OBJECT_STORE='rust'"):
        fetch_obstore.wanted("s3")


def test_a_bucket_region_is_read_from_the_answer_to_a_head(s3):
    host = s3.endpoint.split("://", 1)[1]
    assert fetch_obstore.bucket_region("paths", host=host, secure=False) == "us-east-1"
    assert fetch_obstore.bucket_region("unreachable", host="127.0.0.1:1", secure=False) is None
    assert os.environ.get("TB_OBJECT_STORE") in (None, "", "auto", "fsspec", "obstore")


def test_an_obstore_older_than_the_api_used_leaves_the_read_to_s3fs(monkeypatch):
    import obstore

    from tensorboard.logdir import fetch_obstore

    monkeypatch.setattr(obstore, "__version__", "0.11.1", raising=False)
    monkeypatch.delenv("TB_OBJECT_STORE", raising=False)
    assert not fetch_obstore.wanted("s3")
    monkeypatch.setenv("TB_OBJECT_STORE", "obstore")
    with pytest.raises(ImportError, match="obstore 0.12 or newer, not 0.11.1"):
        fetch_obstore.wanted("s3")
