"""Deferred values are encoded by one idle-priority background thread, and nothing waits on it:
flush, close, exit and flush_secs get every event written even while that thread is stalled
(as it is when a training loop keeps every core busy). Read back by upstream's reader."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from upstream import upstream_read
from waiting import eventually, poll

import tensorboard
from tensorboard.values import background
from tensorboard.values.deferred import Deferred

jax = pytest.importorskip("jax")
jnp = jax.numpy


def scalars(logdir, tag):
    return [(step, value) for step, _, value in upstream_read(logdir)["runs"]["."]["scalars"][tag]]


class StalledEncoder:
    """Blocks the background encoder (as a busy machine would starve it) until the block ends."""

    def __enter__(self):
        self.release = threading.Event()
        self.started = threading.Event()

        def block() -> bytes:
            self.started.set()
            self.release.wait(60)
            return b""

        background.submit(Deferred(block, 0, "blocker"))
        assert self.started.wait(30), "the background encoder did not pick up work"
        return self

    def __exit__(self, *exc_info):
        self.release.set()


def test_the_encoder_thread_runs_at_idle_priority(tmp_path):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_scalar("x", jnp.float32(1.0), 0)
        with StalledEncoder():  # keeps the encoder busy, so it is alive while we look
            thread = background.encoder_thread()
            assert thread is not None and thread.is_alive()
            if sys.platform.startswith("linux"):
                assert background.idle_priority_set()
                assert os.sched_getscheduler(thread.native_id) == os.SCHED_IDLE
    assert scalars(tmp_path, "x") == [(0, 1.0)]


def test_values_are_encoded_in_the_background_when_nobody_waits(tmp_path, deferred_conversions):
    writer = tensorboard.SummaryWriter(tmp_path)
    for step in range(5):
        writer.add_histogram("h", jnp.arange(1000.0) + step, step)
    try:
        assert eventually(lambda: len(deferred_conversions) >= 5)
    finally:
        writer.close()
    assert [thread for _, thread in deferred_conversions.values()][:5] == ["tensorboard-encoder"] * 5
    hist = upstream_read(tmp_path)["runs"]["."]["histograms"]["h"]
    assert [(s, h["min"]) for s, h in hist] == [(s, float(s)) for s in range(5)]


def test_flush_and_close_do_not_wait_for_a_stalled_encoder(tmp_path):
    with StalledEncoder():
        writer = tensorboard.SummaryWriter(tmp_path)
        for step in range(3):
            writer.add_scalar("x", jnp.float32(step) + 0.5, step)
        writer.flush()  # the writer thread encodes them itself
        assert scalars(tmp_path, "x") == [(0, 0.5), (1, 1.5), (2, 2.5)]
        writer.add_scalar("x", jnp.float32(7.0), 3)
        writer.close()
    assert scalars(tmp_path, "x")[-1] == (3, 7.0)


def test_a_flush_shares_its_backlog_with_the_encoder(tmp_path):
    """While the encoder works on the first pending event, the flushing writer thread encodes the
    ones after it (once each: the encoder then skips them) instead of running the first one a
    second time at once. With nothing left to do, it may still run the first itself: it never
    waits for the idle-priority encoder."""
    from tensorboard import summary
    from tensorboard.events import wire

    runs: dict = {}  # tag -> threads that ran its encode, in order
    order: list = []  # tags, in the order their encodes started
    first_started, rest_done = threading.Event(), threading.Event()

    def encoder_of(tag: str, value: float):
        def encode() -> bytes:
            runs.setdefault(tag, []).append(threading.current_thread().name)
            order.append(tag)
            if tag == "first" and len(runs[tag]) == 1:
                first_started.set()
                assert rest_done.wait(30), "the writer thread did not encode the later values"
            elif tag == "third":
                rest_done.set()
            return wire.summary_event(summary.scalar(tag, value).SerializeToString(), 1, 1.0)
        return encode

    writer = tensorboard.FileWriter(tmp_path)
    writer.add_deferred(Deferred(encoder_of("first", 1.0), 0, "first"))
    assert first_started.wait(30)
    for tag, value in (("second", 2.0), ("third", 3.0)):
        writer.add_deferred(Deferred(encoder_of(tag, value), 0, tag))
    writer.flush()
    writer.close()
    (writer_thread,) = set(runs["second"])
    assert writer_thread.startswith("tensorboard-writer")
    assert runs["second"] == runs["third"] == [writer_thread]
    assert runs["first"][0] == "tensorboard-encoder" and set(runs["first"][1:]) <= {writer_thread}
    assert order[:3] == ["first", "second", "third"]  # the later ones before any second run of the first
    assert [scalars(tmp_path, tag) for tag in ("first", "second", "third")] == [[(1, 1.0)], [(1, 2.0)], [(1, 3.0)]]


def test_a_snapshot_is_freed_once_encoded_not_once_written(tmp_path, monkeypatch):
    """The encoder drops the device copy as soon as the event's bytes exist (freeing a device buffer
    is not free): the writer thread, which may write much later, has nothing left to free."""
    import gc
    import weakref

    from tensorboard.values import deferred as _deferred

    copies = []
    take_snapshot = _deferred.snapshot
    monkeypatch.setattr(_deferred, "snapshot", lambda value, kind: copies.append(take_snapshot(value, kind))
                        or copies[-1])
    writer = tensorboard.SummaryWriter(tmp_path, flush_secs=600)  # nothing makes the writer write for now
    writer.add_histogram("h", jnp.arange(10.0), 0)
    copy = weakref.ref(copies.pop())
    try:
        assert eventually(lambda: gc.collect() >= 0 and copy() is None), "the snapshot outlived its encoding"
        runs = upstream_read(tmp_path)["runs"]  # the file may hold its header, not the histogram
        assert not runs or not runs["."]["histograms"]
    finally:
        writer.close()
    (step, hist), = upstream_read(tmp_path)["runs"]["."]["histograms"]["h"]
    assert (step, hist["num"], hist["max"]) == (0, 10, 9.0)


def test_flush_secs_holds_for_values_the_encoder_has_not_reached(tmp_path):
    with StalledEncoder():
        writer = tensorboard.SummaryWriter(tmp_path, flush_secs=0.3)
        try:
            writer.add_scalar("x", jnp.float32(4.0), 0)

            def found() -> list:
                run = upstream_read(tmp_path)["runs"].get(".", {})  # the file may hold only its header yet
                return [(step, value) for step, _, value in run.get("scalars", {}).get("x", [])]

            assert poll(found, every=0.05) == [(0, 4.0)]  # no flush(): the age limit alone writes it
        finally:
            writer.close()


def test_a_failed_value_is_reported_while_the_encoder_runs_ahead(tmp_path):
    writer = tensorboard.SummaryWriter(tmp_path)
    writer.add_scalar("ok", jnp.float32(1.0), 0)
    writer.add_histogram("bad", jnp.array([jnp.inf, 1.0]), 0)
    with pytest.raises(ValueError, match="tag 'bad'"):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the encoder wakes the writer for a failure: no flush needed
            writer.add_scalar("later", 1.0, 0)
            time.sleep(0.01)
    writer.close()
    assert scalars(tmp_path, "ok") == [(0, 1.0)]


EXIT_SCRIPT = textwrap.dedent("""
    import sys, threading
    import jax.numpy as jnp
    import tensorboard
    from tensorboard.values import background
    from tensorboard.values.deferred import Deferred

    started = threading.Event()
    def block():
        started.set()
        threading.Event().wait(600)  # stalled for good: exit must not need it
        return b""
    background.submit(Deferred(block, 0, "blocker"))
    started.wait(30)
    # exit's wait for the stalled item (5 s), cut short: the check is that the writers' exit flush
    # did not need the encoder, not how long exit waits for it
    background.ENCODER_EXIT_WAIT = 0.2
    writer = tensorboard.SummaryWriter(sys.argv[1])
    for step in range(50):
        writer.add_scalar("x", jnp.float32(step), step)
    # no close(): the exit flush writes everything
