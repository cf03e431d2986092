"""What system metrics cost a training loop: the monitor's own CPU, and add_scalar's throughput with it on.

1. The monitor's CPU: a writer samples every 0.1 s until SAMPLES samples are written; the sampling
   thread's own CPU time (time.thread_time, summed by the monitor) per sample, times one sample a
   second, is its share of one core at the documented 1 s interval. Goal: at most 1%.
2. add_scalar throughput: CALLS add_scalar calls and close(), in a fresh process each, with the monitor
   on (every 0.1 s: ten times the documented rate, so any interference shows) and off, alternating,
   --reps of each. Goal: the median throughput with it on at least 95% of the one without (within noise).
   The monitor's start is timed apart: its thread loads psutil and asks NVML for GPUs once, then takes
   the first sample (`start_ms`: from opening the writer to that sample, less the same span without it).

Prints one JSON line last; exits 1 when a goal is missed.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import SOURCE, ours_env  # noqa: E402  (bench/envs.py)

SAMPLES = 100
CALLS = 200_000
CPU_SHARE_TARGET = 1.0  # percent of one core at a 1 s interval, at most
THROUGHPUT_TARGET = 0.95  # on / off, at least

LOOP = """
import sys, time, tensorboard
interval = float(sys.argv[2]) or False
opened = time.perf_counter()
writer = tensorboard.SummaryWriter(sys.argv[1], system_metrics=interval, metadata=False)
while writer.system_monitor is not None and writer.system_monitor.samples < 1:  # probes made, first sample in
    time.sleep(0.001)
start = time.perf_counter()
for step in range({calls}):
    writer.add_scalar("loss", 1.0 / (step + 1), step)
writer.close()
print(start - opened, time.perf_counter() - start)
"""


def monitor_cpu_share() -> dict:
    """The sampling thread's CPU per sample, and its share of one core at one sample a second."""
    sys.path.insert(0, SOURCE)
    import tensorboard

    with tempfile.TemporaryDirectory(prefix="tb-system-cost-") as logdir:
        writer = tensorboard.SummaryWriter(logdir, system_metrics=0.1, metadata=False)
        monitor = writer.system_monitor
        deadline = time.monotonic() + 120  # guards against a hang only
        while monitor.samples < SAMPLES and time.monotonic() < deadline:
            time.sleep(0.1)
        writer.close()
    per_sample = monitor.cpu_seconds / max(1, monitor.samples)
    return {"samples": monitor.samples, "cpu_ms_per_sample": round(1000 * per_sample, 3),
            "cpu_percent_at_1s": round(100 * per_sample / 1.0, 3)}


def loop_seconds(interval: float, workdir: str, rep: int) -> tuple[float, float]:
    """(seconds from opening the writer to its first sample, seconds of the add_scalar loop and close())
    in a fresh process."""
    logdir = os.path.join(workdir, f"run-{interval}-{rep}")
    done = subprocess.run([sys.executable, "-c", LOOP.format(calls=CALLS), logdir, str(interval)],
                          env=ours_env(), capture_output=True, text=True, timeout=600, check=True)
    opening, looping = done.stdout.split()[-2:]
    return float(opening), float(looping)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="processes with the monitor on and off each (default 5)")
    args = parser.parse_args(argv)
    out = monitor_cpu_share()
    timings: dict[str, list[tuple[float, float]]] = {"off": [], "on": []}
    with tempfile.TemporaryDirectory(prefix="tb-system-loop-") as workdir:
        for rep in range(args.reps):
            timings["off"].append(loop_seconds(0.0, workdir, rep))
            timings["on"].append(loop_seconds(0.1, workdir, rep))
    off, on = (CALLS / statistics.median(loop for _, loop in timings[key]) for key in ("off", "on"))
    opening = {key: statistics.median(opened for opened, _ in timings[key]) for key in ("off", "on")}
    out.update(calls=CALLS, reps=args.reps, off_calls_per_s=round(off), on_calls_per_s=round(on),
               ratio=round(on / off, 3), start_ms=round(1000 * (opening["on"] - opening["off"]), 1))
    out["target_met"] = out["cpu_percent_at_1s"] <= CPU_SHARE_TARGET and out["ratio"] >= THROUGHPUT_TARGET
    print(json.dumps(out))
    return 0 if out["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
