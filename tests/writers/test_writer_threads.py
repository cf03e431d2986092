"""No thread left behind: after close() no thread of ours is alive; our writer and encoder threads are
named daemon threads with stop() (as upstream's writer thread), so leak guards can end them; the
background encoder ends when it has no work and starts again when needed."""
from __future__ import annotations

import threading

import numpy as np
import pytest
from upstream import upstream_read
from waiting import eventually

import tensorboard
from tensorboard.values import background
from tensorboard.values.deferred import Deferred


def ours() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("tensorboard-")]


def scalars(logdir) -> list:
    return [(s, v) for s, _, v in upstream_read(logdir)["runs"]["."]["scalars"]["x"]]


def test_no_thread_of_ours_after_close(tmp_path):
    jnp = pytest.importorskip("jax.numpy")
    writer = tensorboard.SummaryWriter(tmp_path / "a")
    raw = tensorboard.FileWriter(tmp_path / "b")
    for step in range(5):
        writer.add_scalar("x", jnp.float32(step), step)  # deferred: the background encoder starts
        writer.add_histogram("h", np.arange(10.0), step)
    assert {t.name.split(":")[0] for t in ours()} >= {"tensorboard-writer"}
    writer.close()
    raw.close()
    assert ours() == []
    assert scalars(tmp_path / "a") == [(s, float(s)) for s in range(5)]


def test_torch_writer_leaves_no_thread(tmp_path):
    torch_tb = pytest.importorskip("torch.utils.tensorboard")
    writer = torch_tb.SummaryWriter(str(tmp_path))
    writer.add_scalar("x", 1.0, 0)
    assert any(t.name.startswith("tensorboard-writer") for t in ours())
    writer.close()
    assert ours() == []


def test_stop_on_a_writer_thread_writes_what_is_queued_and_ends_it(tmp_path):
    """What a leak guard does (Lightning's: `if thread.daemon and callable(thread.stop): stop()`)."""
    writer = tensorboard.SummaryWriter(tmp_path)
    for step in range(3):
        writer.add_scalar("x", float(step), step)
    (thread,) = [t for t in ours() if t.name.startswith("tensorboard-writer")]
    assert thread.daemon and callable(thread.stop)
    thread.stop()
    assert not thread.is_alive()
    assert scalars(tmp_path) == [(0, 0.0), (1, 1.0), (2, 2.0)]
    writer.close()  # still fine afterwards
    assert ours() == []


def test_encoder_ends_when_idle_and_starts_again(monkeypatch):
    monkeypatch.setattr(background, "IDLE_EXIT_SECS", 0.05)
    first = Deferred(lambda: b"one", 0, "one")
    background.submit(first)
    thread = background.encoder_thread()
    assert thread is not None and thread.name == "tensorboard-encoder" and thread.daemon
    assert eventually(lambda: first.done) and eventually(lambda: not thread.is_alive())
    second = Deferred(lambda: b"two", 0, "two")
    background.submit(second)
    again = background.encoder_thread()
    assert again is not thread and eventually(lambda: second.done)
    assert eventually(lambda: not again.is_alive())


def test_stop_on_the_encoder_thread_ends_it_and_the_next_submit_starts_one():
    started, release = threading.Event(), threading.Event()

    def slow() -> bytes:
        started.set()
        release.wait(30)
        return b""

    background.submit(Deferred(slow, 0, "slow"))
    assert started.wait(30)
    thread = background.encoder_thread()
    waiting = Deferred(lambda: b"w", 0, "waiting")
    background.submit(waiting)  # queued behind the slow one
    stopper = threading.Thread(target=thread.stop)
    stopper.start()
    release.set()
    stopper.join(30)
    assert not thread.is_alive()
    later = Deferred(lambda: b"l", 0, "later")
    background.submit(later)  # a new encoder, which also takes over what the old one left
    assert eventually(lambda: later.done and waiting.done)
    background.stop(30)
