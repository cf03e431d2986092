"""Crash safety: what flush() returned for survives SIGKILL; SIGTERM, Ctrl-C, uncaught exceptions and
normal exit write what was queued. Every file is read back with our reader and upstream's."""
from __future__ import annotations

import os
import random
import select
import signal
import time

import pytest
import rb_helpers as h
from upstream import CLASSIC, upstream_read

import tensorboard
from tensorboard.events import _signals, scan
from tensorboard.src import summary_pb2

KILLS = 12  # SIGKILLs at random moments (each child runs well under a second)

KILL_CHILD = """
    import sys, time
    import tensorboard
    from tensorboard.src import summary_pb2
    logdir, every, big_every = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    w = tensorboard.SummaryWriter(logdir, flush_secs=3600, max_queue=7)
    big = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="blob", metadata=summary_pb2.SummaryMetadata(
        summary_description="y" * 100_000))])
    i = 0
    while True:
        w.add_scalar("x", float(i), i)
        i += 1
        if i % big_every == 0:
            w.add_summary(big, i)  # large records make a kill inside a write() likelier
        if i % every == 0:
            w.flush()
            print(i, flush=True)
        if i % 25 == 0:
            time.sleep(0.001)  # keeps each run a few thousand events, so upstream reads them quickly
"""


def _kill_once(logdir, rng: random.Random) -> tuple[int, int]:
    """Runs a child, SIGKILLs it at a random moment; (events flushed before the kill, scalar events found)."""
    every, big_every = rng.choice([1, 5, 50, 500]), rng.choice([50, 200, 1000])
    import subprocess
    import sys
    import textwrap

    proc = subprocess.Popen([sys.executable, "-u", "-c", textwrap.dedent(KILL_CHILD), str(logdir), str(every),
                             str(big_every)], env=h.child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        # Wait for the first flush (bounded), then let it run a random while and kill it.
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "child never flushed"
        time.sleep(rng.uniform(0.0, 0.3))
        proc.kill()
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL, err
    lines = out.split()
    flushed = int(lines[-1]) if lines else 0
    if lines and not out.endswith(b"\n"):  # the kill cut the last number short: it may not be complete
        flushed = int(lines[-2]) if len(lines) > 1 else 0
    steps = h.our_steps(logdir)
    return flushed, steps


def test_sigkill_at_random_moments_loses_nothing_flushed(tmp_path):
    rng = random.Random(20240605)
    totals = {"flushed": 0, "recovered": 0, "torn_tails": 0}
    for k in range(KILLS):
        logdir = tmp_path / f"kill{k:02d}"
        flushed, steps = _kill_once(logdir, rng)
        assert flushed > 0
        # Every event flushed before the kill is there, in order, intact; later ones may be too.
        assert steps[:flushed] == list(range(flushed)), (k, flushed, steps[:10])
        assert steps == list(range(len(steps)))
        for path in h.event_files(logdir):
            _, truncated_at = h.our_event_count(path)
            totals["torn_tails"] += truncated_at is not None
        totals["flushed"] += flushed
        totals["recovered"] += len(steps)
    # Upstream's reader, in one call over all the killed runs, agrees event for event.
    view = upstream_read(tmp_path, CLASSIC)
    for k in range(KILLS):
        run = f"kill{k:02d}"
        assert h.upstream_steps(view, run) == h.our_steps(tmp_path / run)
    assert totals["recovered"] >= totals["flushed"]
    print(f"\nSIGKILL: {KILLS} kills, {totals['flushed']} events flushed before the kills, "
          f"{totals['recovered']} recovered, {totals['torn_tails']} torn tails skipped")


def test_every_torn_tail_is_skipped_by_both_readers(tmp_path):
    """A kill inside a write leaves a partial last record: cut the file at every offset of it."""
    source = tmp_path / "source"
    with tensorboard.FileWriter(source) as writer:
        for i in range(5):
            writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="x", simple_value=i)]), i)
        path = writer.path
    data = open(path, "rb").read()
    last = list(scan.read_records(open(path, "rb")))[-1].offset
    cuts = sorted(set(range(last + 1, len(data))))
    for cut in cuts:
        run = tmp_path / "cuts" / f"c{cut:05d}"
        run.mkdir(parents=True)
        (run / os.path.basename(path)).write_bytes(data[:cut])
        count, truncated_at = h.our_event_count(run / os.path.basename(path))
        assert count == 5 and truncated_at == last  # file_version + steps 0..3
        assert h.our_steps(run) == [0, 1, 2, 3]
    view = upstream_read(tmp_path / "cuts", CLASSIC)
    for cut in cuts:
        assert h.upstream_steps(view, f"c{cut:05d}") == [0, 1, 2, 3]


