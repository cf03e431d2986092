"""Asynchronous logging benchmark (part of `make bench`): does add_* wait for the training step?

Side by side in one run, each measurement in a fresh process (bench/async_worker.py):
  * the caller's time in add_scalar(x) while x is a ~0.5 s JAX (or MXNet) computation still
    running: ours, tensorboardX, torch.utils.tensorboard (JAX; MXNet: ours and tensorboardX).
    Goal: <= 1 ms for ours, where the others wait for the computation.
  * steps/s of a small JAX training loop logging its loss and one 256x256 weight histogram per
    step, relative to the same loop without logging: blocks with and without logging alternate
    in one process (each logged block ends in flush(), so all its logging work counts). Goal:
    ours within 3 % ("loop"); the "loop-tiny" row (1.5 ms steps) shows the logging's own CPU
    cost and has no goal.
Ours runs with .venv and the source tree; the peers with .venv-upstream (upstream tensorboard,
tensorboardX, torch, JAX); MXNet rows with .venv-mxnet. Prints a table and a JSON line last.

    python bench/async_log.py [--reps 3]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import BENCH, ours_env, peer_env, python_of, run_json  # noqa: E402  (bench/envs.py)
from timing import median_of  # noqa: E402

LATENCY_GOAL_MS = 1.0
LOOP_GOAL = 0.97  # steps/s with logging over steps/s without


def measure(lib: str, framework: str, mode: str) -> dict:
    venv = "mxnet" if framework == "mxnet" else ("ours" if lib == "ours" else "peers")
    env = peer_env(threads=2) if venv == "peers" else ours_env(threads=2)
    with tempfile.TemporaryDirectory(prefix="tb-async-bench-") as logdir:
        return run_json([python_of(venv), os.path.join(BENCH, "async_worker.py"), lib, framework, mode, logdir],
                        env, 1200)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    result: dict = {"latency": {}, "loops": {}}
    print("add_scalar(x) while x is still being computed (caller's time, median):")
    for framework, libs in (("jax", ("ours", "tbx", "torch")), ("mxnet", ("ours", "tbx"))):
        if framework == "mxnet" and not os.path.exists(python_of("mxnet")):
            print("  mxnet: .venv-mxnet missing, skipped")
            continue
        for lib in libs:
            runs = [measure(lib, framework, "latency") for _ in range(args.reps)]
            caller, compute = median_of(runs, "caller_ms"), median_of(runs, "compute_ms")
            result["latency"][f"{framework}/{lib}"] = {"caller_ms": caller, "compute_ms": compute,
                                                      "errors": [r["error"] for r in runs if "error" in r]}
            shown = "error" if caller is None else f"{caller:9.3f} ms (computation {compute:.0f} ms)"
            print(f"  {framework:5} {lib:6} {shown}")
    print("JAX training loop, loss + one 256x256 histogram per step: steps/s with logging / without, "
          "paired blocks in one process (median of the pairs; median of the processes):")
    for mode in ("loop", "loop-tiny"):
        rows = {}
        for lib in ("ours", "tbx", "torch"):
            runs = [measure(lib, "jax", mode) for _ in range(args.reps)]
            rows[lib] = {"ratio": median_of(runs, "ratio"), "steps_per_s": median_of(runs, "steps_per_s"),
                         "steps_per_s_none": median_of(runs, "steps_per_s_none"),
                         "errors": [r["error"] for r in runs if "error" in r]}
            row = rows[lib]
            print(f"  {mode:9} {lib:6} {row['steps_per_s'] or 0:8.1f} vs {row['steps_per_s_none'] or 0:6.1f} steps/s"
                  f"  x{row['ratio'] or 0:.3f} of no logging")
        result["loops"][mode] = rows
    jax_ours = result["latency"].get("jax/ours", {}).get("caller_ms")
    mx_ours = result["latency"].get("mxnet/ours", {}).get("caller_ms")
    loop_ratio = result["loops"]["loop"]["ours"]["ratio"]
    result["goals"] = {"latency_ms_le_1": jax_ours is not None and jax_ours <= LATENCY_GOAL_MS
                       and (mx_ours is None or mx_ours <= LATENCY_GOAL_MS),
                       "loop_within_3pct": loop_ratio is not None and loop_ratio >= LOOP_GOAL}
    result["target_met"] = all(result["goals"].values())
    print(f"goals: {result['goals']}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
