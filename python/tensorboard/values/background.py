"""One process-wide thread that converts and encodes deferred values at idle CPU priority.

A training loop keeps every core busy (XLA's, MXNet's or torch's thread pools): logging work done
at normal priority takes cores from the step and slows it. On Linux this thread runs under
SCHED_IDLE, so it uses only the time the framework leaves idle. Nothing waits on it: when a
caller needs an event written (flush, close, the memory bound, an event older than flush_secs),
the writer's own thread encodes it at normal priority (tensorboard.events._deferred_writes).
Event file writers get this module as their `Encoder` (tensorboard.events.deferred_event) from FileWriter.
The thread ends after IDLE_EXIT_SECS without work (or at `stop()`) and starts again on the next submit.

It also keeps off the GIL while a caller takes its snapshots (`caller_busy()`): the caller releases
the GIL in the snapshot's device copy, and an encoder taking it then holds the caller until it lets
go, 1-6 ms when the idle-priority thread is preempted meanwhile (see `yield_to_callers`).
"""
from __future__ import annotations

import os
import threading
import time
from collections import deque
from typing import Optional

from tensorboard import process
from tensorboard.values.deferred import Deferred

IDLE_EXIT_SECS = 1.0  # an encoder without work this long ends; the next submit starts another
_lock = threading.Lock()
_encoder: Optional["_IdleEncoder"] = None
_exiting = False  # set at interpreter exit: no new encoder
_busy_callers: list = []  # one entry per add_* taking its snapshots (list append/pop are atomic)
YIELD_FIRST_SECS = 0.0002  # the encoder's first sleep while a caller is busy; doubles up to
YIELD_MAX_SLEEP_SECS = 0.004  # ... this (each wake-up takes the GIL a moment)
YIELD_MAX_SECS = 0.05  # longest wait at one point: a caller logging without pause does not starve it


class _CallerBusy:
    """Context manager marking the calling thread's add_* as busy for `yield_to_callers`: no lock, so
    the caller never waits for the encoder."""

    __slots__ = ()

    def __enter__(self) -> None:
        _busy_callers.append(None)

    def __exit__(self, *exc_info) -> None:
        _busy_callers.pop()


_CALLER_BUSY = _CallerBusy()


def caller_busy() -> _CallerBusy:
    """`with caller_busy():` around a caller's snapshots, so that the encoder keeps off the GIL."""
    return _CALLER_BUSY


def yield_to_callers() -> None:
    """On the encoder thread: sleeps (GIL released) while some caller takes its snapshots, up to
    YIELD_MAX_SECS; elsewhere (a writer thread encoding, a caller) returns at once.

    Called before each item and after its device-to-host copy (which releases the GIL): the points
    where the encoder would otherwise take the GIL from a caller and hold it through its Python work.
    """
    if not _busy_callers:
        return
    encoder = _encoder
    if encoder is None or encoder.thread is not threading.current_thread():
        return
    pause, deadline = YIELD_FIRST_SECS, time.monotonic() + YIELD_MAX_SECS
    while _busy_callers and not encoder.stopping and time.monotonic() < deadline:
        time.sleep(pause)
        pause = min(2 * pause, YIELD_MAX_SLEEP_SECS)


def submit(item: Deferred) -> None:
    """Queues `item` for encoding in the background (starting the thread when none is running)."""
    encoder = _encoder
    if encoder is None or encoder.stopping or encoder.retired or encoder.pid != os.getpid():
        if _exiting:  # the writer threads encode what is left themselves
            return
        encoder = _start()
    encoder.queue.append(item)
    encoder.wake.set()
    if encoder.stopping or encoder.retired:  # it is ending since the check: a new one takes its queue over
        _start()


def stop(timeout: float | None = None) -> bool:
    """Ends this process's encoder after the item it is on (items left are handed to the next one,
    or encoded by their writers); True once it has ended. The next submit starts a new one."""
    encoder = _encoder
    if encoder is None or encoder.pid != os.getpid():
        return True
    encoder.stopping = True
    encoder.wake.set()
    if encoder.thread is not threading.current_thread():
        encoder.thread.join(timeout)
    return not encoder.thread.is_alive()


