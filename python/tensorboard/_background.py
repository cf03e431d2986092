"""One process-wide thread that converts and encodes deferred values at idle CPU priority.

A training loop keeps every core busy (XLA's, MXNet's or torch's thread pools): logging work done
at normal priority takes cores from the step and slows it. On Linux this thread runs under
SCHED_IDLE, so it uses only the time the framework leaves idle. Nothing waits on it: when a
caller needs an event written (flush, close, the memory bound, an event older than flush_secs),
the writer's own thread encodes it at normal priority (see EventFileWriter._deferred_bytes).
"""
from __future__ import annotations

import os
import threading
from collections import deque
from typing import Optional

from tensorboard._deferred import Deferred

_lock = threading.Lock()
_encoder: Optional["_IdleEncoder"] = None


def submit(item: Deferred) -> None:
    """Queues `item` for encoding in the background (the thread starts on first use, again after fork)."""
    encoder = _encoder
    if encoder is None or encoder.pid != os.getpid():
        encoder = _start()
    if encoder.stopping:  # at exit: the writer threads encode what is left themselves
        return
    encoder.queue.append(item)
    encoder.wake.set()


def shutdown(timeout: float) -> bool:
    """Stops this process's encoder and waits up to `timeout` s for it; True once it has ended.

    Called at interpreter exit, after the writers' exit flush. A daemon thread still inside a
    framework's C++ code (a device-to-host copy) when the interpreter finalizes is killed by a
    forced unwind that such code may not survive: the process would abort with
    "FATAL: exception not rethrown". Joining it first ends it between two items.
    """
    encoder = _encoder
    if encoder is None or encoder.pid != os.getpid():
        return True
    encoder.stopping = True
    encoder.wake.set()
    encoder.thread.join(max(0.0, timeout))
    return not encoder.thread.is_alive()


def encoder_thread() -> Optional[threading.Thread]:
    """The running encoder thread of this process, if any (for tests and diagnostics)."""
    encoder = _encoder
    return encoder.thread if encoder is not None and encoder.pid == os.getpid() else None


def idle_priority_set() -> bool:
    """Whether the encoder thread got idle CPU priority (False off Linux or where it is refused)."""
    encoder = _encoder
    return bool(encoder is not None and encoder.idle)


def _start() -> "_IdleEncoder":
    global _encoder
    with _lock:
        if _encoder is None or _encoder.pid != os.getpid():
            _encoder = _IdleEncoder()
        return _encoder


def _forget_in_child() -> None:
    """After fork(): the parent's thread does not exist here, and its lock may have been held."""
    global _lock, _encoder
    _lock = threading.Lock()
    _encoder = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)


def _lower_own_priority() -> bool:
    """Moves the calling thread to SCHED_IDLE; True on success."""
    setter = getattr(os, "sched_setscheduler", None)
    policy = getattr(os, "SCHED_IDLE", None)
    if setter is None or policy is None:
        return False
    try:
        setter(0, policy, os.sched_param(0))  # pid 0: the calling thread on Linux
    except OSError:
        return False
    return True


class _IdleEncoder:
    """The queue and the daemon thread that drains it in order."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.queue: deque = deque()
        self.wake = threading.Event()
        self.idle = False
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="tensorboard-encoder", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        self.idle = _lower_own_priority()
        queue = self.queue
        while not self.stopping:
            self.wake.wait()
            self.wake.clear()
            while not self.stopping:
                try:
                    item = queue.popleft()
                except IndexError:
                    break
                item.compute()  # never raises: errors are kept on the item
        queue.clear()  # every item is still in its writer's queue: the writer thread encodes it
