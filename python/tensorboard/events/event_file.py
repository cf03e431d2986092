"""The asynchronous event file writer: callers enqueue serialized events, a thread frames and writes them.

`write()` returns at once and blocks only when the bounded queue is
full; a background thread batches queued events into one framed write. I/O errors follow
`on_error`: "raise" (default) stores the first error and raises it to the caller at the next
`write()`, `flush()` or `close()`; "warn" warns once, drops (and counts) the events it cannot
write, and retries with backoff, starting a new file when the old one cannot be appended to.
Records are written whole or not at all (a failed write is cut back), so a reader never sees
a corrupt record, and everything written before `flush()` returned stays readable.

The writer owns the queue and its thread (as upstream's `_AsyncWriter` does) and holds its
collaborators, each owning its state: `EventFiles` (the files and the on_error policy),
`DeferredWrites` (values still computing on a device) and the process lifecycle (`_lifecycle`).
"""
from __future__ import annotations

import os
import threading
import time
from collections import deque

from tensorboard.events import _lifecycle, _signals
from tensorboard.events._deferred_writes import DeferredWrites
from tensorboard.events._files import ON_ERROR_CHOICES, RETRY_FIRST, EventFiles, EventWriteWarning  # noqa: F401
from tensorboard.events._lifecycle import _open_writers, flush_open_writers  # noqa: F401 (re-exported)
from tensorboard.events._wakeup import Wakeup
from tensorboard.events.deferred_event import DEFAULT_MAX_PENDING_SNAPSHOT_BYTES, Deferred, Encoder
from tensorboard.events.file_names import FILE_VERSION, event_file_name  # noqa: F401 (re-exported)
from tensorboard.events.storage import storage_for

_BATCH_BYTES = 64 << 10  # one write's buffer
DEFAULT_MAX_PENDING_BYTES = 64 << 10  # ~1,500 scalar events; bounds memory when the disk is slower than the caller
_PER_ITEM_OVERHEAD = 64  # rough bytes of bookkeeping per queued event, for the memory bound


class WriterClosedError(ValueError):
    """Raised when writing to a closed writer."""


class _Barrier:
    """Queued behind events; set by the writer thread once everything before it is written and flushed."""

    __slots__ = ("done", "error", "fsync")

    def __init__(self, fsync: bool):
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.fsync = fsync


