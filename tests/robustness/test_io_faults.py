"""I/O faults: full disk, file size limit, unwritable and deleted directories, a failing object store.

In every case the caller gets a clear error at its next add/flush/close (on_error="raise") or a
warning and a count of dropped events (on_error="warn"); the writer never hangs; no corrupt
record is ever written; what was flushed before the fault stays readable by both readers.
"""
from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import threading
import warnings

import pytest
import rb_helpers as h
from upstream import CLASSIC, upstream_read

import tensorboard
from tensorboard import reader
from tensorboard.events import _files, event_file
from tensorboard.events.storage import FsspecStorage

NOBODY = 65534


def bounded(fn, timeout: float = 120):
    """Runs fn() in a thread and fails if it has not returned after `timeout` seconds (a hang)."""
    result: dict = {}

    def target():
        try:
            result["value"] = fn()
        except BaseException as err:  # handed to the test
            result["error"] = err

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(timeout)
    assert not thread.is_alive(), f"{fn} hung for {timeout} s"
    if "error" in result:
        raise result["error"]
    return result.get("value")


def errno_in_chain(err: BaseException) -> int | None:
    while err is not None:
        if isinstance(err, OSError) and err.errno:
            return err.errno
        err = err.__cause__
    return None


def assert_clean(logdir, flushed: int, tag: str = "x") -> list[int]:
    """Every file below logdir reads without corruption or torn tail; steps 0..flushed-1 all there."""
    for path in h.event_files(logdir):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a truncated tail would warn: a failed write must leave none
            list(reader.read_events(path))
    steps = h.our_steps(logdir, tag)
    assert steps[:flushed] == list(range(flushed))
    return steps


@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs (needs root and mount permission)."""
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    result = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount_point)],
                            capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({result.stderr.strip()}); the RLIMIT_FSIZE test covers this")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], check=False)


def write_until_error(writer, start: int = 0, limit: int = 10**6, flush_every: int = 100):
    """add_scalar + periodic flush until an error; (events flushed, the error)."""
    flushed = start
    for i in range(start, limit):
        try:
            writer.add_scalar("x", float(i), i)
            if (i + 1) % flush_every == 0:
                writer.flush()
                flushed = i + 1
        except Exception as err:
            return flushed, err
    raise AssertionError("no error before the limit")


def test_full_disk_raises_and_keeps_flushed_events(small_disk):
    logdir = small_disk / "run"
    writer = tensorboard.SummaryWriter(logdir, max_queue=50)
    flushed, err = bounded(lambda: write_until_error(writer))
    assert isinstance(err, IOError) and errno_in_chain(err) == errno.ENOSPC, repr(err)
    assert "No space left" in str(err)
    with pytest.raises(IOError):  # stays failed: every later call says so
        writer.add_scalar("x", 0.0, 0)
    with pytest.raises(IOError):
        bounded(writer.close)
    steps = assert_clean(logdir, flushed)
    assert flushed > 10_000  # ~1 MiB of ~40-byte records
    assert h.upstream_steps(upstream_read(logdir, CLASSIC)) == steps


def test_full_disk_warn_mode_drops_counts_and_recovers(small_disk, monkeypatch):
    monkeypatch.setattr(_files, "RETRY_FIRST", 0.05)
    filler = small_disk / "filler"
    filler.write_bytes(b"\0" * (1024 * 1024 - 64 * 1024))  # leaves ~64 KiB
    logdir = small_disk / "run"
    writer = tensorboard.SummaryWriter(logdir, max_queue=50, on_error="warn")
    file_writer = writer.file_writer._writer
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        step = 0
        while file_writer.dropped_events == 0 and step < 10**6:  # fills the disk; never raises
            writer.add_scalar("x", float(step), step)
            step += 1
            if step % 100 == 0:
                bounded(writer.flush)
        assert file_writer.dropped_events > 0
        filler.unlink()  # space comes back
        threading.Event().wait(0.1)  # past the retry time
        for later in range(step, step + 2000):
            writer.add_scalar("x", float(later), later)
            if later % 100 == 0:
                bounded(writer.flush)
        bounded(writer.close)
    messages = [str(w.message) for w in caught if issubclass(w.category, event_file.EventWriteWarning)]
    assert any("failed" in m and "No space left" in m for m in messages), messages
    assert any("works again" in m for m in messages), messages
    steps = assert_clean(logdir, 0)
    assert len(steps) + file_writer.dropped_events == step + 2000  # every event written or counted
    assert writer.file_writer is None  # after close, as tensorboardX and torch
    assert writer.dropped_events == writer._file_writer.dropped_events == file_writer.dropped_events
    assert steps[-1] == step + 1999
    assert h.upstream_steps(upstream_read(logdir, CLASSIC)) == steps


FSIZE_CHILD = """
    import errno, json, resource, signal, sys
    import tensorboard
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel kills us; now writes fail with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
    w = tensorboard.SummaryWriter(sys.argv[1], max_queue=30)
    flushed = 0
    try:
        for i in range(10**6):
            w.add_scalar("x", float(i), i)
            if (i + 1) % 100 == 0:
                w.flush()
                flushed = i + 1
    except OSError as err:
        cause = err.__cause__
        print(json.dumps({"flushed": flushed, "errno": getattr(cause, "errno", None), "message": str(err)}))
    try:
        w.close()
    except OSError:
        pass
