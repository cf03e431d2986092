"""The high-level writer in torch.utils.tensorboard's and tensorboardX's positional order: `SummaryWriter`,
one `add_*` per data type (MXBoard's order: tensorboard.mxboard.SummaryWriter, same methods underneath).

This module holds the writer's plumbing (runs, sub-runs, defaults, lifecycle); the `add_*` methods
live in `_scalar_methods`, `_media_methods` and `_structure_methods`, grouped by what they log, and
use of the writer what `_host` declares.
"""
from __future__ import annotations

import inspect
import os
import threading
from typing import Any, Callable, ContextManager, Mapping, Sequence

from tensorboard import process, system
from tensorboard.events import wire
from tensorboard.src import summary_pb2
from tensorboard.values import background
from tensorboard.values import deferred as _deferred
from tensorboard.values.args import check_step, check_walltime, pick
from tensorboard.writers._media_methods import MediaMethods
from tensorboard.writers._scalar_methods import RunScalars, ScalarMethods
from tensorboard.writers._structure_methods import CustomLayouts, HparamsSessions, StructureMethods
from tensorboard.writers.file_writer import FileWriter, defaults_block


def _system_choices(system_metrics, metadata) -> tuple[float | None, bool]:
    """The sampling interval (None: off) and the metadata switch, from the arguments, else the environment."""
    settings = system.settings_from_environment()
    if system_metrics is None:
        interval = settings.interval
    elif system_metrics is True:
        interval = settings.interval or system.DEFAULT_INTERVAL
    elif system_metrics is False:
        interval = None
    else:
        interval = system.check_interval(system_metrics, "system_metrics")
    if metadata is None:
        metadata = True if settings.metadata is None else settings.metadata
    elif not isinstance(metadata, bool):
        raise ValueError(f"metadata must be True, False or None, got {metadata!r}")
    return interval, metadata


def default_logdir(comment: str = "") -> str:
    """runs/<Mon>DD_HH-MM-SS_<host><comment>: tensorboardX's and torch's run name when no logdir is given."""
    import socket
    from datetime import datetime

    return os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname() + comment)


