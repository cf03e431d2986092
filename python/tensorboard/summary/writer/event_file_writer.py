"""Upstream's `tensorboard.summary.writer.event_file_writer`, served by our asynchronous event file writer.

torch.utils.tensorboard and upstream's own summary code write through `EventFileWriter` here:
same constructor, file names and first record as upstream's, but events go to
`tensorboard.events.event_file.EventFileWriter` (native CRC-32C, batched writes, errors raised).
Our own FileWriter and SummaryWriter open their files through `EventFileWriter` here too (looked up
at each open), so tools that patch this class to find logdirs (wandb) see every writer.
`_AsyncWriter` and `_AsyncWriterThread` are upstream's queue-and-thread writer over any object with
write/flush/close, for code that uses them directly.
"""
from __future__ import annotations

import os  # noqa: F401 (upstream's module-level names: os, queue, socket, threading, time)
import queue
import socket  # noqa: F401
import threading
import time

from tensorboard.events import event_file

SOURCE_WRITER = "tensorboard.summary.writer.event_file_writer"  # upstream's first event names its writer so
_EVENT_NAME = "tensorboard.Event"
_accepted_classes: set = set()  # Event classes seen (upstream's and ours: two descriptor pools, one wire format)


class AtomicCounter:
    """A thread-safe counter; `get()` returns the current value and then increments it (upstream's API).

    Args:
        initial_value: The first value `get()` returns.
    """

    def __init__(self, initial_value: int):
        self._value = initial_value
        self._lock = threading.Lock()

    def get(self) -> int:
        with self._lock:
            value = self._value
            self._value += 1
            return value


_global_uid = AtomicCounter(0)  # kept for code that imports it; our file names carry the core's own counter


def _check_event(event) -> None:
    """Accepts an `Event` of any descriptor pool (upstream's `compat.proto` or ours); TypeError otherwise."""
    descriptor = getattr(type(event), "DESCRIPTOR", None)
    if getattr(descriptor, "full_name", None) != _EVENT_NAME or not hasattr(event, "SerializeToString"):
        raise TypeError(f"Expected an event_pb2.Event proto, but got {type(event)}")
    _accepted_classes.add(type(event))


def _core_settings(max_queue_size, flush_secs) -> tuple[int, float]:
    """Upstream's arguments as our core's: a non-positive size (unbounded in upstream) or flush interval
    (flush after every event in upstream) writes each event as soon as the writer thread gets it."""
    if isinstance(max_queue_size, bool) or not isinstance(max_queue_size, int):
        raise TypeError(f"max_queue_size must be an int, got {max_queue_size!r}")
    if isinstance(flush_secs, bool) or not isinstance(flush_secs, (int, float)) or flush_secs != flush_secs:
        raise TypeError(f"flush_secs must be a number, got {flush_secs!r}")
    if flush_secs <= 0:
        return 1, 1.0
    return max(1, max_queue_size), float(flush_secs)


class EventFileWriter:
    """Writes `Event` protos to a new event file in `logdir` from a background thread (upstream's API).

    Differences from upstream, all on the safe side: an I/O error of the writer thread is raised at
    the next add_event/flush AND at close (upstream's close swallows it); events wait in memory until
    `max_queue_size` of them are queued, `flush_secs` pass or `flush()` is called (upstream writes each
    one at once, opening the file per event); `reopen()` exists (torch's FileWriter.reopen calls it;
    upstream has none).
    """

    def __init__(self, logdir, max_queue_size: int = 10, flush_secs: float = 120, filename_suffix: str = "",
                 *, core_options: dict | None = None):
        """Upstream's constructor.

        Args:
            logdir: The directory of the event file.
            max_queue_size: Events held in memory before a write; 0 or less writes each at once.
            flush_secs: The longest an event waits in memory; 0 or less writes each at once.
            filename_suffix: Appended to the file's name.
            core_options: Our FileWriter's settings for `tensorboard.events.event_file.EventFileWriter`,
                taken as they are (max_queue, flush_secs, storage, fsync, on_error, ...) instead of
                upstream's two.

        Raises:
            TypeError: Arguments of the wrong type.
        """
        self._logdir = logdir
        self._from_environment = core_options is None  # another library's writer: TB_SYSTEM_METRICS applies
        if not isinstance(filename_suffix, str):
            raise TypeError(f"filename_suffix must be a str, got {filename_suffix!r}")
        if core_options is None:
            max_queue, flush_secs = _core_settings(max_queue_size, flush_secs)
            core_options = dict(max_queue=max_queue, flush_secs=flush_secs, source_writer=SOURCE_WRITER)
        self._core_options = dict(core_options, filename_suffix=filename_suffix)
        self._lock = threading.Lock()
        self._core = self._open()

    def _open(self) -> event_file.EventFileWriter:
        core = event_file.EventFileWriter(self._logdir, **self._core_options)
        self._write = core.write
        if self._from_environment:
            from tensorboard import system

            system.start_from_environment(core)
        return core

    @property
    def event_file(self) -> event_file.EventFileWriter:
        """Our writer of the current event file, where samplers (tensorboard.system) write."""
        return self._core

    def get_logdir(self):
        """The directory the event file is written to, as given to the constructor."""
        return self._logdir

    @property
    def path(self) -> str:
        """The event file currently written (the core writer's)."""
        return self._core.path

    def add_event(self, event) -> None:
        """Queues one `Event` (upstream's or ours).

        Args:
            event: An Event proto.

        Raises:
            OSError: The writer is closed.
            TypeError: Not an Event proto.
        """
        if event.__class__ not in _accepted_classes:
            _check_event(event)
        try:
            self._write(event.SerializeToString())
        except event_file.WriterClosedError:
            raise OSError("Writer is closed") from None

    def flush(self) -> None:
        """Returns once every event added before the call is in the file (in the kernel); OSError once closed."""
        if self._core.closed:
            raise OSError("Writer is closed")
        self._core.flush()

    def close(self) -> None:
        """Writes what is queued and closes the file; idempotent. Raises a pending write error (upstream hides it)."""
        with self._lock:
            self._core.close()

    def reopen(self) -> None:
        """After close(): continue in a new event file in the same logdir; does nothing while open."""
        with self._lock:
            if self._core.closed:
                self._core = self._open()