""")


def run_child(tmp_path, source: str, *args: str) -> None:
    """Runs `source` as a script in a fresh interpreter with this one's import path; it must exit 0."""
    script = tmp_path / "child_script.py"
    script.write_text(source)
    subprocess.run([sys.executable, str(script), *args], check=True, timeout=120,
                   env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})


def test_exit_writes_what_a_stalled_encoder_never_reached(tmp_path):
    logdir = tmp_path / "logs"
    run_child(tmp_path, EXIT_SCRIPT, str(logdir))
    assert scalars(logdir, "x") == [(s, float(s)) for s in range(50)]


FINISH_SCRIPT = textwrap.dedent("""
    import sys, threading, time
    import jax.numpy as jnp
    import tensorboard
    from tensorboard.values import background
    from tensorboard.values.deferred import Deferred

    writer = tensorboard.SummaryWriter(sys.argv[1])
    writer.add_scalar("x", jnp.float32(3.0), 0)
    writer.close()
    started = threading.Event()
    def slow_item():  # stands in for a device-to-host copy still running when the program ends
        started.set()
        time.sleep(1.0)
        open(sys.argv[2], "w").write("finished")
        return b""
    background.submit(Deferred(slow_item, 0, "slow"))
    started.wait(30)
""")


def test_exit_lets_the_encoder_finish_its_item_before_the_interpreter_finalizes(tmp_path):
    """A daemon thread still inside a framework's C++ code at finalization is killed by a forced
    unwind, which aborted JAX programs ("FATAL: exception not rethrown") in 2 of 60 runs of a short script."""
    logdir, marker = tmp_path / "logs", tmp_path / "finished"
    run_child(tmp_path, FINISH_SCRIPT, str(logdir), str(marker))
    assert marker.read_text() == "finished"
    assert scalars(logdir, "x") == [(0, 3.0)]


