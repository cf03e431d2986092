"""First-call benchmark (part of `make bench`): does add_* stall the first time it sees a shape or dtype?

Side by side in one run, each measurement in a fresh process, ours (.venv, source tree) against
tensorboardX and torch.utils.tensorboard (.venv-upstream), all given JAX arrays as their users give them:
  * "first add_scalar": the caller's time in the process's first add_scalar(x), x a ~0.3 s JAX
    computation still running (the peers wait for it; goal for ours <= 1 ms);
  * "200 shapes": 200 add_histogram calls of computed JAX arrays of 200 different shapes (the first
    call of each shape): the caller's median, largest and total time (goal for ours: largest <= 1 ms).
Prints a table and a JSON line last; --out also writes that JSON to a file.

    python bench/first_call.py [--reps 3] [--out bench/results/first_call.json]
    python bench/first_call.py --worker LIB LOGDIR   (one measurement; LIB: ours | tbx | torch)
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import BENCH, ours_env, peer_env, python_of, run_json  # noqa: E402  (bench/envs.py)
from timing import median_of  # noqa: E402

GOAL_MS = 1.0
SHAPES = 200


def worker(lib: str, logdir: str) -> dict:
    """One process: the first add_scalar of a pending value, then 200 histograms of new shapes."""
    sys.path.insert(0, BENCH)
    import jax.numpy as jnp
    import numpy as np
    from async_worker import jax_slow_function, log_histogram, log_scalar, writer_for

    slow, x = jax_slow_function(0.3)
    shapes = [(8 + i,) if i % 2 else (4, 2 + i) for i in range(SHAPES)]
    values = [jnp.linspace(-1.0, 1.0, int(np.prod(shape)), dtype=jnp.float32).reshape(shape) * (1 + i)
              for i, shape in enumerate(shapes)]
    for value in values:
        value.block_until_ready()
    writer = writer_for(lib, logdir)
    pending = slow(x)
    start = time.perf_counter()
    log_scalar(lib, writer, "loss", pending, 0)
    first_scalar_ms = (time.perf_counter() - start) * 1e3
    pending.block_until_ready()
    times = []
    for i, value in enumerate(values):
        start = time.perf_counter()
        log_histogram(lib, writer, f"h{i}", value, 0)
        times.append((time.perf_counter() - start) * 1e3)
    writer.close()
    return {"first_scalar_ms": first_scalar_ms, "hist_median_ms": statistics.median(times),
            "hist_max_ms": max(times), "hist_total_ms": sum(times)}


def measure(lib: str) -> dict:
    python, env = (python_of("ours"), ours_env(threads=2)) if lib == "ours" else (python_of("peers"),
                                                                                   peer_env(threads=2))
    with tempfile.TemporaryDirectory(prefix="tb-first-call-") as logdir:
        return run_json([python, os.path.abspath(__file__), "--worker", lib, logdir], env, 900)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", help="also write the JSON result here")
    parser.add_argument("--worker", nargs=2, metavar=("LIB", "LOGDIR"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return 0
    keys = ("first_scalar_ms", "hist_median_ms", "hist_max_ms", "hist_total_ms")
    result: dict = {"libs": {}}
    print(f"JAX values, caller's time in ms (median of {args.reps} fresh processes):")
    print(f"  {'lib':6} {'first add_scalar (pending)':>27} {'200 shapes: median':>19} {'max':>9} {'total':>10}")
    for lib in ("ours", "tbx", "torch"):
        runs = [measure(lib) for _ in range(args.reps)]
        row = {key: median_of(runs, key) for key in keys}
        row["errors"] = [r["error"] for r in runs if "error" in r]
        result["libs"][lib] = row
        if row["first_scalar_ms"] is None:
            print(f"  {lib:6} error: {row['errors'][:1]}")
            continue
        print(f"  {lib:6} {row['first_scalar_ms']:27.3f} {row['hist_median_ms']:19.3f} {row['hist_max_ms']:9.3f} "
              f"{row['hist_total_ms']:10.1f}")
    ours = result["libs"]["ours"]
    result["goals"] = {"first_call_ms_le_1": ours["first_scalar_ms"] is not None and ours["first_scalar_ms"] <= GOAL_MS
                       and ours["hist_max_ms"] <= GOAL_MS}
    result["target_met"] = all(result["goals"].values())
    print(f"goals: {result['goals']}")
    line = json.dumps(result)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as out:
            out.write(line + "\n")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