"""


def child_outcome(script: str, logdir) -> dict:
    """Runs `script` with `logdir` as its argument; the JSON it prints last."""
    result = subprocess.run([h.sys.executable, "-c", h.textwrap.dedent(script), str(logdir)], env=h.child_env(),
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_file_size_limit_raises_efbig_and_keeps_flushed_events(tmp_path):
    outcome = child_outcome(FSIZE_CHILD, tmp_path)
    assert outcome["errno"] == errno.EFBIG, outcome
    (path,) = h.event_files(tmp_path)
    assert os.path.getsize(path) <= 200_000
    steps = assert_clean(tmp_path, outcome["flushed"])
    assert outcome["flushed"] > 1000
    assert h.upstream_steps(upstream_read(tmp_path, CLASSIC)) == steps


FSIZE_WARN_CHILD = """
    import json, resource, signal, sys, warnings
    import tensorboard
    from tensorboard.events import _files
    _files.RETRY_FIRST = 0.01
    warnings.simplefilter("ignore")
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, 200_000))
    w = tensorboard.SummaryWriter(sys.argv[1], max_queue=30, on_error="warn")
    inner = w.file_writer._writer
    for i in range(20_000):
        w.add_scalar("x", float(i), i)
        if (i + 1) % 100 == 0:
            w.flush()
    w.close()
    print(json.dumps({"logged": 20_000, "dropped": inner.dropped_events}))
"""


def test_file_size_limit_warn_mode_counts_every_event_it_cannot_write(tmp_path):
    outcome = child_outcome(FSIZE_WARN_CHILD, tmp_path)
    steps = assert_clean(tmp_path, 0)
    assert outcome["dropped"] > 0 and len(steps) + outcome["dropped"] == outcome["logged"]
    assert h.upstream_steps(upstream_read(tmp_path, CLASSIC)) == steps


UNPRIVILEGED_CHILD = """
    import json, os, sys, time, warnings
    # before dropping privileges: the interpreter lives under /root
    import tensorboard, tensorboard.writer, tensorboard.distributed, tensorboard.values.convert
    from tensorboard.events import _files
    os.setgid(65534)
    os.setuid(65534)  # root bypasses permissions: act as nobody
    logdir, mode = sys.argv[1], sys.argv[2]
    if mode == "raise":
        try:
            tensorboard.SummaryWriter(logdir)
        except PermissionError as err:
            print(json.dumps({"error": type(err).__name__, "filename": err.filename}))
        sys.exit(0)
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        _files.RETRY_FIRST = 0.05
        w = tensorboard.SummaryWriter(logdir, on_error="warn")
        for i in range(100):
            w.add_scalar("x", float(i), i)
        w.flush()
        dropped = w.file_writer._writer.dropped_events
        print("waiting", flush=True)
        sys.stdin.readline()  # the parent makes the directory writable
        time.sleep(0.1)
        for i in range(100, 200):
            w.add_scalar("x", float(i), i)
        w.close()
    print(json.dumps({"dropped_before": dropped, "dropped": w.file_writer._writer.dropped_events if
                      w.file_writer else None, "warnings": [str(c.message) for c in caught]}))
