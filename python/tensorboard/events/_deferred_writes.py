"""The event file writer's deferred events: values converted and encoded off the caller's thread.

`DeferredWrites` owns this state for one EventFileWriter: the writer's `write_deferred` queues the
event in order and has it hand the event to the idle-priority background encoder the writer was
given (an `Encoder`: FileWriter passes tensorboard.values.background). The writer thread writes events in
order; a deferred one not yet encoded in the background is held back at the queue's head (with
what follows it) until the next wake-up, unless somebody needs it now: a flush or close, a
producer held by a memory bound, interpreter exit, or the event being older than flush_secs.
Then the writer thread encodes it itself, at normal priority; while somebody waits and the
encoder is busy with the event at the head, the writer encodes the ones after it (a flush's
backlog on two cores). So logging takes only the CPU time the training loop leaves idle, and
every guarantee of the synchronous path (order, flush, close, flush_secs, bounded memory) still holds.
"""
from __future__ import annotations

import threading
import time
from collections import deque

from tensorboard.events.deferred_event import Deferred, DeferredValueError, Encoder

_LOOK_AHEAD = 64  # queued events the writer looks at for work while the encoder holds the head


HELD_RECHECK_SECS = 0.5  # how soon the writer thread looks again at an event the encoder has not finished


class DeferredWrites:
    """An EventFileWriter's deferred events: the snapshot memory bound, the failures to raise in turn,
    the callers waiting on the writer, and when the writer thread encodes an event itself."""

    def __init__(self, wake, flush_secs: float, max_pending_snapshot_bytes: int, encoder: Encoder | None = None):
        self._wake = wake  # the writer thread's wake-up
        self._encoder = encoder  # None: the writer thread encodes every deferred event itself
        self._flush_secs = flush_secs
        self._max_snapshot_bytes = max_pending_snapshot_bytes
        self.snapshots_in = 0  # device bytes of deferred values queued (producers)
        self.snapshots_out = 0  # ... and written or dropped (writer thread)
        self.error: BaseException | None = None  # raised once at the writer's next call
        self._backlog: list[BaseException] = []  # later failures, raised in turn after it
        self._error_lock = threading.Lock()
        self._waiters = 0  # callers blocked until the writer catches up: the writer then encodes itself
        self._waiters_lock = threading.Lock()
        self.exiting = False  # set without a lock by the writer's exit/SIGTERM flush
        self.head_deadline = float("inf")  # when a held-back deferred event must be encoded by the writer
        self._unsubmitted: deque = deque()  # queued while no encoder ran: the writer thread submits them

    # -- caller side -------------------------------------------------------------------------------

    def admit(self, item: Deferred, wait_while) -> None:
        """Waits (through the writer's `wait_while`) while the snapshots pending would exceed
        max_pending_snapshot_bytes, then counts `item` in."""
        if self.snapshots_in - self.snapshots_out + item.nbytes > self._max_snapshot_bytes:
            wait_while(lambda: self.snapshots_in > self.snapshots_out  # an oversized value alone passes
                       and self.snapshots_in - self.snapshots_out + item.nbytes > self._max_snapshot_bytes)
        item.queued_at = time.monotonic()
        item.wake = self._wake  # the encoder wakes the writer thread early for a failed value
        self.snapshots_in += item.nbytes

    def submit(self, item: Deferred) -> None:
        """Hands a queued item to the background encoder, or to the writer thread while none runs (without
        an encoder the writer thread encodes it when it gets to it, as any event)."""
        if self._encoder is None:
            return
        if self._encoder.running():
            self._encoder.submit(item)
        else:  # starting the encoder waits until its thread runs (10-60 ms on busy cores): the writer thread does
            self._unsubmitted.append(item)
            self._wake.set()

    def take_error(self) -> BaseException | None:
        """The failure to raise now (None if none); the next one in line takes its place. Its message
        counts the failures still in line, so one raised by close() does not hide them."""
        with self._error_lock:
            error = self.error
            if error is None:
                return None
            self.error = self._backlog.pop(0) if self._backlog else None
            waiting = [self.error, *self._backlog] if self.error is not None else []
        if not waiting:
            return error
        tags = ", ".join(repr(e.tag) for e in waiting[:5])
        more = DeferredValueError(f"{error} ({len(waiting)} more failed after it, under tags {tags}"
                                  f"{', ...' if len(waiting) > 5 else ''}; each is raised in turn)")
        more.__cause__, more.tag = error.__cause__, error.tag
        return more

    def waiting(self) -> "_Waiting":
        """Context manager around a caller's wait: while any caller waits, the writer does not defer."""
        return _Waiting(self)

    # -- writer thread -----------------------------------------------------------------------------

    def holds_back(self, item: Deferred, closed: bool) -> bool:
        """Whether to leave `item` (not yet encoded in the background) at the queue's head for a later
        wake-up, rather than encode it here at normal priority."""
        if self._unsubmitted:  # callers queued values while no encoder ran: start it here, hand them over, and
            while self._unsubmitted:  # go back to sleep as if this wake-up (only for that) had not happened
                self._encoder.submit(self._unsubmitted.popleft())  # type: ignore[union-attr]
            if not (self._waiters > 0 or self.exiting or closed):
                return True
        if item.done or self._waiters > 0 or self.exiting or closed or not self._encoder_alive():
            return False
        deadline = item.queued_at + self._flush_secs
        if time.monotonic() >= deadline:
            return False
        # look again soon: the encoder does not wake this thread, so the tail of a run would otherwise
        # wait in memory until flush_secs; two rechecks a second cost nothing next to the batches' wake-ups
        self.head_deadline = min(deadline, time.monotonic() + HELD_RECHECK_SECS)
        return True

    def encode(self, item: Deferred, queue: deque, closed: bool) -> bytes | None:
        """The deferred event's bytes (encoded here if still needed); a failure is kept to raise at the
        caller's next call. The item's snapshot is released either way."""
        try:
            if item.running and (self._waiters > 0 or self.exiting or closed):
                self._encode_ahead(item, queue)
            event_bytes = item.outcome()
        except Exception as err:
            error = DeferredValueError(
                f"the value logged asynchronously under tag {item.tag!r} could not be logged: {err}")
            error.__cause__, error.tag = err, item.tag
            locked = self.lock_unless_exiting(self._error_lock)
            try:
                if self.error is None:
                    self.error = error
                else:
                    self._backlog.append(error)
            finally:
                if locked:
                    self._error_lock.release()
            event_bytes = None
        finally:
            item.release()  # frees the snapshot even while the encoder's queue still holds the item
            self.snapshots_out += item.nbytes
        return event_bytes

    def lock_unless_exiting(self, lock) -> bool:
        """Takes a lock callers also take; False (not taken) once an exit or SIGTERM flush has begun and the
        lock stays busy, since the interrupted main thread may be the one holding it."""
        while not lock.acquire(timeout=0.05):
            if self.exiting:
                return False
        return True

    def _encoder_alive(self) -> bool:
        return self._encoder is not None and self._encoder.running()

    def _encode_ahead(self, head: Deferred, queue: deque) -> None:
        """While somebody waits and the background encoder is on `head`: encodes the queued deferred events
        after it that nobody has started, so that a flush's backlog is encoded on two cores rather than
        twice on one."""
        for index in range(min(len(queue), _LOOK_AHEAD)):  # only the writer thread pops it: indices stay put
            if head.done:
                return
            item = queue[index]
            if item.__class__ is Deferred:
                item.compute()


class _Waiting:
    """Counts a caller as waiting on the writer for the duration of a `with` block."""

    __slots__ = ("deferred",)

    def __init__(self, deferred: DeferredWrites):
        self.deferred = deferred

    def __enter__(self) -> None:
        with self.deferred._waiters_lock:
            self.deferred._waiters += 1
        self.deferred._wake.set()

    def __exit__(self, *exc_info) -> None:
        with self.deferred._waiters_lock:
            self.deferred._waiters -= 1