def test_the_encoder_takes_no_item_while_a_caller_takes_its_snapshots(monkeypatch):
    """The caller's device copy releases the GIL: the encoder must not take it then and run an item's
    Python work, which would hold the caller up (for ms when the idle thread is preempted). Checked
    by what ran, not by time: with no cap on the yield, the item waits until the caller is done."""
    monkeypatch.setattr(background, "YIELD_MAX_SECS", 3600.0)
    with StalledEncoder() as stalled:  # the encoder is alive and busy: the next item waits in its queue
        ran = threading.Event()
        item = Deferred(lambda: ran.set() or b"", 0, "after the call")
        with background.caller_busy():
            background.submit(item)
            stalled.release.set()
            assert not ran.wait(0.5), "the encoder ran an item while a caller was taking a snapshot"
            assert not item.running and not item.done
        assert ran.wait(30), "the encoder did not resume once the caller was done"
    assert item.done


def test_yielding_to_callers_is_for_the_encoder_thread_only(monkeypatch):
    """A writer thread or a caller encoding an event itself never sleeps for callers."""
    monkeypatch.setattr(time, "sleep", lambda _s: pytest.fail("slept off the encoder thread"))
    with background.caller_busy():
        background.yield_to_callers()
    assert not background._busy_callers


def test_add_histogram_marks_the_caller_busy_during_its_snapshot(tmp_path, monkeypatch):
    from tensorboard.values import deferred as _deferred

    seen = []
    original = _deferred.snapshot
    monkeypatch.setattr(_deferred, "snapshot", lambda value, kind: seen.append(bool(background._busy_callers))
                        or original(value, kind))
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_histogram("h", jnp.arange(10.0), 0)
        writer.add_scalar("x", jnp.float32(2.0), 0)
        with pytest.raises(ValueError):
            writer.add_histogram("h", jnp.arange(10.0), 1, bins=-3)  # an argument error, raised at the call
        assert not background._busy_callers  # cleared on return and on error
    assert seen == [True, True]
    assert scalars(tmp_path, "x") == [(0, 2.0)]
