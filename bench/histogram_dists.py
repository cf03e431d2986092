"""Histogram benchmark over data shapes (part of `make bench`): `add_histogram` with the default
('tensorflow') buckets, ours vs tensorboardX vs torch.utils.tensorboard, on several distributions and
dtypes x 1k / 100k / 1M / 10M values. Goal: >= 3x tensorboardX on every row.

Each (library, size) runs in a fresh process (`--worker`): ours with this interpreter and
PYTHONPATH=<repo>/python, the peers with .venv-upstream's. A worker generates each distribution's
data (fixed seed, not timed), makes one untimed call, then times CALLS[size] `add_histogram` calls
and reports the median seconds per call. Libraries rotate order per repetition; the table shows the
median over repetitions and the ratios peer / ours. Prints a JSON line last (for bench/run.py).

Inputs: NumPy arrays, except "bfloat16": a torch.bfloat16 tensor. tensorboardX rejects those
(TypeError), so its timed call is `add_histogram(tag, t.float())`, the conversion a user must add.
"nonfinite" holds NaN and ±inf: ours refuses it with a ValueError naming `values` (timed until the
error); tensorboardX and torch write a histogram whose min/max/sum are NaN or inf.

    python bench/histogram_dists.py                      # all sizes, 3 repetitions
    python bench/histogram_dists.py --sizes 1000 1000000 --reps 1
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import BENCH, env_for, run_json  # noqa: E402  (bench/envs.py)
from timing import median_of  # noqa: E402

LIBS = ("ours", "tbx", "torch")
SIZES = (1_000, 100_000, 1_000_000, 10_000_000)
CALLS = {1_000: 300, 100_000: 40, 1_000_000: 10, 10_000_000: 3}  # timed calls per (library, size, distribution)
DISTS = {  # name -> what
    "normal": "standard normal, float32",
    "uniform": "uniform in [-1, 1), float32",
    "cauchy": "standard Cauchy (heavy tails), float32",
    "lognormal": "lognormal(0, 3), float32",
    "decades": "normal x 10^U(-14, 22): every bucket, float32",
    "equal": "all values 0.5, float32",
    "binary": "0 or 1 (a mask), float32",
    "relu": "max(normal, 0): half zeros, float32",
    "nonfinite": "normal with 1% NaN, 0.5% +inf, 0.5% -inf, float32",
    "float16": "standard normal, float16",
    "bfloat16": "standard normal, torch.bfloat16 tensor",
    "float64": "standard normal, float64",
    "sparse": "95% zeros, the rest standard normal (pruned weights, sparse gradients), float32",
}
GOAL = 3.0  # minimum speed-up over tensorboardX, every row


def make_values(dist: str, size: int):
    """The input of one row (seeded by the row, so every library gets the same values)."""
    import numpy as np

    rng = np.random.default_rng([size, list(DISTS).index(dist)])
    if dist == "normal":
        return rng.standard_normal(size, dtype=np.float32)
    if dist == "uniform":
        return (rng.random(size, dtype=np.float32) * np.float32(2) - np.float32(1))
    if dist == "cauchy":
        return rng.standard_cauchy(size).astype(np.float32)
    if dist == "lognormal":
        return rng.lognormal(0.0, 3.0, size).astype(np.float32)
    if dist == "decades":
        return (rng.standard_normal(size) * 10.0 ** rng.uniform(-14, 22, size)).astype(np.float32)
    if dist == "equal":
        return np.full(size, 0.5, dtype=np.float32)
    if dist == "binary":
        return rng.integers(0, 2, size).astype(np.float32)
    if dist == "relu":
        return np.maximum(rng.standard_normal(size, dtype=np.float32), np.float32(0))
    if dist == "nonfinite":
        values = rng.standard_normal(size, dtype=np.float32)
        where = rng.permutation(size)[:max(4, size // 50)]
        quarter = len(where) // 4
        values[where[:2 * quarter]] = np.nan
        values[where[2 * quarter:3 * quarter]] = np.inf
        values[where[3 * quarter:]] = -np.inf
        return values
    if dist == "float16":
        return rng.standard_normal(size, dtype=np.float32).astype(np.float16)
    if dist == "bfloat16":
        import torch

        return torch.from_numpy(rng.standard_normal(size, dtype=np.float32)).to(torch.bfloat16)
    if dist == "float64":
        return rng.standard_normal(size)
    if dist == "sparse":
        return np.where(rng.random(size) < 0.95, np.float32(0), rng.standard_normal(size, dtype=np.float32))
    raise ValueError(f"unknown distribution {dist!r}")


def worker(lib: str, size: int, dists: list, logdir: str) -> dict:
    """Seconds per add_histogram call (median of CALLS[size]) for each distribution, in this process."""
    sys.path.insert(0, BENCH)
    from worker import load

    make_writer, info = load(lib)
    writer = make_writer(logdir)
    out: dict = {"lib": lib, "size": size, "info": info, "rows": {}}
    step = 0
    for dist in dists:
        values = make_values(dist, size)
        if lib == "tbx" and dist == "bfloat16":
            add = lambda tag, v, s: writer.add_histogram(tag, v.float(), s)  # noqa: E731 - tbx rejects bfloat16
        else:
            add = writer.add_histogram
        refused = None
        times = []
        for i in range(CALLS[size] + 1):  # the first call is untimed (lazy imports, tables)
            t0 = time.perf_counter()
            try:
                add(dist, values, step)
            except ValueError as exc:
                if lib != "ours" or dist != "nonfinite":
                    raise
                refused = str(exc)
            times.append(time.perf_counter() - t0)
            step += 1
        out["rows"][dist] = {"s_per_call": statistics.median(times[1:]), "refused": refused}
        del values
    writer.close()
    return out


def measure(lib: str, size: int, dists: list, tmp: str, timeout: float) -> dict:
    python, env = env_for(lib)
    logdir = tempfile.mkdtemp(dir=tmp)
    try:
        return run_json([python, __file__, "--worker", lib, str(size), logdir, "--dists", *dists], env, timeout)
    finally:
        shutil.rmtree(logdir, ignore_errors=True)


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f}" if seconds < 0.01 else f"{seconds * 1e3:.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--worker", nargs=3, metavar=("LIB", "SIZE", "LOGDIR"), help=argparse.SUPPRESS)
    parser.add_argument("--sizes", nargs="+", type=int, choices=SIZES, default=list(SIZES))
    parser.add_argument("--dists", nargs="+", choices=list(DISTS), default=list(DISTS))
    parser.add_argument("--libs", nargs="+", choices=LIBS, default=list(LIBS))
    parser.add_argument("--reps", type=int, default=3, help="fresh-process repetitions (median)")
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args(argv)
    if args.worker:
        lib, size, logdir = args.worker
        print(json.dumps(worker(lib, int(size), args.dists, logdir)), flush=True)
        return 0

    tmp = tempfile.mkdtemp(prefix="tb-hist-bench-")
    runs: dict = {}  # (lib, size) -> list of worker results
    errors = []
    try:
        for rep in range(args.reps):
            for size in args.sizes:
                order = args.libs[rep % len(args.libs):] + args.libs[:rep % len(args.libs)]
                for lib in order:
                    result = measure(lib, size, args.dists, tmp, args.timeout)
                    if "error" in result:
                        errors.append(f"{lib} {size}: {result['error']}")
                        print(f"  rep {rep + 1} {size:>10,d} {lib:6s} ERROR {result['error']}", flush=True)
                        continue
                    runs.setdefault((lib, size), []).append(result)
                    print(f"  rep {rep + 1} {size:>10,d} {lib:6s} " + " ".join(
                        f"{d}={_ms(r['s_per_call'])}" for d, r in result["rows"].items()) + " ms", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    table = []
    all_met = not errors
    print("\n| data | values | ours ms | tensorboardX ms | torch ms | × tensorboardX | × torch | goal ≥ 3× tbx |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for dist in args.dists:
        for size in args.sizes:
            row = {"dist": dist, "size": size}
            for lib in args.libs:
                row[lib] = median_of((r["rows"][dist] for r in runs.get((lib, size), [])), "s_per_call")
            refused = [r["rows"][dist]["refused"] for r in runs.get(("ours", size), []) if r["rows"][dist]["refused"]]
            row["ours_refused"] = refused[0] if refused else None
            for peer in ("tbx", "torch"):
                row[f"x_{peer}"] = row[peer] / row["ours"] if row.get(peer) and row.get("ours") else None
            met = row.get("x_tbx") is not None and row["x_tbx"] >= GOAL
            all_met &= met
            row["met"] = met
            table.append(row)
            cells = [_ms(row[lib]) if row.get(lib) else "–" for lib in LIBS]
            ratios = [f"{row[k]:.1f}×" if row.get(k) else "–" for k in ("x_tbx", "x_torch")]
            name = dist + (" (ours: ValueError)" if row["ours_refused"] else "")
            print(f"| {name} | {size:,d} | " + " | ".join(cells + ratios) + f" | {'met' if met else 'MISSED'} |")
    print(f"\nms = median seconds per add_histogram call (median of {args.reps} fresh processes); "
          "× = peer / ours. Rows: " + "; ".join(f"{d}: {w}" for d, w in DISTS.items() if d in args.dists))
    for err in errors:
        print(f"ERROR {err}")
    print(json.dumps({"target_met": all_met, "goal": f">= {GOAL}x tensorboardX on every row", "rows": table,
                      "errors": errors}))
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