class SummaryWriter(ScalarMethods, MediaMethods, StructureMethods):
    """Logs scalars, histograms, images, audio, text, curves, embeddings, hparams and graphs to `logdir`.

    Every method takes torch.utils.tensorboard's positional order (tensorboardX's for methods torch
    does not have); MXBoard's keyword names (`value`, `values`, `audio`, `sample_rate`, `bins`, ...)
    work as keywords. Orders are never guessed from the values: MXBoard's positional order is
    `tensorboard.mxboard.SummaryWriter`'s, and an invalid argument raises TypeError or ValueError
    naming the parameter and this class's signature.

    Examples:
        >>> from tensorboard import SummaryWriter
        >>> with SummaryWriter("runs/exp1") as writer:
        ...     for step in range(100):
        ...         writer.add_scalar("train/loss", 1 / (step + 1), step)
    """

    _public_name = "tensorboard.SummaryWriter"
    _order_note = ": torch.utils.tensorboard's order; MXBoard's is tensorboard.mxboard.SummaryWriter's"

    def __new__(cls, *args, **kwargs):
        # Distributed training (and tensorboardX's write_to_disk=False): a process that does not
        # write gets a writer whose methods do nothing. The arguments are bound as __init__ takes them.
        from tensorboard import distributed

        given = inspect.signature(cls.__init__).bind(None, *args, **kwargs).arguments
        given.update(given.pop("kwargs", {}))
        rank, write_ranks = given.get("rank"), given.get("write_ranks", (0,))
        if given.get("write_to_disk", True) and distributed.resolve(rank, write_ranks,
                                                                    given.get("rank_subdir", False))[0]:
            return super().__new__(cls)
        return object.__new__(distributed.null_writer_class(cls))

    def __init__(self, logdir: str | os.PathLike | None = None, comment: str = "", purge_step: int | None = None,
                 max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = "", write_to_disk: bool = True,
                 *, log_dir: str | os.PathLike | None = None, fsync: bool = False, on_error: str = "raise",
                 max_file_bytes: int | None = None, storage_options: Mapping[str, Any] | None = None,
                 rank: int | None = None, write_ranks=(0,), rank_subdir: bool = False, verbose: bool = True,
                 system_metrics: bool | float | None = None, metadata: bool | None = None):
        """torch's positional order (log_dir, comment, purge_step, max_queue, flush_secs, filename_suffix),
        then tensorboardX's write_to_disk.

        Args:
            logdir: The run directory, or a URL (s3://, gs://, ... through fsspec). None:
                `runs/<Mon>DD_HH-MM-SS_<host><comment>`, a new run per writer, as in tensorboardX and torch.
            comment: Appended to the run name made when `logdir` is None.
            purge_step: Where a resumed run restarts: readers drop the events logged earlier at this
                step or later.
            max_queue: Queued events that wake the writer thread for a batch write.
            flush_secs: The longest an event waits in memory before it is written.
            filename_suffix: Appended to the event file's name.
            write_to_disk: False (tensorboardX's) gives a writer that writes nothing.
            log_dir: torch's keyword for `logdir`.
            fsync: fsync the event file on every flush (power-loss durability, slower).
            on_error: "raise": an I/O error is raised at the next add, flush or close. "warn": warn
                once, drop and count (`dropped_events`) what cannot be written, and retry.
            max_file_bytes: Start a new event file at this size (default: none locally, 16 MiB on object stores).
            storage_options: fsspec options for a remote logdir (e.g. {"endpoint_url": ...} for S3).
            rank: This process's rank in distributed training; None: from the launcher's environment.
            write_ranks: The ranks that write, or "all"; the others get a writer that does nothing.
            rank_subdir: Each writing rank logs into its own sub-run `rank<k>`.
            verbose: MXBoard's; accepted and not used (nothing is printed per event).
            system_metrics: Log CPU, memory, disk, network and GPU use under `system/...` (see
                tensorboard.system): True every 10 s, a number of seconds, False never. None: as the
                environment says (TB_SYSTEM_METRICS=1), else never.
            metadata: Write where the run came from (command line, git commit, host, versions) once, as
                the Text dashboard's `run/metadata`. None: on, unless TB_RUN_METADATA=0.

        Raises:
            ValueError: An invalid option (`max_queue`, `flush_secs`, `on_error`, `rank`, `system_metrics`, ...).
        """
        purge_step = None if purge_step is None else check_step(purge_step, "purge_step")  # before any file exists
        interval, metadata = _system_choices(system_metrics, metadata)
        logdir = pick("logdir", logdir, "log_dir", log_dir)
        logdir = os.fspath(default_logdir(comment) if logdir is None else logdir)
        from tensorboard import distributed

        rank_run = distributed.resolve(rank, write_ranks, rank_subdir)[1]
        if rank_run is not None:
            logdir = logdir.rstrip("/") + "/" + rank_run if "://" in logdir else os.path.join(logdir, rank_run)
        self._logdir = logdir
        self._options = dict(max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix,
                             fsync=fsync, on_error=on_error, max_file_bytes=max_file_bytes,
                             storage_options=storage_options)
        self._file_writer = FileWriter(logdir, **self._options)
        _deferred.prepare_loaded_frameworks()  # the first add_* of a JAX value then loads nothing
        self._sub_writers: dict[str, FileWriter] = {}
        self._defaults: dict[str, Any] = {}  # use_metadata()'s global_step / walltime
        self._lock = threading.Lock()  # creates sub-run writers
        self._scalars = RunScalars()  # the main run's scalar tags; add_scalars' export record
        self._sessions = HparamsSessions()  # add_hparams' sessions by run
        self._layouts = CustomLayouts()  # add_custom_scalars' layouts so far, merged
        process.track(self, SummaryWriter._fresh_lock_after_fork)
        if purge_step is not None:
            self._file_writer.add_session_log("START", global_step=purge_step)
        if metadata:
            system.write_metadata(self._file_writer)
        self._system_monitor = None if interval is None else system.monitor(self._file_writer, interval)

    # -- plumbing ----------------------------------------------------------------------------------

    def get_logdir(self) -> str:
        """The run directory this writer logs to.

        Returns:
            The logdir as given (or made), with `rank<k>` appended when `rank_subdir` applies.
        """
        return self._logdir

    @property
    def file_writer(self) -> FileWriter | None:
        """The FileWriter of the main run; None after close() until the next add_* reopens it (as tensorboardX)."""
        return None if self._file_writer._writer is None else self._file_writer

    def _get_file_writer(self) -> FileWriter:
        """The main run's FileWriter, reopened if closed (the name tensorboardX and torch use)."""
        self._file_writer.reopen()
        return self._file_writer

    @property
    def system_monitor(self) -> "system.SystemMonitor | None":
        """The monitor sampling system metrics into the main run (`system_metrics=`), or None."""
        return self._system_monitor

    @property
    def dropped_events(self) -> int:
        """Events on_error="warn" could not write and dropped, over the main run and its sub-runs."""
        return self._sessions.dropped + sum(w.dropped_events for w in [self._file_writer, *self._sub_writers.values()])

    def _sub_writer(self, run: str) -> FileWriter:
        """The FileWriter of sub-run `run` (a checked run name) below the main run, opened on first use."""
        writer = self._sub_writers.get(run)
        if writer is None:
            with self._lock:
                writer = self._sub_writers.get(run)
                if writer is None:
                    writer = FileWriter(self._file_writer.storage.join(self._logdir, run), **self._options)
                    self._sub_writers[run] = writer
        return writer

    def _step_and_time(self, global_step, walltime) -> tuple[int, float]:
        """The checked step and wall time of an event, use_metadata()'s defaults filled in."""
        if self._defaults:
            global_step = self._defaults.get("global_step") if global_step is None else global_step
            walltime = self._defaults.get("walltime") if walltime is None else walltime
        return check_step(global_step), check_walltime(walltime)

    def _add_later(self, tag: str, values: tuple, kinds: Sequence[str | None], global_step, walltime,
                   make_summary: Callable[..., summary_pb2.Summary], writer: FileWriter | None = None) -> None:
        """Logs `make_summary(*values)` (into `writer`, default the main run) without waiting for the
        JAX/MXNet/device values among `values`, whose `kinds` (`_deferred.framework_of`, None for the
        others) the caller has already found: device snapshots now, their conversion to NumPy and the
        encoding in the background (see tensorboard.values.deferred). The other values must be the caller's
        private NumPy arrays, numbers or None: they are passed on as they are."""
        step, wall = self._step_and_time(global_step, walltime)
        nbytes = sum(_deferred.nbytes_of(value) for value, kind in zip(values, kinds) if kind is not None)

        def encode() -> bytes:
            from tensorboard.values.convert import to_numpy

            arrays = [copy if kind is None else to_numpy(copy, "value") for copy, kind in zip(copies, kinds)]
            background.yield_to_callers()  # the copy to host released the GIL: let a busy caller have it first
            return wire.summary_event(make_summary(*arrays).SerializeToString(), step, wall)

        with background.caller_busy():  # the encoder keeps off the GIL that the snapshot's copy releases
            copies = [value if kind is None else _deferred.snapshot(value, kind) for value, kind in zip(values, kinds)]
        (writer or self._file_writer).add_deferred(_deferred.Deferred(encode, nbytes, tag))

    def _add(self, summary: summary_pb2.Summary, global_step, walltime, writer: FileWriter | None = None) -> None:
        step, wall = self._step_and_time(global_step, walltime)
        (writer or self._file_writer).add_summary(summary, step, wall)

    def use_metadata(self, *, global_step=None, walltime=None) -> ContextManager["SummaryWriter"]:
        """A `with` block in which add_* calls without a step or wall time get these (as tensorboardX's).

        Args:
            global_step: The step of the block's events.
            walltime: The wall time of the block's events, in seconds since the epoch.

        Returns:
            A context manager that yields this writer.

        Raises:
            ValueError: Neither argument given (at the `with`).
            RuntimeError: Already inside a `use_metadata` block of this writer.

        Examples:
            >>> with writer.use_metadata(global_step=5):
            ...     writer.add_scalar("loss", 0.3)
        """
        return defaults_block(self, self._defaults, global_step, walltime)

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        """Logs a ready Summary proto, such as `tensorboard.summary`'s functions return.

        Args:
            summary: What `FileWriter.add_summary` takes: a Summary proto or its bytes.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).

        Raises:
            TypeError: Neither a Summary proto nor bytes.
            ValueError: Bytes that do not parse as a Summary.
        """
        self._add(summary, global_step, walltime)
        self._scalars.note_summary(summary)

    # -- lifecycle ---------------------------------------------------------------------------------

    def flush(self) -> None:
        """Returns once everything logged so far is in the event files."""
        for writer in [self._file_writer, *self._sub_writers.values()]:
            writer.flush()

    def close(self) -> None:
        """Flushes and closes every event file of this writer; idempotent. A later add_* starts new files."""
        errors = []
        for writer in [self._file_writer, *self._sub_writers.values()]:
            try:
                writer.close()
            except Exception as err:  # close the others, then report
                errors.append(err)
        if errors:
            raise errors[0]

    def _fresh_lock_after_fork(self) -> None:
        """In a forked child: a lock another thread of the parent held at the fork stays held forever."""
        self._lock = threading.Lock()

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


# help() and IDEs should show __init__'s arguments, not the rank-dispatching __new__'s.
SummaryWriter.__signature__ = inspect.signature(SummaryWriter.__init__).replace(
    parameters=list(inspect.signature(SummaryWriter.__init__).parameters.values())[1:])


