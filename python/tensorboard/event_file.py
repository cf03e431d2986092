"""The asynchronous event file writer: callers enqueue serialized events, a thread frames and writes them.

Seed 001's design: `write()` returns at once and blocks only when the bounded queue is
full; a background thread batches queued events into one framed write. Errors in that
thread are raised to the caller at the next `write()`, `flush()` or `close()`.
"""
from __future__ import annotations

import atexit
import itertools
import os
import socket
import threading
import time
import weakref
from collections import deque

from tensorboard import record, wire
from tensorboard.storage import storage_for

FILE_VERSION = "brain.Event:2"
DEFAULT_MAX_PENDING_BYTES = 64 << 20
_PER_ITEM_OVERHEAD = 64  # rough bytes of bookkeeping per queued event, for the memory bound
_file_counter = itertools.count()
_counter_lock = threading.Lock()
_open_writers: "weakref.WeakSet[EventFileWriter]" = weakref.WeakSet()


class WriterClosedError(ValueError):
    """Raised when writing to a closed writer."""


def event_file_name(suffix: str = "", now: float | None = None) -> str:
    """events.out.tfevents.<10-digit time>.<host>.<pid>.<counter><suffix>, unique per writer."""
    with _counter_lock:
        counter = next(_file_counter)
    stamp = int(time.time() if now is None else now)
    return f"events.out.tfevents.{stamp:010d}.{socket.gethostname()}.{os.getpid()}.{counter}{suffix}"


class _Barrier:
    """Queued behind events; set by the writer thread once everything before it is written and flushed."""

    __slots__ = ("done", "error", "fsync")

    def __init__(self, fsync: bool):
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.fsync = fsync