def open_core(logdir, max_queue: int, flush_secs: float, filename_suffix: str,
              core_options: dict) -> event_file.EventFileWriter:
    """Opens an event file for our FileWriter through this module's `EventFileWriter`, looked up now,
    so a class patched in later (wandb.tensorboard.patch, sync_tensorboard) is constructed and sees
    `logdir`. A replacement not built on ours is not used (it would write a second file).

    Args:
        logdir: The run directory.
        max_queue: As `tensorboard.events.event_file.EventFileWriter`'s.
        flush_secs: As `tensorboard.events.event_file.EventFileWriter`'s.
        filename_suffix: Appended to the file's name.
        core_options: The core writer's other options (storage, fsync, on_error, ...).

    Returns:
        The `tensorboard.events.event_file.EventFileWriter` opened.
    """
    opener = EventFileWriter
    options = dict(core_options, max_queue=max_queue, flush_secs=flush_secs)
    if not (isinstance(opener, type) and issubclass(opener, _OURS)):
        opener = _OURS
    return opener(logdir, max_queue, flush_secs, filename_suffix, core_options=options)._core


_OURS = EventFileWriter


class _AsyncWriter:
    """Upstream's asynchronous byte writer: `write` queues bytes for `record_writer` (anything with
    write/flush/close), a daemon `_AsyncWriterThread` writes them and flushes every `flush_secs`."""

    def __init__(self, record_writer, max_queue_size: int = 20, flush_secs: float = 120):
        self._writer = record_writer
        self._closed = False
        self._byte_queue: queue.Queue = queue.Queue(max_queue_size)
        self._worker = _AsyncWriterThread(self._byte_queue, record_writer, flush_secs)
        self._lock = threading.Lock()
        self._worker.start()

    def write(self, bytestring: bytes) -> None:
        """Queues `bytestring` (blocks while the queue is full); IOError once closed, or the thread's error."""
        with self._lock:  # one caller at a time: a check passed here cannot go stale before the put
            self._check_worker_status()
            if self._closed:
                raise IOError("Writer is closed")
            self._byte_queue.put(bytestring)
            self._check_worker_status()

    def flush(self) -> None:
        """Returns once everything queued before the call is written, then flushes `record_writer`."""
        with self._lock:
            self._check_worker_status()
            if self._closed:
                raise IOError("Writer is closed")
            self._byte_queue.join()
            self._writer.flush()
            self._check_worker_status()

    def close(self) -> None:
        """Writes what is queued, stops the thread, flushes and closes `record_writer`; idempotent."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._worker.stop()
            self._writer.flush()
            self._writer.close()

    def _check_worker_status(self) -> None:
        """Raises the exception that stopped the writer thread, if any."""
        if self._worker.exception is not None:
            raise self._worker.exception


class _AsyncWriterThread(threading.Thread):
    """The daemon thread of `_AsyncWriter`: writes queued bytes, flushes at most every `flush_secs`
    (the first write at once), and on an error keeps it in `exception` and empties the queue so no
    caller stays blocked. `stop()` ends it after what is queued."""

    def __init__(self, queue: queue.Queue, record_writer, flush_secs: float):
        super().__init__(daemon=True)
        self.exception: BaseException | None = None
        self._queue = queue
        self._record_writer = record_writer
        self._flush_secs = flush_secs
        self._next_flush_time = 0.0
        self._has_pending_data = False
        self._shutdown_signal = object()

    def stop(self) -> None:
        self._queue.put(self._shutdown_signal)
        self.join()

    def run(self) -> None:
        try:
            self._run()
        except Exception as err:
            self.exception = err
            self._release_waiters()
            raise

    def _release_waiters(self) -> None:
        """Takes every queued item off, so callers blocked in put() or join() return and see the error."""
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                return
            self._queue.task_done()

    def _run(self) -> None:
        while True:
            data = self._next_item(self._next_flush_time - time.time())
            if data is self._shutdown_signal:
                return
            now = time.time()
            if now > self._next_flush_time:
                if self._has_pending_data:  # nothing new: no flush (an upload, on some file systems)
                    self._record_writer.flush()
                    self._has_pending_data = False
                self._next_flush_time = now + self._flush_secs

    def _next_item(self, wait: float):
        """Takes one item (waiting up to `wait` s) and writes it; None when none came in time."""
        try:
            data = self._queue.get(True, wait) if wait > 0 else self._queue.get_nowait()
        except queue.Empty:
            return None
        if data is self._shutdown_signal:
            self._queue.task_done()
            return data
        try:
            self._record_writer.write(data)
            self._has_pending_data = True
        finally:
            if data:
                self._queue.task_done()
        return None


def __getattr__(name: str):
    """Upstream's module-level imports (`event_pb2`, `RecordWriter`, `tf`), loaded only when asked for."""
    if name == "event_pb2":
        from tensorboard.compat.proto import event_pb2

        return event_pb2
    if name == "RecordWriter":
        from tensorboard.summary.writer.record_writer import RecordWriter

        return RecordWriter
    if name == "tf":
        from tensorboard.compat import tf

        return tf
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