def test_fsync_on_flush_runs(tmp_path, monkeypatch):
    calls = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real_fsync(fd))[1])
    writer = tensorboard.SummaryWriter(tmp_path, fsync=True)
    writer.add_scalar("x", 1.0, 0)
    writer.flush()
    after_flush = len(calls)
    writer.add_scalar("x", 2.0, 1)
    writer.close()
    assert after_flush >= 2  # the file_version header, then the flush
    assert len(calls) > after_flush  # close flushes (and fsyncs) too
    assert h.our_steps(tmp_path) == [0, 1]


def test_no_fsync_unless_asked(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(fd))
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_scalar("x", 1.0, 0)
        writer.flush()
    assert calls == []


QUEUED_CHILD = """
    import os, signal, sys, threading, time
    import tensorboard
    signal.signal(signal.SIGINT, signal.default_int_handler)  # a foreground script's Ctrl-C, even when a
    mode = sys.argv[2]                                        # background shell started us with SIGINT ignored
    signal.signal(signal.SIGHUP, signal.SIG_DFL)  # a terminal's hang-up, even when started under nohup
    if mode == "own-handler":
        signal.signal(signal.SIGTERM, lambda *a: (print("own handler", flush=True), os._exit(7)))
    w = tensorboard.SummaryWriter(sys.argv[1], flush_secs=3600, max_queue=10**6)
    for i in range(5000):
        w.add_scalar("x", float(i), i)
    from tensorboard.events import _signals
    print("installed" if _signals.installed() else "not-installed", flush=True)
    if mode == "exception":
        raise RuntimeError("training blew up")
    if mode == "exit":
        sys.exit(0)
    if mode == "keyboard":
        os.kill(os.getpid(), signal.SIGINT)
    time.sleep(60)  # waits for the parent's signal
"""