class EventFileWriter:
    """Writes serialized `Event`s to one new event file in `logdir`, in order, from a background thread.

    max_queue: queued events that wake the writer thread for a batch write.
    flush_secs: longest time an event waits in memory before it is written.
    max_pending_bytes: memory bound of the queue; `write` blocks while it is exceeded.
    fsync: also fsync on every flush, for power-loss durability.
    """

    def __init__(self, logdir: str, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = "",
                 max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES, fsync: bool = False, storage=None):
        if not isinstance(max_queue, int) or max_queue < 1:
            raise ValueError(f"max_queue must be a positive int, got {max_queue!r}")
        if not isinstance(flush_secs, (int, float)) or not flush_secs > 0:
            raise ValueError(f"flush_secs must be a positive number, got {flush_secs!r}")
        if not isinstance(filename_suffix, str) or "/" in filename_suffix or os.sep in filename_suffix:
            raise ValueError(f"filename_suffix must be a str without path separators, got {filename_suffix!r}")
        self.logdir = os.fspath(logdir)
        self._storage = storage or storage_for(self.logdir)
        self._storage.makedirs(self.logdir)
        self.path = self._storage.join(self.logdir, event_file_name(filename_suffix))
        self._max_queue = max_queue
        self._flush_secs = float(flush_secs)
        self._max_pending_bytes = max_pending_bytes
        self._fsync = fsync
        self._file = self._storage.open_append(self.path)
        self._file.write(record.frame(
            wire.event_header(time.time(), 0) + b"\x1a" + wire.varint(len(FILE_VERSION)) + FILE_VERSION.encode()))
        self._file.flush(fsync)
        self._queue: deque = deque()
        self._bytes_in = 0  # written by producers only
        self._bytes_out = 0  # written by the writer thread only
        self._wake = threading.Event()
        self._space = threading.Condition(threading.Lock())
        self._error: BaseException | None = None
        self._closed = False
        self._close_lock = threading.Lock()
        self._pid = os.getpid()
        self._thread = threading.Thread(target=self._run, name=f"tensorboard-writer:{os.path.basename(self.path)}",
                                        daemon=True)
        self._thread.start()
        _open_writers.add(self)

    # -- caller side -------------------------------------------------------------------------------

    def write(self, event_bytes: bytes) -> None:
        """Queues one serialized Event; returns at once unless the queue is over its memory bound."""
        if self._error is not None or self._closed:
            self._raise_state()
        queue = self._queue
        queue.append(event_bytes)
        self._bytes_in += len(event_bytes) + _PER_ITEM_OVERHEAD
        if len(queue) >= self._max_queue:
            if not self._wake.is_set():
                self._wake.set()
            if self._bytes_in - self._bytes_out > self._max_pending_bytes:
                self._wait_for_space()

    def write_many(self, events) -> None:
        """Queues several serialized Events in order."""
        for event_bytes in events:
            self.write(event_bytes)

    def flush(self) -> None:
        """Returns once everything queued before the call is written to the file (and fsynced if asked)."""
        if self._error is not None:
            self._raise_state()
        if self._closed:
            return
        self._check_fork()
        barrier = _Barrier(self._fsync)
        self._queue.append(barrier)
        self._wake.set()
        while not barrier.done.wait(0.1):
            if not self._thread.is_alive():
                break
        if barrier.error is not None or self._error is not None:
            self._raise_state()

    def close(self) -> None:
        """Flushes and closes the file; idempotent. Raises a pending background error once."""
        with self._close_lock:
            if self._closed:
                return
            try:
                if self._error is None:
                    self.flush()
            finally:
                self._closed = True
                self._queue.append(None)  # stop signal
                self._wake.set()
                if self._pid == os.getpid() and self._thread.is_alive():
                    self._thread.join()
                try:
                    self._file.close()
                except OSError as err:
                    if self._error is None:
                        self._error = err
                _open_writers.discard(self)
            if self._error is not None:
                self._raise_state()

    def abandon(self) -> None:
        """In a forked child: let go of the parent's file without writing to it (the parent still owns it)."""
        self._closed = True
        self._queue = deque()
        _open_writers.discard(self)
        try:
            getattr(self._file, "abandon", self._file.close)()
        except OSError:
            pass

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "EventFileWriter":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _raise_state(self) -> None:
        if self._error is not None:
            raise IOError(f"writing {self.path} failed: {self._error}") from self._error
        raise WriterClosedError(f"event file writer for {self.path} is closed")

    def _wait_for_space(self) -> None:
        with self._space:
            while (self._bytes_in - self._bytes_out > self._max_pending_bytes and self._error is None
                   and self._thread.is_alive()):
                self._wake.set()
                self._space.wait(0.1)
        if self._error is not None:
            self._raise_state()

    def _check_fork(self) -> None:
        """After fork() the child has no writer thread: it gets its own file instead of sharing the parent's."""
        if self._pid != os.getpid():
            raise RuntimeError(
                f"event file writer for {self.path} was created in process {self._pid} and used after fork() "
                f"in process {os.getpid()}; create a new writer in the child (SummaryWriter does this for you)")

    # -- writer thread -----------------------------------------------------------------------------

    def _run(self) -> None:
        queue = self._queue
        deadline = time.monotonic() + self._flush_secs
        while True:
            self._wake.wait(max(0.0, deadline - time.monotonic()))
            self._wake.clear()
            stop = self._drain(queue)
            if time.monotonic() >= deadline:
                deadline = time.monotonic() + self._flush_secs
            if stop:
                return

    def _drain(self, queue: deque) -> bool:
        """Writes what is queued; answers barriers; True once the stop signal came."""
        batch: list[bytes] = []
        size = 0
        stop = False
        while True:
            try:
                item = queue.popleft()
            except IndexError:
                break
            if item.__class__ is bytes:
                batch.append(item)
                size += len(item) + _PER_ITEM_OVERHEAD
                if size > (4 << 20):  # bound one write's buffer
                    self._write_batch(batch, size)
                    batch, size = [], 0
                continue
            self._write_batch(batch, size)
            batch, size = [], 0
            if item is None:
                stop = True
                break
            self._answer_barrier(item)
        self._write_batch(batch, size)
        return stop

    def _write_batch(self, batch: list, size: int) -> None:
        if not batch:
            return
        if self._error is None:
            try:
                self._file.write(record.frame_many(batch))
            except BaseException as err:  # raised to the caller at its next call
                self._error = err
        self._bytes_out += size
        if self._bytes_in - self._bytes_out <= self._max_pending_bytes:
            with self._space:
                self._space.notify_all()

    def _answer_barrier(self, barrier: _Barrier) -> None:
        if self._error is None:
            try:
                self._file.flush(barrier.fsync)
            except BaseException as err:
                self._error = err
        barrier.error = self._error
        barrier.done.set()


def _close_all_at_exit() -> None:
    """Flushes and closes writers the program left open, so queued events are not lost at exit."""
    for writer in list(_open_writers):
        try:
            writer.close()
        except Exception:
            pass


atexit.register(_close_all_at_exit)
