"""The system monitor: a daemon thread that samples the probes every `interval` seconds and queues each
sample, as one event of scalars, to an event file writer.

Steps: sample k is due k * interval seconds after the monitor started, and is logged at step k with its
own wall time. A sample whose time has passed while the thread was held up is skipped, so step * interval
stays the time since the start; the Relative and Wall axes line up with the training's curves.

Lifetime, like the writers' own threads: the thread ends at `stop()` (the writer's close() calls it),
when the event file closes under it, at interpreter exit (before the writers write what they hold), and
it does not exist in a forked child (where `stop()` does nothing). Queuing never waits on a flush.
"""
from __future__ import annotations

import threading
import time
import warnings
import weakref
from typing import Callable, Sequence

from tensorboard import process
from tensorboard.events import wire
from tensorboard.events.event_file import WriterClosedError
from tensorboard.src import summary_pb2
from tensorboard.system.sampling import Probe, Reading

MIN_INTERVAL = 0.1  # seconds: below this, sampling itself would be a load
DEFAULT_INTERVAL = 10.0  # seconds, as MLflow's system metrics

Sink = Callable[[bytes], None]  # queues one serialized Event


def check_interval(interval: float, name: str = "interval") -> float:
    """`interval` as float seconds; ValueError naming `name` unless a number of at least MIN_INTERVAL."""
    if isinstance(interval, bool) or not isinstance(interval, (int, float)) or not interval >= MIN_INTERVAL \
            or interval == float("inf"):
        raise ValueError(f"{name} must be a number of seconds >= {MIN_INTERVAL}, got {interval!r}")
    return float(interval)


def sample_event(readings: Sequence[Reading], step: int, wall_time: float) -> bytes:
    """One serialized Event holding every reading of a sample as a plain scalar."""
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)
                                         for tag, value in readings])
    return wire.summary_event(summary.SerializeToString(), step, wall_time)


class SystemMonitor:
    """Samples probes every `interval` seconds from its own daemon thread into `sink`.

    Args:
        sink: Queues one serialized Event (an event file writer's `write`).
        make_probes: Makes what to read (tensorboard.system.sampling); called in the thread, so loading
            psutil and asking NVML for GPUs never holds up the caller that opened the writer.
        interval: Seconds between samples (>= 0.1).
    """

    def __init__(self, sink: Sink, make_probes: Callable[[], Sequence[Probe]], interval: float = DEFAULT_INTERVAL):
        self._sink = sink
        self._make_probes = make_probes
        self.interval = check_interval(interval)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.samples = 0  # samples written
        self.cpu_seconds = 0.0  # CPU time the sampling thread has spent: the monitor's own cost
        _running.add(self)
        process.track(self, SystemMonitor._forget_after_fork)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self) -> "SystemMonitor":
        """Starts the sampling thread (the first sample at once); returns self."""
        if self._thread is None and not self._stop.is_set():
            self._thread = threading.Thread(target=self._run, name="tensorboard-system-monitor", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float | None = 10.0) -> None:
        """Ends the thread after the sample in progress, if any; idempotent.

        Args:
            timeout: Seconds to wait for the thread to end (None: as long as it takes).
        """
        self._stop.set()
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        _running.discard(self)

    def _run(self) -> None:
        probes = list(self._make_probes())
        start = time.monotonic()
        wall_start = time.time()
        last, step = start, 0
        while True:
            cpu_before = time.thread_time()
            now = time.monotonic()
            readings = [reading for probe in probes for reading in probe.sample(now - last if step else 0.0)]
            last = now
            if not self._write(readings, step, wall_start + (now - start)):
                return
            self.samples += 1
            self.cpu_seconds += time.thread_time() - cpu_before
            step = max(step + 1, int((time.monotonic() - start) / self.interval) + 1)  # the next slot ahead
            if self._stop.wait(max(0.0, start + step * self.interval - time.monotonic())):
                return

    def _write(self, readings: list[Reading], step: int, wall_time: float) -> bool:
        """Queues a sample; False when the monitor should end (stopped, or its file closed)."""
        if self._stop.is_set():
            return False
        try:
            self._sink(sample_event(readings, step, wall_time))
        except WriterClosedError:
            return False
        except Exception as err:  # an I/O error is the writer's to raise at its next call; sampling ends
            warnings.warn(f"system metrics stopped: {type(err).__name__}: {err}", RuntimeWarning, stacklevel=1)
            return False
        return True

    def _forget_after_fork(self) -> None:
        """In a forked child the thread does not exist: the monitor is stopped there."""
        self._stop.set()
        self._thread = None
        _running.discard(self)


_running: "weakref.WeakSet[SystemMonitor]" = weakref.WeakSet()


def _stop_all(deadline: float) -> None:
    for monitor in list(_running):
        monitor.stop(timeout=max(0.0, deadline - time.monotonic()))


process.at_exit(_stop_all, process.SAMPLE)
