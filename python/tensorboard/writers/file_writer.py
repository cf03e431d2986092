"""The low-level API's writer (FileWriter + tensorboard.summary.*): `FileWriter` takes Summary protos
(or their bytes) and Events and queues them, serialized, for one event file of `logdir`."""
from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, ContextManager, Iterator, Mapping

from tensorboard import process
from tensorboard.events import wire
from tensorboard.events.event_file import EventFileWriter, WriterClosedError
from tensorboard.events.storage import storage_for
from tensorboard.src import event_pb2, graph_pb2, summary_pb2
from tensorboard.src.pool import is_message
from tensorboard.values import background
from tensorboard.values.args import check_step, check_walltime


class FileWriter:
    """Writes Summary protos and Events to a new event file in `logdir`, asynchronously.

    Args:
        logdir: The run directory, or a URL (s3://, gs://, ... through fsspec).
        max_queue: Queued events that wake the writer thread for a batch write.
        flush_secs: The longest an event waits in memory before it is written.
        filename_suffix: Appended to the event file's name.
        fsync: fsync the file on every flush (power-loss durability, slower).
        max_pending_bytes: Memory the queue may hold (default 64 KiB); past it adding waits.
        max_pending_snapshot_bytes: Device memory the copies of JAX/MXNet/GPU values awaiting conversion
            may hold (default 256 MiB, see tensorboard.values.deferred); past it adding waits.
        on_error: "raise" (default) raises an I/O error at the next add/flush/close; "warn" warns once,
            drops and counts what cannot be written and retries (see tensorboard.events.event_file).
        max_file_bytes: Roll over to a new event file at this size (default: 16 MiB on object stores).
        storage_options: fsspec options for a remote logdir URL (e.g. {"endpoint_url": ...} for S3).

    Raises:
        TypeError: `logdir` is None.
        ValueError: An invalid option (`max_queue`, `flush_secs`, `on_error`, ...).

    Examples:
        >>> from tensorboard import FileWriter, summary
        >>> with FileWriter("runs/exp1") as writer:
        ...     writer.add_summary(summary.scalar("loss", 0.5), global_step=1)
    """

    def __init__(self, logdir: str | os.PathLike, max_queue: int = 10, flush_secs: float = 120,
                 filename_suffix: str = "", *, fsync: bool = False, max_pending_bytes: int | None = None,
                 max_pending_snapshot_bytes: int | None = None,
                 on_error: str = "raise", max_file_bytes: int | None = None,
                 storage_options: Mapping[str, Any] | None = None):
        if logdir is None:
            raise TypeError("logdir must be a path or URL, got None")
        self._logdir = os.fspath(logdir)
        self._options = dict(max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix,
                             fsync=fsync, on_error=on_error, max_file_bytes=max_file_bytes)
        if max_pending_bytes is not None:
            self._options["max_pending_bytes"] = max_pending_bytes
        if max_pending_snapshot_bytes is not None:
            self._options["max_pending_snapshot_bytes"] = max_pending_snapshot_bytes
        self._storage = storage_for(self._logdir, **dict(storage_options or {}))
        self._lock = threading.Lock()
        self._dropped_before = 0  # dropped by event files already closed
        self._defaults: dict[str, Any] = {}  # use_metadata()'s global_step / walltime
        self._writer: EventFileWriter | None = self._open()
        process.track(self, FileWriter._forget_after_fork)

    def _open(self) -> EventFileWriter:
        """A new event file, opened through upstream's module path so tools that patch it see this logdir."""
        from tensorboard.summary.writer.event_file_writer import open_core

        options = dict(self._options)
        return open_core(self._logdir, options.pop("max_queue"), options.pop("flush_secs"),
                         options.pop("filename_suffix"), dict(options, storage=self._storage, encoder=background))

    @property
    def storage(self):
        """The storage layer of this writer's logdir (local files or fsspec)."""
        return self._storage

    @property
    def dropped_events(self) -> int:
        """Events on_error="warn" could not write and dropped, over every file of this writer (0 with "raise")."""
        writer = self._writer
        return self._dropped_before + (writer.dropped_events if writer is not None else 0)

    def get_logdir(self) -> str:
        """The directory (or URL) this writer writes to."""
        return self._logdir

    @property
    def path(self) -> str:
        """The current event file."""
        return self._event_writer().path

    @property
    def event_file(self) -> EventFileWriter:
        """The writer of the current event file (opened again after close()), where samplers write."""
        return self._event_writer()

    def _event_writer(self) -> EventFileWriter:
        writer = self._writer
        if writer is None:
            with self._lock:
                if self._writer is None:
                    self._writer = self._open()
                writer = self._writer
        return writer

    # -- adding ------------------------------------------------------------------------------------

    def add_event_bytes(self, event_bytes: bytes) -> None:
        """Queues an already serialized Event.

        Args:
            event_bytes: The Event's wire bytes (not checked).
        """
        writer = self._writer
        if writer is None:
            writer = self._event_writer()
        try:
            writer.write(event_bytes)
        except WriterClosedError:
            self._closed_under(writer).write(event_bytes)

    def add_deferred(self, item) -> None:
        """Queues an event converted and encoded off this thread from a framework value.

        Args:
            item: A `tensorboard.values.deferred.Deferred`: the value's snapshot and its encoder.
        """
        writer = self._writer
        if writer is None:
            writer = self._event_writer()
        try:
            writer.write_deferred(item)
        except WriterClosedError:
            self._closed_under(writer).write_deferred(item)

    def _closed_under(self, writer: EventFileWriter) -> EventFileWriter:
        """The writer to retry with when `writer` refused an event as closed: a new file if another
        thread's close() got there first (an add after close reopens), else the error stands."""
        if self._writer is writer:
            raise WriterClosedError(f"event file writer for {writer.path} is closed")
        return self._event_writer()

    def add_event(self, event: event_pb2.Event) -> None:
        """Queues an Event proto; a missing wall_time is set to now.

        Args:
            event: An Event proto, ours or upstream's `tensorboard.compat.proto`.

        Raises:
            TypeError: Not an Event proto.
        """
        if not is_message(event, event_pb2.Event):
            raise TypeError(f"event must be a tensorboard Event proto, got {type(event).__name__}")
        if not event.wall_time:
            event = event_pb2.Event.FromString(event.SerializeToString())
            event.wall_time = check_walltime(None)
        self.add_event_bytes(event.SerializeToString())

    def add_summary(self, summary: summary_pb2.Summary | bytes, global_step=None, walltime=None) -> None:
        """Queues a Summary proto (or its serialized bytes) at `global_step`.

        Args:
            summary: A Summary proto (ours or upstream's) or its serialized bytes.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).

        Raises:
            TypeError: Not a Summary proto or bytes.
            ValueError: Bytes that are not a serialized Summary, or a step outside int64.
        """
        if is_message(summary, summary_pb2.Summary):  # ours or upstream's: the same wire format
            summary_bytes = summary.SerializeToString()
        elif isinstance(summary, (bytes, bytearray, memoryview)):
            summary_bytes = bytes(summary)
            try:
                summary_pb2.Summary.FromString(summary_bytes)
            except Exception as err:
                raise ValueError(f"summary: bytes are not a serialized Summary ({err})") from None
        else:
            raise TypeError(f"summary must be a Summary proto or its bytes, got {type(summary).__name__}")
        if self._defaults:
            global_step = self._defaults.get("global_step") if global_step is None else global_step
            walltime = self._defaults.get("walltime") if walltime is None else walltime
        step = check_step(global_step)
        self.add_event_bytes(wire.summary_event(summary_bytes, step, check_walltime(walltime)))

    def add_graph(self, graph, input_to_model=None, walltime=None, **kwargs) -> None:
        """Logs a model graph: a GraphDef (or its bytes) or any model `tensorboard.graph` converts.

        Args:
            graph: A GraphDef, its bytes, or a model (see `tensorboard.graph.to_graph_def`).
            input_to_model: Example inputs for the models that need them.
            walltime: Seconds since the epoch; None is now.
            **kwargs: Passed to the framework's converter.

        Raises:
            TypeError: A model no converter takes.
            ValueError: Bytes that are not a serialized GraphDef.
        """
        if isinstance(graph, (bytes, bytearray)):
            from tensorboard.graph import parse_graph_def

            graph_bytes = bytes(graph)
            parse_graph_def(graph_bytes, "graph")
        elif is_message(graph, graph_pb2.GraphDef):
            graph_bytes = graph.SerializeToString()
        else:
            from tensorboard.graph import to_graph_def

            graph_bytes = to_graph_def(graph, input_to_model, **kwargs).SerializeToString()
        event = event_pb2.Event(wall_time=check_walltime(walltime), graph_def=graph_bytes)
        self.add_event_bytes(event.SerializeToString())

    def add_onnx_graph(self, graph, walltime=None) -> None:
        """Logs an ONNX model as a graph (tensorboardX's FileWriter method).

        Args:
            graph: An ONNX ModelProto or a `.onnx` path.
            walltime: Seconds since the epoch; None is now.

        Raises:
            TypeError: Neither a ModelProto nor a `.onnx` path.
        """
        from tensorboard.graph import framework_of

        if framework_of(graph) != "onnx":
            raise TypeError(f"graph: expected an ONNX ModelProto or a '.onnx' path, got {graph!r:.80}")
        self.add_graph(graph, walltime=walltime)

    def add_session_log(self, status: str = "START", global_step=None, walltime=None, msg: str = "") -> None:
        """Logs a SessionLog; START at a step makes readers drop the events logged earlier at that step or later.

        Args:
            status: "START", "STOP", "CHECKPOINT" or "STATUS_UNSPECIFIED".
            global_step: The step; None is 0.
            walltime: Seconds since the epoch; None is now.
            msg: The log's message.

        Raises:
            ValueError: An unknown status.
        """
        names = event_pb2.SessionLog.SessionStatus.keys()
        if status not in names:
            raise ValueError(f"status: expected one of {', '.join(names)}, got {status!r}")
        status_value = event_pb2.SessionLog.SessionStatus.Value(status)
        event = event_pb2.Event(wall_time=check_walltime(walltime), step=check_step(global_step),
                                session_log=event_pb2.SessionLog(status=status_value, msg=msg))
        self.add_event_bytes(event.SerializeToString())

    # -- lifecycle ---------------------------------------------------------------------------------

    def flush(self) -> None:
        """Returns once every queued event is written to the event file."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file; idempotent. `reopen()` starts a new file."""
        with self._lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            finally:
                self._dropped_before += writer.dropped_events

    def reopen(self) -> None:
        """Starts a new event file after `close()`; does nothing while the writer is open."""
        self._event_writer()

    def _forget_after_fork(self) -> None:
        """In a forked child: drop the parent's file and queue; the next add opens a file of our own."""
        if self._writer is not None:
            self._writer.abandon()
        self._writer = None
        self._lock = threading.Lock()

    def use_metadata(self, *, global_step=None, walltime=None) -> ContextManager["FileWriter"]:
        """A `with` block in which summaries added without a step or wall time get these (as tensorboardX's).

        Args:
            global_step: The step of the block's summaries.
            walltime: Their wall time, in seconds since the epoch.

        Returns:
            A context manager that yields this writer.

        Raises:
            ValueError: Neither argument given (at the `with`).
            RuntimeError: Already inside a `use_metadata` block of this writer.
        """
        return defaults_block(self, self._defaults, global_step, walltime)

    def __enter__(self) -> "FileWriter":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


@contextlib.contextmanager
def defaults_block(writer, defaults: dict, global_step, walltime) -> Iterator:
    """use_metadata()'s block: sets a writer's default step / wall time, checked at the `with`, not at a later add."""
    if defaults:
        raise RuntimeError("use_metadata: already inside a use_metadata() block of this writer")
    if global_step is None and walltime is None:
        raise ValueError("use_metadata: give global_step, walltime or both")
    if global_step is not None:
        defaults["global_step"] = check_step(global_step)
    if walltime is not None:
        defaults["walltime"] = check_walltime(walltime)
    try:
        yield writer
    finally:
        defaults.clear()
