"""System metrics and run metadata, logged into a run beside its training curves.

- `monitor(writer, interval)` samples CPU, memory, disk, network (psutil) and NVIDIA GPUs (NVML)
  into the writer's run, under `system/...` tags, until the writer closes.
- `write_metadata(writer)` writes where the run came from (command line, git commit, host, Python,
  library versions, start time) once, as a Text dashboard table and as fields readers get back.

`tensorboard.SummaryWriter` does both through its `system_metrics=` and `metadata=` arguments. Code we
don't own (torch.utils.tensorboard, Lightning, transformers on our core) gets both with
`TB_SYSTEM_METRICS=1` in the environment (see `settings_from_environment`).
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Any, NamedTuple

from tensorboard.events.event_file import EventFileWriter
from tensorboard.system.metadata import RunMetadata, collect, metadata_event
from tensorboard.system.monitor import DEFAULT_INTERVAL, SystemMonitor, check_interval
from tensorboard.system.sampling import Probes, available_probes

__all__ = ["DEFAULT_INTERVAL", "RunMetadata", "SystemMonitor", "SystemSettings", "check_interval", "collect",
           "event_file_of",
           "monitor", "settings_from_environment", "start_from_environment", "write_metadata"]

METRICS_VARIABLE = "TB_SYSTEM_METRICS"  # 1/true/on: system metrics (and run metadata) for every writer
INTERVAL_VARIABLE = "TB_SYSTEM_METRICS_INTERVAL"  # seconds between samples (default DEFAULT_INTERVAL)
METADATA_VARIABLE = "TB_RUN_METADATA"  # 0/false/off: no run metadata; 1/true/on: for every writer
_ON, _OFF = {"1", "true", "yes", "on"}, {"", "0", "false", "no", "off"}

_lock = threading.Lock()
_metadata_written: set[str] = set()  # logdirs this process has written metadata into
_notes_shown = False  # the lines about missing probes are shown once per process


class SystemSettings(NamedTuple):
    """What the environment asks of writers: a sampling interval (None: no system metrics) and
    whether to write run metadata (None: the writer's own default)."""

    interval: float | None
    metadata: bool | None


def _switch(name: str) -> bool | None:
    value = os.environ.get(name)
    if value is None:
        return None
    value = value.strip().lower()
    if value in _ON:
        return True
    if value in _OFF:
        return False
    raise ValueError(f"{name} must be 1/true/on or 0/false/off, got {os.environ[name]!r}")


def settings_from_environment() -> SystemSettings:
    """TB_SYSTEM_METRICS, TB_SYSTEM_METRICS_INTERVAL and TB_RUN_METADATA, read now.

    TB_SYSTEM_METRICS=1 turns on system metrics every TB_SYSTEM_METRICS_INTERVAL seconds (default 10)
    and run metadata; TB_RUN_METADATA=0 turns the metadata off again, TB_RUN_METADATA=1 on alone.

    Raises:
        ValueError: A value that is neither on nor off, or an interval below 0.1 s; the message names
            the variable.
    """
    interval = None
    metrics = _switch(METRICS_VARIABLE)
    if metrics:
        raw = os.environ.get(INTERVAL_VARIABLE, "").strip()
        try:
            interval = check_interval(float(raw) if raw else DEFAULT_INTERVAL, INTERVAL_VARIABLE)
        except ValueError:
            raise ValueError(f"{INTERVAL_VARIABLE} must be a number of seconds >= 0.1, got {raw!r}") from None
    metadata = _switch(METADATA_VARIABLE)
    return SystemSettings(interval, True if metrics and metadata is None else metadata)


def event_file_of(writer: Any) -> EventFileWriter:
    """The event file that `writer` writes now: of our SummaryWriter or FileWriter, of upstream's
    EventFileWriter API (ours), or of torch.utils.tensorboard's SummaryWriter or FileWriter on our core.

    Args:
        writer: The writer whose current event file is wanted.

    Raises:
        TypeError: `writer` is none of these (the message names the argument).
    """
    if isinstance(writer, EventFileWriter):
        return writer
    if hasattr(writer, "_get_file_writer"):  # a SummaryWriter (ours, torch's): its main run's file writer
        writer = writer._get_file_writer()
    if hasattr(writer, "event_writer"):  # torch's FileWriter: upstream's EventFileWriter API inside
        writer = writer.event_writer
    event_file = getattr(writer, "event_file", None)
    if isinstance(event_file, EventFileWriter):
        return event_file
    raise TypeError("writer must be a tensorboard SummaryWriter or FileWriter, or a torch.utils.tensorboard "
                    f"SummaryWriter on this tensorboard, got {type(writer).__name__}")


def _probes() -> Probes:
    """This machine's probes; the first call in a process prints one line for each missing one."""
    global _notes_shown
    found = available_probes()
    with _lock:
        show, _notes_shown = not _notes_shown, True
    if show:
        for note in found.missing:
            print(f"tensorboard: system metrics: {note}", file=sys.stderr)
    return found


def monitor(writer: Any, interval: float = DEFAULT_INTERVAL) -> SystemMonitor:
    """Starts sampling system metrics into `writer`'s run every `interval` seconds.

    The monitor's thread ends when the writer's event file closes, at `stop()`, at exit, and is
    absent in a forked child. A missing psutil or NVML, or a machine without GPUs, is one line on
    stderr, once per process; what remains is still sampled.

    Args:
        writer: A tensorboard SummaryWriter or FileWriter, or torch.utils.tensorboard's SummaryWriter.
        interval: Seconds between samples, at least 0.1.

    Returns:
        The running SystemMonitor.

    Raises:
        TypeError: `writer` is not a writer of ours.
        ValueError: `interval` is not a number of seconds >= 0.1.

    Examples:
        >>> from tensorboard import FileWriter, system
        >>> writer = FileWriter("runs/exp1")
        >>> sampler = system.monitor(writer, interval=5)
    """
    interval = check_interval(interval)
    event_file = event_file_of(writer)
    sampler = SystemMonitor(event_file.write, lambda: _probes().probes, interval)
    event_file.on_close(sampler.stop)
    return sampler.start()


def write_metadata(writer: Any, metadata: RunMetadata | None = None, *, once: bool = True) -> bool:
    """Writes the run's metadata (default: `collect()`ed now) into `writer`'s run.

    Args:
        writer: As `monitor` takes.
        metadata: What to write; None collects this process's.
        once: Write only if this process has not yet written metadata into this run directory.

    Returns:
        Whether it was written.
    """
    event_file = event_file_of(writer)
    key = os.path.abspath(event_file.logdir) if "://" not in event_file.logdir else event_file.logdir
    with _lock:
        if once and key in _metadata_written:
            return False
        _metadata_written.add(key)
    event_file.write(metadata_event(collect() if metadata is None else metadata))
    return True


def start_from_environment(writer: Any) -> SystemMonitor | None:
    """What TB_SYSTEM_METRICS and TB_RUN_METADATA ask for a writer that another library made (torch's
    SummaryWriter on our core): metadata once per run directory, and a monitor until its file closes.

    Args:
        writer: The writer just opened (as `monitor` takes).

    Returns:
        The monitor started, if any.
    """
    settings = settings_from_environment()
    if settings.metadata:
        write_metadata(writer)
    return None if settings.interval is None else monitor(writer, settings.interval)
