"""Logdirs on S3 (moto's server as the S3 API): written with s3fs, read back by our reader and by
upstream TensorBoard's own S3 reader; object rollover; an S3 that goes away mid-run."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

pytest.importorskip("s3fs")
pytest.importorskip("moto")

from tools.s3_server import s3_server  # noqa: E402
from upstream import upstream_python  # noqa: E402

import tensorboard  # noqa: E402
from tensorboard import reader
from tensorboard.events import event_file  # noqa: E402
from tensorboard.events.storage import FsspecStorage  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module")
def s3():
    with s3_server() as server:
        saved = {k: os.environ.get(k) for k in server.env}
        os.environ.update(server.env)
        try:
            server.create_bucket("runs")
            yield server
        finally:
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def upstream_s3(server, logdir: str) -> dict:
    """What upstream TensorBoard (boto3, S3_ENDPOINT) reads from `logdir`."""
    env = {**os.environ, **server.env, "PYTHONPATH": ""}
    result = subprocess.run([upstream_python(), os.path.join(REPO, "tests", "tools", "upstream_s3_dump.py"), logdir],
                            capture_output=True, text=True, timeout=300, env=env)
    if result.returncode != 0:
        raise AssertionError(f"upstream S3 reader failed:\n{result.stderr[-3000:]}")
    return json.loads(result.stdout)


def test_summary_writer_on_s3_read_by_both_readers(s3, fetch_path):  # ours on both fetch paths
    logdir = f"s3://runs/exp1-{fetch_path}"
    with tensorboard.SummaryWriter(logdir) as writer:
        for step in range(300):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_scalars("acc", {"train": 0.5, "valid": 0.25}, 7)
    ours = reader.read_scalars(logdir)
    assert [s for s, _, _ in ours["."]["loss"]] == list(range(300))
    assert set(ours) == {".", "acc/train", "acc/valid"}
    view = upstream_s3(s3, logdir)
    assert [row[0] for row in view["runs"]["."]["scalars"]["loss"]] == list(range(300))
    assert view["runs"]["acc/valid"]["scalars"]["acc"][0][0::2] == [7, 0.25]


def test_explicit_storage_options_reach_the_endpoint(s3, monkeypatch):
    for key in ("FSSPEC_S3_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"):
        monkeypatch.delenv(key, raising=False)
    logdir = "s3://runs/options"
    with tensorboard.SummaryWriter(logdir, storage_options=s3.storage_options()) as writer:
        writer.add_scalar("x", 1.0, 1)
    storage = FsspecStorage(logdir, **s3.storage_options())
    names = storage.listdir(logdir)
    assert len(names) == 1 and "tfevents" in names[0]


def test_flush_uploads_and_flush_secs_uploads_without_flush(s3):
    logdir = "s3://runs/flushing"
    writer = tensorboard.FileWriter(logdir, flush_secs=0.2, max_queue=10**6)
    from tensorboard.src import summary_pb2

    def scalar(i):
        return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="x", simple_value=float(i))])

    for i in range(10):
        writer.add_summary(scalar(i), i)
    writer.flush()
    assert [s for s, _, _ in reader.read_scalars(logdir)["."]["x"]] == list(range(10))
    writer.add_summary(scalar(10), 10)
    import time

    deadline = time.monotonic() + 30  # the writer thread uploads by itself every flush_secs
    while time.monotonic() < deadline:
        if len(reader.read_scalars(logdir)["."]["x"]) == 11:
            break
        time.sleep(0.1)
    assert len(reader.read_scalars(logdir)["."]["x"]) == 11
    writer.close()


def test_reading_while_the_writer_reuploads_a_longer_object(s3, monkeypatch):
    # Each flush replaces the object with a longer one; a reader in the middle of the old one
    # must go on into the new bytes (fsspec's ETag-pinned files raise FileExpired there). The reader
    # scans RECORD_CHUNK_BYTES at a time, so the object is several chunks long when it starts.
    from tensorboard.events.scan import RECORD_CHUNK_BYTES
    from tensorboard.events.storage import RangedObjectReader

    monkeypatch.setattr(RangedObjectReader, "block_size", 4096)  # many ranged GETs per file
    writer = tensorboard.SummaryWriter("s3://runs/growing")
    first = 4 * RECORD_CHUNK_BYTES // 20  # scalar events are ~20-30 bytes: about 3 chunks or more
    for step in range(first):
        writer.add_scalar("x", float(step), step)
    writer.flush()
    (path,) = [f"s3://runs/growing/{n}" for n in FsspecStorage("s3://runs/growing").listdir("s3://runs/growing")]
    events = iter(reader.EventFileReader(path))
    steps = [next(events).step for _ in range(20)]  # file_version + steps 0..18
    for step in range(first, first + 50):
        writer.add_scalar("x", float(step), step)
    writer.flush()
    steps += [event.step for event in events]
    writer.close()
    assert steps == [0] + list(range(first + 50))


def test_rollover_bounds_the_buffer_and_readers_see_every_event(s3):
    logdir = "s3://runs/rollover"
    n = 20_000
    with tensorboard.SummaryWriter(logdir, max_file_bytes=100_000, max_queue=100) as writer:
        for step in range(n):
            writer.add_scalar("x", float(step), step)
        file_writer = writer.file_writer._writer
    storage = FsspecStorage(logdir)
    names = storage.listdir(logdir)
    assert len(names) > 5 and names == sorted(names) and len(names) == len(file_writer.paths)
    sizes = [storage.fs.size(f"runs/rollover/{name}") for name in names]
    assert max(sizes) < 100_000 + 50_000  # each part (the memory buffer) stays near max_file_bytes
    assert [s for s, _, _ in reader.read_scalars(logdir)["."]["x"]] == list(range(n))
    view = upstream_s3(s3, logdir)
    assert [row[0] for row in view["runs"]["."]["scalars"]["x"]] == list(range(n))
    assert sum(view["runs"]["."]["files"].values()) == n + len(names)  # plus one file_version per part


def test_s3_going_away_raises_and_keeps_what_was_uploaded(s3, monkeypatch):
    logdir = "s3://runs/outage"
    writer = tensorboard.SummaryWriter(logdir)
    for step in range(100):
        writer.add_scalar("x", float(step), step)
    writer.flush()
    storage = writer.file_writer.storage
    monkeypatch.setattr(storage, "upload_backoff", 0.01)
    writer.file_writer._writer._files.file._backoff = 0.01
    # Point the writer's file system at a port nothing listens on: every upload fails.
    from waiting import free_port

    dead = FsspecStorage(logdir, key="testing", secret="testing",
                         client_kwargs={"endpoint_url": f"http://127.0.0.1:{free_port()}"},
                         config_kwargs={"retries": {"max_attempts": 1}, "connect_timeout": 1})
    writer.file_writer._writer._files.file._fs = dead.fs
    for step in range(100, 200):
        writer.add_scalar("x", float(step), step)
    with pytest.raises(IOError):
        writer.flush()
    with pytest.raises(IOError):
        writer.close()
    assert [s for s, _, _ in reader.read_scalars(logdir)["."]["x"]] == list(range(100))


def test_event_file_writer_option_checks():
    with pytest.raises(ValueError, match="on_error"):
        event_file.EventFileWriter("memory://x", on_error="ignore")
    with pytest.raises(ValueError, match="max_file_bytes"):
        event_file.EventFileWriter("memory://x", max_file_bytes=0)


def test_a_read_ends_where_a_block_comes_back_short_without_a_get_past_it(s3, monkeypatch):
    from tensorboard.events.storage import RangedObjectReader

    with tensorboard.SummaryWriter("s3://runs/short") as writer:
        for step in range(30):
            writer.add_scalar("x", float(step), step)
    storage = FsspecStorage("s3://runs/short")
    (name,) = storage.listdir("s3://runs/short")
    ranges = []
    fetch = RangedObjectReader._fetch
    monkeypatch.setattr(RangedObjectReader, "_fetch", lambda self, a, b: ranges.append((a, b)) or fetch(self, a, b))
    steps = [event.step for event in reader.EventFileReader(f"s3://runs/short/{name}")]
    assert steps == [0] + list(range(30))
    assert ranges == [(0, RangedObjectReader.block_size)]  # one GET: the block came back short, so that is the end
    monkeypatch.setattr(RangedObjectReader, "block_size", 100)  # whole blocks, then a short one
    ranges.clear()
    whole = storage.fs.cat_file(f"runs/short/{name}")
    with storage.open_read(f"s3://runs/short/{name}") as stream:  # reads smaller than a block
        assert b"".join(iter(lambda: stream.read(30), b"")) == whole
    size = storage.fs.size(f"runs/short/{name}")
    full_last = [size] if size % 100 == 0 else []  # a full last block: only a GET past it can tell
    assert [start for start, _ in ranges] == list(range(0, size, 100)) + full_last