@pytest.mark.parametrize("mode, signum, returncode, installed", [
    ("sigterm", signal.SIGTERM, -signal.SIGTERM, "installed"),
    ("sighup", signal.SIGHUP, -signal.SIGHUP, "installed"),  # a closed terminal or dropped ssh session
    ("sigint", signal.SIGINT, -signal.SIGINT, "installed"),  # KeyboardInterrupt unwinds; atexit writes
    ("keyboard", None, -signal.SIGINT, "installed"),
    ("exception", None, 1, "installed"),
    ("exit", None, 0, "installed"),
])
def test_queued_events_survive_termination(tmp_path, mode, signum, returncode, installed):
    import subprocess
    import sys
    import textwrap

    proc = subprocess.Popen([sys.executable, "-u", "-c", textwrap.dedent(QUEUED_CHILD), str(tmp_path), mode],
                            env=h.child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        first = proc.stdout.readline().strip()
        assert first == installed, proc.stderr.read() if proc.poll() is not None else first
        if signum is not None:
            proc.send_signal(signum)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == returncode, err
    assert h.our_steps(tmp_path) == list(range(5000))
    assert h.upstream_steps(upstream_read(tmp_path, CLASSIC)) == list(range(5000))


INTERRUPTED_CHILD = """
import os, signal, sys, time
import tensorboard
from tensorboard.values import deferred as _deferred
w = tensorboard.SummaryWriter(sys.argv[1], flush_secs=3600, max_queue=10**6)
def fails():
    raise ValueError("cannot convert")
w.file_writer.add_deferred(_deferred.Deferred(fails, 0, "bad"))  # its error is recorded during the flush
for i in range(100):
    w.add_scalar("x", float(i), i)
inner = w.file_writer._writer
inner._deferred._error_lock.acquire()  # as inside DeferredWrites.take_error, raising an earlier value's error
# The state SIGTERM finds when it lands inside the writer's own calls (seen in Pool workers at exit):
# a wake-up half set (threading.Event's lock held; ours: the flag set, its token not yet posted) ...
lock = getattr(inner._wake, "_cond", None)
if lock is not None:
    lock.acquire()
else:
    inner._wake._pending = True
inner._space.acquire()  # ... and a caller waiting for memory holding the condition's lock
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(120)
"""


def test_sigterm_that_interrupts_the_writers_own_calls_still_flushes_and_dies(tmp_path):
    """The handler runs in the interrupted main thread, so it must not wait for a lock that thread
    holds: it posts its wake-up on a reentrant queue, and the writer thread stops waiting for `_space`
    and the deferred values' error lock."""
    import subprocess
    import sys
    import textwrap

    result = subprocess.run([sys.executable, "-c", textwrap.dedent(INTERRUPTED_CHILD), str(tmp_path)],
                            env=h.child_env(), capture_output=True, text=True, timeout=100)  # a hang fails here
    assert result.returncode == -signal.SIGTERM, result.stderr
    assert h.our_steps(tmp_path) == list(range(100))
    assert h.upstream_steps(upstream_read(tmp_path, CLASSIC)) == list(range(100))


def test_sigterm_keeps_the_programs_own_handler(tmp_path):
    import subprocess
    import sys
    import textwrap

    proc = subprocess.Popen([sys.executable, "-u", "-c", textwrap.dedent(QUEUED_CHILD), str(tmp_path),
                             "own-handler"], env=h.child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        assert proc.stdout.readline().strip() == "not-installed"
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 7 and "own handler" in out, err


def test_sighup_ignored_by_nohup_stays_ignored(tmp_path):
    code = ("import signal, sys, tensorboard; signal.signal(signal.SIGHUP, signal.SIG_IGN); "
            "w = tensorboard.SummaryWriter(sys.argv[1]); from tensorboard.events import _signals; "
            "print(_signals.installed(signal.SIGTERM), _signals.installed(signal.SIGHUP), "
            "signal.getsignal(signal.SIGHUP) is signal.SIG_IGN); w.close()")
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=h.child_env(), capture_output=True,
                            text=True, timeout=60)
    assert result.stdout.split() == ["True", "False", "True"], result.stderr


def test_sigterm_exit_status_is_143_in_a_shell(tmp_path):
    code = ("import os, signal, sys, tensorboard; w = tensorboard.SummaryWriter(sys.argv[1], flush_secs=3600, "
            "max_queue=10**6); [w.add_scalar('x', float(i), i) for i in range(100)]; os.kill(os.getpid(), "
            "signal.SIGTERM)")
    import subprocess
    import sys

    result = subprocess.run(["sh", "-c", f'"{sys.executable}" -c "{code}" "{tmp_path}"; echo status=$?'],
                            env=h.child_env(), capture_output=True, text=True, timeout=60)
    assert "status=143" in result.stdout, result.stderr
    assert h.our_steps(tmp_path) == list(range(100))


def test_handler_only_from_main_thread_and_without_own_handler(tmp_path):
    previous, previous_flush = signal.getsignal(signal.SIGTERM), _signals._flush_all
    try:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        results = []
        import threading

        thread = threading.Thread(target=lambda: results.append(_signals.install_sigterm_flush(lambda t: True)))
        thread.start()
        thread.join()
        assert results == [False] and not _signals.installed()
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a program that ignores SIGTERM keeps doing so
        assert _signals.install_sigterm_flush(lambda t: True) is False
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        assert _signals.install_sigterm_flush(lambda t: True) is True and _signals.installed()
    finally:
        signal.signal(signal.SIGTERM, previous)
        _signals._flush_all = previous_flush


CHAINING_CHILD = """
import os, signal, sys
import tensorboard
from tensorboard.events import _signals
w = tensorboard.SummaryWriter(sys.argv[1], flush_secs=3600, max_queue=10**6)
w.add_scalar("x", 0.0, 0)
assert _signals.installed()
previous, stop = signal.getsignal(signal.SIGTERM), []

def graceful(signum, frame):  # what Lightning installs: note the signal, then call the handler found
    stop.append(signum)
    if callable(previous):
        previous(signum, frame)

signal.signal(signal.SIGTERM, graceful)
for step in range(1, 1000):
    w.add_scalar("x", float(step), step)
    if step == 500:
        os.kill(os.getpid(), signal.SIGTERM)
    if stop:
        w.add_scalar("x", -1.0, step + 1)  # the program's own shutdown: still logging
        break
w.close()
print("graceful", flush=True)
"""


def test_a_handler_that_chains_to_ours_keeps_its_graceful_shutdown(tmp_path):
    """Lightning installs its SIGTERM handler after the logger's writer exists and calls ours from it:
    ours must flush and return, not kill the process under the program's own shutdown."""
    import subprocess
    import sys
    import textwrap

    result = subprocess.run([sys.executable, "-u", "-c", textwrap.dedent(CHAINING_CHILD), str(tmp_path)],
                            env=h.child_env(), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip() == "graceful", result.stderr
    assert h.upstream_steps(upstream_read(tmp_path, CLASSIC)) == h.our_steps(tmp_path) == list(range(502))


FORK_CHILD = """
import multiprocessing as mp, sys, time
import tensorboard

def worker(run):
    writer = tensorboard.SummaryWriter(f"{sys.argv[1]}/{run}")  # left open, as many scripts leave it
    for step in range(5):
        writer.add_scalar("x", float(step), step)
    time.sleep(0.1)
    return run

if __name__ == "__main__":
    ctx = mp.get_context(sys.argv[2])
    process = ctx.Process(target=worker, args=("process",))
    process.start()
    process.join()
    pool = ctx.Pool(2)
    pool.map(worker, ["pool1", "pool2"])
    pool.close()
    pool.join()
    with ctx.Pool(1) as pool:  # __exit__ terminates the worker with SIGTERM
        pool.map(worker, ["terminated"])
    print(process.exitcode, flush=True)
"""


@pytest.mark.parametrize("method", ["fork", "forkserver", "spawn"])
def test_multiprocessing_workers_that_leave_writers_open_lose_nothing(tmp_path, method):
    """A fork-started worker ends with os._exit(), skipping atexit: multiprocessing's exit finalizers flush."""
    import subprocess
    import sys
    import textwrap

    script = tmp_path / "child.py"
    script.write_text(textwrap.dedent(FORK_CHILD))
    logdir = tmp_path / "logs"
    result = subprocess.run([sys.executable, str(script), str(logdir), method], env=h.child_env(),
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 and result.stdout.strip() == "0", result.stderr
    view = upstream_read(logdir, CLASSIC)
    for run in ("process", "pool1", "pool2", "terminated"):
        assert h.upstream_steps(view, run) == h.our_steps(logdir / run) == list(range(5)), run


CLOSING_CHILD = """
import os, signal, sys, time
import tensorboard
w = tensorboard.SummaryWriter(sys.argv[1], flush_secs=3600, max_queue=10**6)
for i in range(100):
    w.add_scalar("x", float(i), i)
inner = w.file_writer._writer
inner._closed = True  # close() past its own flush: other threads' events still queued before its stop,
inner._queue.append(None)  # and SIGTERM lands before it woke the writer thread
os.kill(os.getpid(), signal.SIGTERM)
time.sleep(120)
"""


def test_sigterm_in_the_middle_of_a_close_keeps_what_it_was_writing(tmp_path):
    """A writer that is closing is not done: the SIGTERM flush waits for its thread to write what was
    queued before the stop (JAX events queued by other threads during close's flush were lost)."""
    import subprocess
    import sys
    import textwrap

    result = subprocess.run([sys.executable, "-c", textwrap.dedent(CLOSING_CHILD), str(tmp_path)],
                            env=h.child_env(), capture_output=True, text=True, timeout=100)
    assert result.returncode == -signal.SIGTERM, result.stderr
    assert h.our_steps(tmp_path) == list(range(100))
    assert h.upstream_steps(upstream_read(tmp_path, CLASSIC)) == list(range(100))


FORK_WITH_LOCK_HELD = """
import os, sys, tensorboard
w = tensorboard.SummaryWriter(sys.argv[1])
w.add_scalars("warm", {"a": 1.0}, 0)
w._lock.acquire()  # another thread of the parent is inside add_scalars, creating a sub-run, at the fork
pid = os.fork()
if pid == 0:
    w.add_scalars("child", {"b": 2.0}, 0)  # a new sub-run in the child takes the lock
    w.close()
    os._exit(0)
_, status = os.waitpid(pid, 0)
w._lock.release()
w.close()
print(status)
"""


def test_a_forked_child_gets_fresh_locks(tmp_path):
    import subprocess
    import sys

    result = subprocess.run([sys.executable, "-c", FORK_WITH_LOCK_HELD, str(tmp_path)], env=h.child_env(),
                            capture_output=True, text=True, timeout=100)  # a hang fails here
    assert result.returncode == 0 and result.stdout.strip() == "0", result.stderr
    assert "child/b" in upstream_read(tmp_path)["runs"]
