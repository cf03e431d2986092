"""The event file writer's deferred events: values converted and encoded off the caller's thread.

A mixin of EventFileWriter. `write_deferred` queues the event in order and hands it to the
idle-priority background encoder (tensorboard._background). The writer thread writes events in
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

from tensorboard import _background
from tensorboard._deferred import Deferred, DeferredValueError

_LOOK_AHEAD = 64  # queued events the writer looks at for work while the encoder holds the head


HELD_RECHECK_SECS = 0.5  # how soon the writer thread looks again at an event the encoder has not finished


class DeferredWrites:
    """write_deferred and its writer-thread side, for EventFileWriter."""

    def _init_deferred(self, max_pending_snapshot_bytes: int) -> None:
        self._max_snapshot_bytes = max_pending_snapshot_bytes
        self._snapshots_in = 0  # device bytes of deferred values queued (producers)
        self._snapshots_out = 0  # ... and written or dropped (writer thread)
        self._deferred_error: BaseException | None = None  # raised once at the next call
        self._deferred_backlog: list[BaseException] = []  # later failures, raised in turn after it
        self._deferred_lock = threading.Lock()
        self._waiters = 0  # callers blocked until the writer catches up: the writer then encodes itself
        self._waiters_lock = threading.Lock()
        self._exiting = False  # set without a lock by the exit/SIGTERM flush
        self._head_deadline = float("inf")  # when a held-back deferred event must be encoded by the writer
        self._unsubmitted: deque = deque()  # queued while no encoder ran: the writer thread submits them

    def write_deferred(self, item: Deferred) -> None:
        """Queues an event whose value is converted and encoded in the background (see tensorboard._deferred).

        Returns at once unless the snapshots already pending hold more than max_pending_snapshot_bytes.
        """
        if self._error is not None or self._closed:
            self._raise_state()
        if self._snapshots_in - self._snapshots_out + item.nbytes > self._max_snapshot_bytes:
            self._wait_while(lambda: self._snapshots_in > self._snapshots_out  # an oversized value alone passes
                             and self._snapshots_in - self._snapshots_out + item.nbytes > self._max_snapshot_bytes)
        item.queued_at = time.monotonic()
        item.wake = self._wake  # the encoder wakes the writer thread early for a failed value
        self._snapshots_in += item.nbytes
        queue = self._queue
        queue.append(item)
        self._bytes_in += self._PER_ITEM_OVERHEAD
        if _background_alive():
            _background.submit(item)
        else:  # starting the encoder waits until its thread runs (10-60 ms on busy cores): the writer thread does
            self._unsubmitted.append(item)
            self._wake.set()
        if len(queue) % self._max_queue == 0:  # like write(): the writer wakes for batches, not for each event
            self._wake.set()
            if self._bytes_in - self._bytes_out > self._max_pending_bytes:  # the queue's own bound too: an
                self._wait_for_space()  # encoder starved of CPU must not let the queue grow without limit
        if self._deferred_error is not None:
            self._raise_state()

    def _take_deferred_error(self) -> BaseException | None:
        """The failure to raise now (None if none); the next one in line takes its place. Its message
        counts the failures still in line, so one raised by close() does not hide them."""
        with self._deferred_lock:
            error = self._deferred_error
            if error is None:
                return None
            self._deferred_error = self._deferred_backlog.pop(0) if self._deferred_backlog else None
            waiting = [self._deferred_error, *self._deferred_backlog] if self._deferred_error is not None else []
        if not waiting:
            return error
        tags = ", ".join(repr(e.tag) for e in waiting[:5])
        more = DeferredValueError(f"{error} ({len(waiting)} more failed after it, under tags {tags}"
                                  f"{', ...' if len(waiting) > 5 else ''}; each is raised in turn)")
        more.__cause__, more.tag = error.__cause__, error.tag
        return more

    def _waiting(self) -> "_Waiting":
        """Context manager around a caller's wait: while any caller waits, the writer does not defer."""
        return _Waiting(self)

    def _holds_back(self, item: Deferred) -> bool:
        """Writer thread: whether to leave `item` (not yet encoded in the background) at the queue's
        head for a later wake-up, rather than encode it here at normal priority."""
        if self._unsubmitted:  # callers queued values while no encoder ran: start it here, hand them over, and
            while self._unsubmitted:  # go back to sleep as if this wake-up (only for that) had not happened
                _background.submit(self._unsubmitted.popleft())
            if not (self._waiters > 0 or self._exiting or self._closed):
                return True
        if item.done or self._waiters > 0 or self._exiting or self._closed or not _background_alive():
            return False
        deadline = item.queued_at + self._flush_secs
        if time.monotonic() >= deadline:
            return False
        # look again soon: the encoder does not wake this thread, so the tail of a run would otherwise
        # wait in memory until flush_secs; two rechecks a second cost nothing next to the batches' wake-ups
        self._head_deadline = min(deadline, time.monotonic() + HELD_RECHECK_SECS)
        return True

    def _encode_deferred(self, item: Deferred) -> bytes | None:
        """Writer thread: the deferred event's bytes (encoded here if still needed); a failure is kept
        to raise at the caller's next call."""
        try:
            if item.running and (self._waiters > 0 or self._exiting or self._closed):
                self._encode_ahead(item)
            event_bytes = item.outcome()
        except Exception as err:
            error = DeferredValueError(
                f"the value logged asynchronously under tag {item.tag!r} could not be logged: {err}")
            error.__cause__, error.tag = err, item.tag
            locked = self._lock_unless_exiting(self._deferred_lock)
            try:
                if self._deferred_error is None:
                    self._deferred_error = error
                else:
                    self._deferred_backlog.append(error)
            finally:
                if locked:
                    self._deferred_lock.release()
            event_bytes = None
        finally:
            item.release()  # frees the snapshot even while the encoder's queue still holds the item
            self._snapshots_out += item.nbytes
            self._notify_space()
        return event_bytes

    def _lock_unless_exiting(self, lock) -> bool:
        """Writer thread: takes a lock callers also take; False (not taken) once an exit or SIGTERM flush
        has begun and the lock stays busy, since the interrupted main thread may be the one holding it."""
        while not lock.acquire(timeout=0.05):
            if self._exiting:
                return False
        return True

    def _notify_space(self) -> None:
        """Writer thread: wakes callers waiting for memory (none can be waiting during a SIGTERM flush)."""
        if self._lock_unless_exiting(self._space):
            try:
                self._space.notify_all()
            finally:
                self._space.release()

    def _encode_ahead(self, head: Deferred) -> None:
        """Writer thread, while somebody waits and the background encoder is on `head`: encodes the
        queued deferred events after it that nobody has started, so that a flush's backlog is
        encoded on two cores rather than twice on one."""
        queue = self._queue  # only this thread pops it, so the first indices stay put
        for index in range(min(len(queue), _LOOK_AHEAD)):
            if head.done:
                return
            item = queue[index]
            if item.__class__ is Deferred:
                item.compute()


def _background_alive() -> bool:
    thread = _background.encoder_thread()
    return thread is not None and thread.is_alive()


class _Waiting:
    """Counts a caller as waiting on the writer for the duration of a `with` block."""

    __slots__ = ("writer",)

    def __init__(self, writer: DeferredWrites):
        self.writer = writer

    def __enter__(self) -> None:
        with self.writer._waiters_lock:
            self.writer._waiters += 1
        self.writer._wake.set()

    def __exit__(self, *exc_info) -> None:
        with self.writer._waiters_lock:
            self.writer._waiters -= 1