"""


@pytest.fixture
def traversable_tmp():
    """A temporary directory an unprivileged user can reach (pytest's tmp_path is root-only)."""
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp(prefix="tb-robustness-"))
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


def test_unwritable_directory_raises_permission_error(traversable_tmp):
    logdir = traversable_tmp / "locked"
    logdir.mkdir(mode=0o755)
    result = subprocess.run([h.sys.executable, "-c", h.textwrap.dedent(UNPRIVILEGED_CHILD), str(logdir), "raise"],
                            env=h.child_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    outcome = json.loads(result.stdout)
    assert outcome["error"] == "PermissionError" and str(logdir) in outcome["filename"]


def test_unwritable_directory_warn_mode_retries_opening(traversable_tmp):
    logdir = traversable_tmp / "locked"
    logdir.mkdir(mode=0o755)
    proc = subprocess.Popen([h.sys.executable, "-u", "-c", h.textwrap.dedent(UNPRIVILEGED_CHILD), str(logdir),
                             "warn"], env=h.child_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "waiting", proc.stderr.read()
        os.chmod(logdir, 0o777)
        out, err = proc.communicate("go\n", timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    outcome = json.loads(out.strip().splitlines()[-1])
    assert outcome["dropped_before"] == 100
    assert any("Permission denied" in w for w in outcome["warnings"]), outcome
    assert any("works again" in w for w in outcome["warnings"]), outcome
    steps = assert_clean(logdir, 0)
    assert steps == list(range(100, 200))
    assert h.upstream_steps(upstream_read(logdir, CLASSIC)) == steps


def test_deleted_directory_raises_at_flush(tmp_path):
    logdir = tmp_path / "run"
    writer = tensorboard.SummaryWriter(logdir)
    writer.add_scalar("x", 1.0, 1)
    writer.flush()
    shutil.rmtree(logdir)
    writer.add_scalar("x", 2.0, 2)
    with pytest.raises(IOError, match="deleted") as info:
        bounded(writer.flush)
    assert errno_in_chain(info.value) == errno.ENOENT
    with pytest.raises(IOError):
        writer.add_scalar("x", 3.0, 3)
    with pytest.raises(IOError):
        writer.close()


def test_deleted_directory_warn_mode_starts_a_new_file(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "RETRY_FIRST", 0.05)
    logdir = tmp_path / "run"
    writer = tensorboard.SummaryWriter(logdir, on_error="warn")
    writer.add_scalar("x", 0.0, 0)
    writer.flush()
    shutil.rmtree(logdir)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.flush()  # finds the file deleted and starts a new one at once, in the re-created directory
        for i in range(1, 50):
            writer.add_scalar("x", float(i), i)
        writer.close()
    messages = [str(w.message) for w in caught if issubclass(w.category, event_file.EventWriteWarning)]
    assert "deleted" in messages[0] and "works again" in messages[1] and len(messages) == 2, messages
    steps = assert_clean(logdir, 0)
    assert steps == list(range(1, 50))  # the deleted file's flushed events went with the directory
    assert h.upstream_steps(upstream_read(logdir, CLASSIC)) == steps


def logged_after_deletion(logdir, recreate: bool, flush_between: bool, events: int = 500):
    """Step 0 flushed, the logdir deleted (and re-created), `events` more logged, closed: (steps read, dropped)."""
    writer = tensorboard.SummaryWriter(logdir, on_error="warn")
    writer.add_scalar("x", 0.0, 0)
    writer.flush()
    shutil.rmtree(logdir)
    if recreate:
        os.makedirs(logdir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", event_file.EventWriteWarning)
        for i in range(1, events + 1):
            writer.add_scalar("x", float(i), i)
            if flush_between and i == events // 2:
                writer.flush()
        dropped = writer.file_writer._writer.dropped_events
        bounded(writer.close)
    return assert_clean(logdir, 0), dropped + writer._file_writer.dropped_events - dropped


@pytest.mark.parametrize("recreate", [False, True], ids=["deleted", "deleted-and-recreated"])
@pytest.mark.parametrize("flush_between", [False, True], ids=["close-only", "flush-then-close"])
def test_events_written_to_a_deleted_file_are_written_again(tmp_path, recreate, flush_between):
    """Events handed to a file after its last good flush went with its directory: the writer keeps them
    (bounded: the name is checked every CONFIRM_BYTES) and writes them again to the new file."""
    logdir = tmp_path / "run"
    steps, dropped = logged_after_deletion(logdir, recreate, flush_between)
    assert steps == list(range(1, 501)) and dropped == 0
    assert h.upstream_steps(upstream_read(logdir, CLASSIC)) == steps


def test_a_deletion_between_flushes_is_found_by_the_periodic_name_check(tmp_path, monkeypatch):
    monkeypatch.setattr(_files, "CONFIRM_BYTES", 2000)  # ~50 scalar records
    logdir = tmp_path / "run"
    writer = tensorboard.SummaryWriter(logdir, on_error="warn", max_queue=10)
    writer.add_scalar("x", 0.0, 0)
    writer.flush()
    shutil.rmtree(logdir)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", event_file.EventWriteWarning)
        for i in range(1, 3001):
            writer.add_scalar("x", float(i), i)
        threading.Event().wait(0.05)
        first = writer.file_writer._writer
        paths = list(first.paths)
        bounded(writer.close)
    assert len(paths) >= 2  # a new file was started before close()
    assert assert_clean(logdir, 0) == list(range(1, 3001)) and first.dropped_events == 0


def test_close_counts_what_it_cannot_write_anywhere(tmp_path):
    """The logdir is deleted and a plain file put at its path: close()'s last attempt fails, so the
    unflushed events are counted as dropped (none is on disk)."""
    logdir = tmp_path / "run"
    writer = tensorboard.SummaryWriter(logdir, on_error="warn")
    writer.add_scalar("x", 0.0, 0)
    writer.flush()
    shutil.rmtree(logdir)
    logdir.write_bytes(b"not a directory")
    file_writer = writer.file_writer._writer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", event_file.EventWriteWarning)
        for i in range(1, 501):
            writer.add_scalar("x", float(i), i)
        bounded(writer.close)
    assert file_writer.dropped_events == 500


def test_a_constructor_that_fails_leaves_no_empty_file(small_disk):
    filler = small_disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT)
    try:  # fill the disk completely
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError as err:
        assert err.errno == errno.ENOSPC
    finally:
        os.close(fd)
    logdir = small_disk / "run"
    logdir.mkdir()
    with pytest.raises(OSError):
        tensorboard.SummaryWriter(logdir)
    assert list(logdir.iterdir()) == []


# -- object stores ---------------------------------------------------------------------------------

class FlakyStore:
    """Wraps an fsspec file system: the next `failures` uploads raise ConnectionError."""

    def __init__(self, fs):
        self.fs = fs
        self.failures = 0
        self.attempts = 0
        self._real = fs.pipe_file

    def pipe_file(self, path, data, **kwargs):
        self.attempts += 1
        if self.failures:
            self.failures -= 1
            raise ConnectionError("simulated S3 outage")
        return self._real(path, data, **kwargs)


@pytest.fixture
def flaky_memory(monkeypatch, request):
    storage = FsspecStorage(f"memory://flaky-{request.node.name}")
    storage.upload_backoff = 0.01
    flaky = FlakyStore(storage.fs)
    monkeypatch.setattr(storage.fs, "pipe_file", flaky.pipe_file)
    yield storage, flaky
    storage.fs.rm(f"/flaky-{request.node.name}", recursive=True)


def memory_steps(storage, url) -> list[int]:
    return [e.step for p in sorted(storage.fs.ls(url, detail=False)) if "tfevents" in p
            for e in reader.EventFileReader("memory://" + p.lstrip("/"), storage) if e.HasField("summary")]


def test_remote_upload_is_retried_with_backoff(flaky_memory):
    storage, flaky = flaky_memory
    url = "/flaky-test_remote_upload_is_retried_with_backoff"
    writer = event_file.EventFileWriter("memory:/" + url, storage=storage)
    for i in range(100):
        writer.write(h_scalar(i))
    flaky.failures = 2  # two failures, then the third attempt works
    writer.flush()
    writer.close()
    assert memory_steps(storage, url) == list(range(100))
    assert flaky.attempts >= 3


def test_remote_outage_raises_after_retries_and_keeps_uploaded_events(flaky_memory):
    storage, flaky = flaky_memory
    url = "/flaky-test_remote_outage_raises_after_retries_and_keeps_uploaded_events"
    writer = event_file.EventFileWriter("memory:/" + url, storage=storage)
    for i in range(50):
        writer.write(h_scalar(i))
    writer.flush()
    flaky.failures = 10**9  # a long outage
    for i in range(50, 100):
        writer.write(h_scalar(i))
    with pytest.raises(IOError, match="simulated S3 outage"):
        bounded(writer.flush)
    with pytest.raises(IOError):
        writer.write(h_scalar(100))
    with pytest.raises(IOError):
        bounded(writer.close)
    assert memory_steps(storage, url) == list(range(50))  # what was flushed is intact


def test_remote_outage_warn_mode_keeps_buffer_and_loses_nothing(flaky_memory, monkeypatch):
    monkeypatch.setattr(_files, "RETRY_FIRST", 0.05)
    storage, flaky = flaky_memory
    url = "/flaky-test_remote_outage_warn_mode_keeps_buffer_and_loses_nothing"
    writer = event_file.EventFileWriter("memory:/" + url, storage=storage, on_error="warn")
    flaky.failures = 8  # two whole flushes (1 + 3 retries each) fail
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for i in range(100):
            writer.write(h_scalar(i))
            if i % 10 == 9:
                bounded(writer.flush)
                threading.Event().wait(0.06)
        bounded(writer.close)
    messages = [str(w.message) for w in caught]
    assert any("simulated S3 outage" in m for m in messages) and any("works again" in m for m in messages)
    assert writer.dropped_events == 0
    assert memory_steps(storage, url) == list(range(100))


def test_remote_close_during_an_outage_counts_exactly_what_was_not_uploaded(flaky_memory, monkeypatch):
    monkeypatch.setattr(_files, "RETRY_FIRST", 0.05)
    storage, flaky = flaky_memory
    url = "/flaky-test_remote_close_during_an_outage_counts_exactly_what_was_not_uploaded"
    writer = event_file.EventFileWriter("memory:/" + url, storage=storage, on_error="warn")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", event_file.EventWriteWarning)
        for i in range(60):
            writer.write(h_scalar(i))
        bounded(writer.flush)  # 60 uploaded
        flaky.failures = 10**9
        for i in range(60, 100):
            writer.write(h_scalar(i))
        bounded(writer.close)
    assert memory_steps(storage, url) == list(range(60))
    assert writer.dropped_events == 40


def h_scalar(i: int) -> bytes:
    from tensorboard.events import wire

    return wire.scalar_event(wire.scalar_prefix("x"), float(i), i, 1000.0 + i)
