"""Upstream's `tensorboard.summary.writer.event_file_writer`, served by our asynchronous event file writer.

torch.utils.tensorboard and upstream's own summary code write through `EventFileWriter` here:
same constructor, file names and first record as upstream's, but events go to
`tensorboard.event_file.EventFileWriter` (native CRC-32C, batched writes, errors raised).
"""
from __future__ import annotations

import threading

from tensorboard import event_file

SOURCE_WRITER = "tensorboard.summary.writer.event_file_writer"  # upstream's first event names its writer so
_EVENT_NAME = "tensorboard.Event"
_accepted_classes: set = set()  # Event classes seen (upstream's and ours: two descriptor pools, one wire format)


class AtomicCounter:
    """A thread-safe counter; `get()` returns the current value and then increments it (upstream's API)."""

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

    def __init__(self, logdir, max_queue_size: int = 10, flush_secs: float = 120, filename_suffix: str = ""):
        self._logdir = logdir
        self._max_queue, self._flush_secs = _core_settings(max_queue_size, flush_secs)
        if not isinstance(filename_suffix, str):
            raise TypeError(f"filename_suffix must be a str, got {filename_suffix!r}")
        self._suffix = filename_suffix
        self._lock = threading.Lock()
        self._core = self._open()

    def _open(self) -> event_file.EventFileWriter:
        core = event_file.EventFileWriter(self._logdir, max_queue=self._max_queue, flush_secs=self._flush_secs,
                                          filename_suffix=self._suffix, source_writer=SOURCE_WRITER)
        self._write = core.write
        return core

    def get_logdir(self):
        """The directory the event file is written to, as given to the constructor."""
        return self._logdir

    @property
    def path(self) -> str:
        """The event file currently written (the core writer's)."""
        return self._core.path

    def add_event(self, event) -> None:
        """Queues one `Event` (upstream's or ours); raises OSError once closed, TypeError for anything else."""
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