def shutdown(timeout: float) -> bool:
    """Stops this process's encoder for good and waits up to `timeout` s for it; True once it has ended.

    Called at interpreter exit, after the writers' exit flush. A daemon thread still inside a
    framework's C++ code (a device-to-host copy) when the interpreter finalizes is killed by a
    forced unwind that such code may not survive: the process would abort with
    "FATAL: exception not rethrown". Joining it first ends it between two items.
    """
    global _exiting
    _exiting = True
    return stop(max(0.0, timeout))


# How long exit waits for the encoder to finish the item it is on. Every item is also in its
# writer's queue, so nothing is lost past it; it only keeps the thread out of C++ frames.
ENCODER_EXIT_WAIT = 5.0


def _shutdown_at_exit(deadline: float) -> None:
    """Exit, after the writers' flush (process.STOP): the encoder ends within ENCODER_EXIT_WAIT, or by
    the exit deadline if sooner."""
    shutdown(min(ENCODER_EXIT_WAIT, deadline - time.monotonic()))


process.at_exit(_shutdown_at_exit, process.STOP)


def running() -> bool:
    """Whether this process's encoder thread is alive (an event file writer hands it items only then)."""
    thread = encoder_thread()
    return thread is not None and thread.is_alive()


def encoder_thread() -> Optional[threading.Thread]:
    """The running encoder thread of this process, if any (for tests and diagnostics)."""
    encoder = _encoder
    return encoder.thread if encoder is not None and encoder.pid == os.getpid() else None


def idle_priority_set() -> bool:
    """Whether the encoder thread got idle CPU priority (False off Linux or where it is refused)."""
    encoder = _encoder
    return bool(encoder is not None and encoder.idle)


def _start() -> "_IdleEncoder":
    """The running encoder, or a new one holding the queue a retired one left."""
    global _encoder
    with _lock:
        old = _encoder
        if old is None or old.stopping or old.retired or old.pid != os.getpid():
            _encoder = _IdleEncoder()
            if old is not None and old.pid == os.getpid():
                old.stopping = True  # ends after the item it may be on, taking no other
                _take_over(old.queue, _encoder.queue)
            _encoder.thread.start()
        return _encoder


def _take_over(source: deque, target: deque) -> None:
    """Moves items one by one: each is popped once, by the old thread or here, never both."""
    while True:
        try:
            target.append(source.popleft())
        except IndexError:
            return


def _forget_in_child() -> None:
    """After fork(): the parent's thread does not exist here, and its lock may have been held."""
    global _lock, _encoder
    _lock = threading.Lock()
    _encoder = None
    _busy_callers.clear()  # entries of the parent's other threads, which do not exist here


process.after_fork_in_child(_forget_in_child)


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


class _EncoderThread(threading.Thread):
    """The encoder's named daemon thread; `stop()` ends it (for leak guards such as Lightning's)."""

    def __init__(self, encoder: "_IdleEncoder"):
        super().__init__(name="tensorboard-encoder", daemon=True)
        self._encoder = encoder

    def run(self) -> None:
        self._encoder.run()

    def stop(self) -> None:
        self._encoder.stopping = True
        self._encoder.wake.set()
        if self is not threading.current_thread():
            self.join()


class _IdleEncoder:
    """The queue and the daemon thread that drains it in order."""

    def __init__(self) -> None:
        self.pid = os.getpid()
        self.queue: deque = deque()
        self.wake = threading.Event()
        self.idle = False
        self.stopping = False
        self.retired = False  # set under _lock once the thread takes no more items
        self.thread = _EncoderThread(self)

    def run(self) -> None:
        self.idle = _lower_own_priority()
        queue = self.queue
        try:
            while not self.stopping:
                if not self.wake.wait(IDLE_EXIT_SECS) and not queue:
                    with _lock:
                        if not queue:
                            self.retired = True
                            return
                self.wake.clear()
                while not self.stopping:
                    try:
                        item = queue.popleft()
                    except IndexError:
                        break
                    yield_to_callers()
                    item.compute()  # never raises: errors are kept on the item
        finally:
            with _lock:
                self.retired = True  # what is left goes to the next encoder, or its writer encodes it