class EventFileWriter:
    """Writes serialized `Event`s to one new event file in `logdir`, in order, from a background thread.

    Args:
        logdir: The run directory, or a URL.
        max_queue: Queued events that wake the writer thread for a batch write.
        flush_secs: Longest time an event waits in memory before it is written (and, on object
            stores, uploaded).
        filename_suffix: Appended to the file's name (no path separators).
        max_pending_bytes: Memory bound of the queue; `write` blocks while it is exceeded.
        fsync: Also fsync on every flush, for power-loss durability.
        storage: The storage layer to write through; None: the one of `logdir`.
        on_error: "raise" (default): the first I/O error is raised at the next write/flush/close and
            the writer stays failed. "warn": warn once, drop and count (`dropped_events`) what cannot
            be written, retry with backoff (1 s doubling to 60 s), open a new file if the old one is
            gone or damaged, and warn again once writing works.
        max_file_bytes: Start a new event file (a later name in the same run) once the current one
            is this big; default None for local files, 16 MiB on object stores (bounds the upload buffer).
        source_writer: Recorded in each file's first event as `source_metadata.writer` (upstream's
            EventFileWriter records its module name there); empty: no source_metadata.
        max_pending_snapshot_bytes: Device bytes that queued deferred values (write_deferred) may hold.
        encoder: The background encoder of deferred events (FileWriter passes tensorboard.values.background);
            None: the writer thread encodes them itself when it writes them.
    """

    def __init__(self, logdir: str, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = "",
                 max_pending_bytes: int = DEFAULT_MAX_PENDING_BYTES, fsync: bool = False, storage=None,
                 on_error: str = "raise", max_file_bytes: int | None = None, source_writer: str = "",
                 max_pending_snapshot_bytes: int = DEFAULT_MAX_PENDING_SNAPSHOT_BYTES, encoder: Encoder | None = None):
        if not isinstance(max_queue, int) or max_queue < 1:
            raise ValueError(f"max_queue must be a positive int, got {max_queue!r}")
        if not isinstance(flush_secs, (int, float)) or not flush_secs > 0:
            raise ValueError(f"flush_secs must be a positive number, got {flush_secs!r}")
        if not isinstance(filename_suffix, str) or "/" in filename_suffix or os.sep in filename_suffix:
            raise ValueError(f"filename_suffix must be a str without path separators, got {filename_suffix!r}")
        if on_error not in ON_ERROR_CHOICES:
            raise ValueError(f"on_error must be one of {ON_ERROR_CHOICES}, got {on_error!r}")
        if max_file_bytes is not None and (not isinstance(max_file_bytes, int) or max_file_bytes < 1):
            raise ValueError(f"max_file_bytes must be a positive int or None, got {max_file_bytes!r}")
        if not isinstance(source_writer, str):
            raise ValueError(f"source_writer must be a str, got {source_writer!r}")
        storage = storage or storage_for(os.fspath(logdir))
        self.logdir = getattr(storage, "canonical", str)(os.fspath(logdir))  # file:///x writes to /x
        self._max_queue = max_queue
        self._flush_secs = float(flush_secs)
        self._max_pending_bytes = max_pending_bytes
        self._fsync = fsync
        self._on_error = on_error
        self._files = EventFiles(storage, self.logdir, filename_suffix, source_writer, on_error,
                                 max_file_bytes if max_file_bytes is not None
                                 else getattr(storage, "default_max_file_bytes", None))
        self._files.open_first(fsync)  # on_error="raise": errors here reach the constructor's caller
        self._queue: deque = deque()
        self._bytes_in = 0  # written by producers only
        self._bytes_out = 0  # written by the writer thread only
        self._wake = Wakeup()  # not a threading.Event: the SIGTERM flush sets it too (see _wakeup)
        self._deferred = DeferredWrites(self._wake, self._flush_secs, max_pending_snapshot_bytes, encoder)
        self._next_flush = time.monotonic() + self._flush_secs  # the writer thread's periodic flush
        self._space = threading.Condition(threading.Lock())
        self._error: BaseException | None = None  # the first failure, raised at the callers' next call
        self._closed = False
        self._close_lock = threading.Lock()
        self._on_close: list = []  # callbacks run once the file is closed (a system monitor's stop)
        self._pid = os.getpid()
        self._thread = _lifecycle.WriterThread(self, f"tensorboard-writer:{os.path.basename(self.path)}")
        self._thread.start()
        _lifecycle.track(self, encoder)
        _signals.install_sigterm_flush(flush_open_writers)

    # -- caller side -------------------------------------------------------------------------------

    def write(self, event_bytes: bytes) -> None:
        """Queues one serialized Event; returns at once unless the queue is over its memory bound.

        Args:
            event_bytes: The Event's wire bytes.

        Raises:
            WriterClosedError: The writer is closed.
            OSError: An earlier write failed (on_error="raise").
        """
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
        if self._deferred.error is not None:  # this call's event is queued; the earlier value's error is raised
            self._raise_state()

    def write_deferred(self, item: Deferred) -> None:
        """Queues an event whose value is converted and encoded in the background (see events.deferred_event);
        returns at once unless the snapshots already pending hold more than max_pending_snapshot_bytes.

        Args:
            item: The Deferred event.
        """
        if self._error is not None or self._closed:
            self._raise_state()
        deferred = self._deferred
        deferred.admit(item, self._wait_while)
        queue = self._queue
        queue.append(item)
        self._bytes_in += _PER_ITEM_OVERHEAD
        deferred.submit(item)
        if len(queue) % self._max_queue == 0:  # like write(): the writer wakes for batches, not for each event
            self._wake.set()
            if self._bytes_in - self._bytes_out > self._max_pending_bytes:  # the queue's own bound too: an
                self._wait_for_space()  # encoder starved of CPU must not let the queue grow without limit
        if deferred.error is not None:
            self._raise_state()

    def write_many(self, events) -> None:
        """Queues several serialized Events in order.

        Args:
            events: An iterable of Event wire bytes.
        """
        for event_bytes in events:
            self.write(event_bytes)

    def flush(self) -> None:
        """Returns once everything queued before the call is converted and written (and fsynced if asked)."""
        if self._error is not None or self._deferred.error is not None:
            self._raise_state()
        if self._closed:
            return
        self._check_fork()
        with self._deferred.waiting():
            barrier = self._post_barrier()
            while not barrier.done.wait(0.1):
                if not self._thread.is_alive():
                    break
        if barrier.error is not None or self._error is not None or self._deferred.error is not None:
            self._raise_state()

    def _post_barrier(self, force: bool = False) -> _Barrier:
        barrier = _Barrier(self._fsync)
        self._queue.append(barrier)
        if force:
            self._wake.force()
        else:
            self._wake.set()
        return barrier

    def _flush_for_exit(self, deadline: float) -> bool:
        """Flush that never raises and gives up at `deadline` (monotonic); True when everything got written.

        Used at interpreter exit and from the SIGTERM handler, which may interrupt the main thread
        anywhere, so it takes no lock a caller could be holding (the wake-up is a reentrant queue's
        put, the barrier's Event is its own, and the writer thread stops waiting for `_space`).
        """
        if self._closed and self._pid == os.getpid() and self._thread.is_alive():
            # a close() (this thread's, interrupted, or another's) is writing what was queued before its stop
            self._deferred.exiting = True
            self._wake.force()  # in case the interrupted close() had not woken it yet
            self._thread.join(max(0.0, deadline - time.monotonic()))
            return not self._thread.is_alive()
        if self._closed or self._error is not None or self._pid != os.getpid() or not self._thread.is_alive():
            return self._closed
        self._deferred.exiting = True  # deferred events are encoded by the writer thread now, not in the background
        barrier = self._post_barrier(force=True)
        return barrier.done.wait(max(0.0, deadline - time.monotonic())) and barrier.error is None

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
                self._files.close()  # on_error="warn": a deleted file's recent events, once more
                self._take_files_error()
                _open_writers.discard(self)
                _lifecycle.writer_closed()
                self._run_close_callbacks()
            if self._error is not None or self._deferred.error is not None:
                self._raise_state()

    def on_close(self, callback) -> None:
        """Runs `callback()` once this file is closed, in the closing thread (at once if it already is).
        Samplers that write into the file (tensorboard.system) stop there.

        Args:
            callback: Called with no arguments; an exception it raises is a RuntimeWarning.
        """
        with self._close_lock:
            if not self._closed:
                self._on_close.append(callback)
                return
        callback()

    def _run_close_callbacks(self) -> None:
        callbacks, self._on_close = self._on_close, []
        for callback in callbacks:
            try:
                callback()
            except Exception as err:  # the file is closed either way; the others still run
                import warnings

                warnings.warn(f"a close callback of {self.path} failed: {err!r}", RuntimeWarning, stacklevel=2)

    def abandon(self) -> None:
        """In a forked child: let go of the parent's file without writing to it (the parent still owns it)."""
        self._closed = True
        self._queue = deque()
        _open_writers.discard(self)
        self._files.abandon()

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def on_error(self) -> str:
        return self._on_error

    @property
    def path(self) -> str:
        """The event file being written (a later one after a roll-over or a reopen)."""
        return self._files.path

    @property
    def paths(self) -> list[str]:
        """Every event file this writer started, in order."""
        return self._files.paths

    @property
    def dropped_events(self) -> int:
        """Events on_error="warn" could not write."""
        return self._files.dropped_events

    def __enter__(self) -> "EventFileWriter":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def _raise_state(self) -> None:
        deferred = self._deferred.take_error()
        if deferred is not None:
            raise deferred
        if self._error is not None:
            raise IOError(f"writing {self.path} failed: {self._error}") from self._error
        raise WriterClosedError(f"event file writer for {self.path} is closed")

    def _wait_while(self, over) -> None:
        """Blocks while `over()` holds and the writer thread is alive and healthy, waking it to catch up."""
        with self._deferred.waiting(), self._space:
            while over() and self._error is None and self._thread.is_alive():
                self._wake.set()
                self._space.wait(0.1)

    def _wait_for_space(self) -> None:
        self._wait_while(lambda: self._bytes_in - self._bytes_out > self._max_pending_bytes)
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
        """The writer thread. An unexpected error stops it, and is kept to raise at the callers' next
        call: a flush must not return as if the events were written."""
        try:
            self._loop()
        except BaseException as err:
            if self._error is None:
                self._error = RuntimeError(f"the writer thread stopped: {type(err).__name__}: {err}")
                self._error.__cause__ = err
            raise

    def _loop(self) -> None:
        queue = self._queue
        while True:
            self._wake.wait(max(0.0, min(self._next_flush, self._deferred.head_deadline) - time.monotonic()))
            self._wake.clear()
            stop = self._drain(queue)
            if time.monotonic() >= self._next_flush:
                self._periodic_flush()
                self._next_flush = time.monotonic() + self._flush_secs
            if stop:
                return

    def _periodic_flush(self) -> None:
        """Every flush_secs: uploads buffered data to object stores and notices a deleted file."""
        self._files.flush(False)
        self._take_files_error()

    def _drain(self, queue: deque) -> bool:
        """Writes what is queued; answers barriers; True once the stop signal came."""
        batch: list[bytes] = []
        size = 0
        stop = False
        deferred = self._deferred
        deferred.head_deadline = float("inf")
        limit = self._files.batch_limit(_BATCH_BYTES)
        while True:
            try:
                item = queue.popleft()
            except IndexError:
                break
            if item.__class__ is Deferred:  # counted in as one item's overhead: counted out the same
                if deferred.holds_back(item, self._closed):  # the background encoder is not done: back later
                    queue.appendleft(item)
                    break
                encoded = deferred.encode(item, queue, self._closed)
                self._notify_space()
                if encoded is None:
                    self._bytes_out += _PER_ITEM_OVERHEAD
                else:
                    batch.append(encoded)
                    size += _PER_ITEM_OVERHEAD
                continue
            if item.__class__ is bytes:
                batch.append(item)
                size += len(item) + _PER_ITEM_OVERHEAD
                if size > limit:  # bound one write's buffer (and a file part's size)
                    self._write_batch(batch, size)
                    batch, size = [], 0
                    limit = self._files.batch_limit(_BATCH_BYTES)
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
        if batch:
            self._files.write(batch)
            self._take_files_error()
        self._bytes_out += size
        if self._bytes_in - self._bytes_out <= self._max_pending_bytes:
            self._notify_space()

    def _notify_space(self) -> None:
        """Writer thread: wakes callers waiting for memory (none can be waiting during a SIGTERM flush)."""
        if self._deferred.lock_unless_exiting(self._space):
            try:
                self._space.notify_all()
            finally:
                self._space.release()

    def _take_files_error(self) -> None:
        """on_error="raise": the files' first failure becomes the writer's, raised at callers' next call."""
        if self._error is None and self._files.error is not None:
            self._error = self._files.error

    def _answer_barrier(self, barrier: _Barrier) -> None:
        self._files.flush(barrier.fsync)
        self._take_files_error()
        barrier.error = self._error
        barrier.done.set()


