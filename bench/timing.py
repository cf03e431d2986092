"""Timing and its summaries for the benchmarks: medians of repeated fresh-process measurements, a
median/min/max summary of timings, and the wall time of a command."""
from __future__ import annotations

import statistics
import subprocess
import time
from typing import Any, Callable, Iterable, Mapping


def median_of(runs: Iterable[Mapping[str, Any]], key: str) -> float | None:
    """The median of `key` over the runs that have it (a failed run has only "error"), or None if none has."""
    values = [run[key] for run in runs if key in run]
    return statistics.median(values) if values else None


def middle_run(runs: list[dict], key: str = "seconds") -> dict:
    """The run whose `key` is the median (the upper middle of an even count), a failed run (no `key`) last:
    the whole run, so that its other figures come from the same process."""
    return sorted(runs, key=lambda run: run.get(key) or float("inf"))[len(runs) // 2]


def summary(times: list[float], digits: int = 3) -> dict[str, Any]:
    """Median, fastest and slowest of repeated timings in seconds, and every timing, rounded to `digits`."""
    return {"median_s": round(statistics.median(times), digits), "min_s": round(min(times), digits),
            "max_s": round(max(times), digits), "runs_s": [round(t, digits) for t in times]}


def elapsed_ms(call: Callable[[], Any]) -> float:
    """Milliseconds one call of `call` takes."""
    start = time.perf_counter()
    call()
    return (time.perf_counter() - start) * 1e3


def timed_process(cmd: list[str], env: dict[str, str], name: str, timeout: float,
                  cwd: str | None = None) -> float:
    """Wall seconds of one fresh process running `cmd`; raises with its output's tail when it fails."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    if proc.returncode != 0:
        tail = " | ".join((proc.stderr or proc.stdout).strip().splitlines()[-3:])
        raise RuntimeError("%s exited %d: %s" % (name, proc.returncode, tail))
    return seconds
