"""tensorboardX's GlobalSummaryWriter: a writer that keeps each tag's step itself, so callers in any
thread (or forked worker process) log without passing global_step and never collide on a step."""
from __future__ import annotations

import os
import threading
from typing import Any

from tensorboard.writers.summary_writer import SummaryWriter

_instance: "GlobalSummaryWriter | None" = None
_instance_lock = threading.Lock()


class _StepCounters:
    """Per-(kind, tag) next steps, shared with forked children through a multiprocessing.Manager
    when `across_processes`, else in this process only (no helper process started)."""

    def __init__(self, across_processes: bool):
        self._manager = None
        if across_processes:
            import multiprocessing

            self._manager = multiprocessing.Manager()
            self._steps, self._lock = self._manager.dict(), self._manager.Lock()
        else:
            self._steps, self._lock = {}, threading.Lock()

    def next(self, kind: str, tag: str) -> int:
        key = f"{kind}\0{tag}"
        with self._lock:
            step = self._steps.get(key, -1) + 1
            self._steps[key] = step
        return step

    def shutdown(self) -> None:
        if self._manager is not None:
            self._manager.shutdown()
            self._manager = None


class GlobalSummaryWriter:
    """Logs with per-tag steps counted by the writer (0, 1, 2, ... for each tag and kind).

    Args:
        logdir: The run directory or URL; None: `runs/<time>_<host><comment>`.
        comment: The suffix of that default run name.
        purge_step: Where a resumed run restarts (see `SummaryWriter`).
        max_queue: Queued events that wake the writer thread.
        flush_secs: Seconds an event may wait in memory before it is written.
        filename_suffix: The event file name's suffix.
        write_to_disk: False: a writer that writes nothing.
        log_dir: torch's keyword for `logdir`.
        coalesce_process: True (tensorboardX's default) shares the counters with worker processes
            forked after construction, through a multiprocessing.Manager that close() stops; False
            keeps them per process and starts no helper process.
        **kwargs: Further `SummaryWriter` keywords (`on_error`, `storage_options`, ...).

    Examples:
        >>> writer = GlobalSummaryWriter.getSummaryWriter(logdir="runs/exp1")
        >>> writer.add_scalar("loss", 0.5)  # step 0; the next call for "loss" is step 1
    """

    def __init__(self, logdir: str | os.PathLike | None = None, comment: str = "", purge_step: int | None = None,
                 max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = "",
                 write_to_disk: bool = True, log_dir: str | os.PathLike | None = None,
                 coalesce_process: bool = True, **kwargs: Any):
        self.smw = SummaryWriter(logdir, max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix,
                                 log_dir=log_dir, comment=comment,
                                 purge_step=purge_step, write_to_disk=write_to_disk, **kwargs)
        """The SummaryWriter underneath (tensorboardX's attribute)."""
        self._steps = _StepCounters(coalesce_process)
        self._pid = os.getpid()

    def _after(self) -> None:
        if os.getpid() != self._pid:  # a worker process may exit without running atexit: write now
            self.smw.flush()

    def add_scalar(self, tag: str, scalar_value, walltime=None) -> None:
        """Logs a scalar at this tag's next step.

        Args:
            tag: The curve's name, a non-empty str.
            scalar_value: A real number (as `SummaryWriter.add_scalar` takes it).
            walltime: Seconds since the epoch; None is now.
        """
        self.smw.add_scalar(tag, scalar_value, self._steps.next("scalar", tag), walltime)
        self._after()

    def add_histogram(self, tag: str, values, bins="tensorflow", walltime=None, max_bins: int | None = None) -> None:
        """Logs a histogram at this tag's next step.

        Args:
            tag: The chart's name, a non-empty str.
            values: Finite numbers, any shape.
            bins: As `SummaryWriter.add_histogram`'s.
            walltime: Seconds since the epoch; None is now.
            max_bins: Merge neighbouring buckets until at most this many remain.
        """
        self.smw.add_histogram(tag, values, self._steps.next("histogram", tag), bins=bins, walltime=walltime,
                               max_bins=max_bins)
        self._after()

    def add_image(self, tag: str, img_tensor, walltime=None, dataformats: str = "CHW") -> None:
        """Logs an image at this tag's next step.

        Args:
            tag: The image's name, a non-empty str.
            img_tensor: The image, laid out as `dataformats` says.
            walltime: Seconds since the epoch; None is now.
            dataformats: Letters of N, C, H, W ("CHW" by default).
        """
        self.smw.add_image(tag, img_tensor, self._steps.next("image", tag), walltime=walltime, dataformats=dataformats)
        self._after()

    def add_text(self, tag: str, text_string: str, walltime=None) -> None:
        """Logs a text at this tag's next step.

        Args:
            tag: The text's name, a non-empty str.
            text_string: A markdown str.
            walltime: Seconds since the epoch; None is now.
        """
        self.smw.add_text(tag, text_string, self._steps.next("text", tag), walltime=walltime)
        self._after()

    def add_audio(self, tag: str, snd_tensor, sample_rate: int = 44100, walltime=None) -> None:
        """Logs audio at this tag's next step.

        Args:
            tag: The clip's name, a non-empty str.
            snd_tensor: The samples, as `SummaryWriter.add_audio` takes them.
            sample_rate: Samples per second.
            walltime: Seconds since the epoch; None is now.
        """
        self.smw.add_audio(tag, snd_tensor, sample_rate=sample_rate, global_step=self._steps.next("audio", tag),
                           walltime=walltime)
        self._after()

    @staticmethod
    def getSummaryWriter(**kwargs: Any) -> "GlobalSummaryWriter":  # noqa: N802 (tensorboardX's name)
        """The process-wide GlobalSummaryWriter, created on the first call.

        Args:
            **kwargs: The constructor's arguments; used by the call that creates the writer only.

        Returns:
            The writer shared by the process (a new one after it is closed).
        """
        global _instance
        with _instance_lock:
            if _instance is None:
                _instance = GlobalSummaryWriter(**kwargs)
            return _instance

    @property
    def file_writer(self):
        """The main run's FileWriter (None after close)."""
        return self.smw.file_writer

    def get_logdir(self) -> str:
        """The run directory this writer logs to."""
        return self.smw.get_logdir()

    def flush(self) -> None:
        """Returns once everything logged so far is in the event files."""
        self.smw.flush()

    def close(self) -> None:
        """Closes the writer and stops the counter-sharing process, if any."""
        global _instance
        try:
            self.smw.close()
        finally:
            if os.getpid() == self._pid:
                self._steps.shutdown()
            with _instance_lock:
                if _instance is self:
                    _instance = None

    def __enter__(self) -> "GlobalSummaryWriter":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()
