"""Reading benchmark (part of `make bench`): logdirs into pandas DataFrames with our SummaryReader,
upstream's EventAccumulator (size guidance 0: keep everything) and tbparse, side by side.

Each (reader, workload, repetition) runs in a fresh process (bench/read_worker.py); ours with this
interpreter and PYTHONPATH=<repo>/python, EventAccumulator and tbparse with .venv-upstream's. Reports
the median time, the ratios and the peak RSS growth, checks the goals (>= 20x on the 1M-scalar file,
>= 5x on histograms, peak memory below both peers) and prints a JSON line last.

    python bench/read.py                       # full sizes (~5-10 min on 2 cores)
    python bench/read.py --scale 0.05 --reps 1 # quick look
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import BENCH, REPO, env_for, run_json  # noqa: E402  (bench/envs.py)
from page_cache import warm  # noqa: E402
from timing import median_of  # noqa: E402

# workload -> (kind, goal speed-up over both peers or None, what it is)
WORKLOADS = {
    "tbx_scalars_1M": ("scalars", 20.0, "1,000,000 scalars: 100 tags x 10,000 steps, one file, tensorboardX"),
    "tbx_histograms": ("histograms", 5.0, "10 runs x 20 histogram tags x 1,000 steps (64 bins), tensorboardX"),
    "torch_scalars_10runs": ("scalars", None, "10 runs x 10 tags x 2,000 steps, torch.utils.tensorboard"),
    "ours_scalars_1tag": ("scalars", None, "1 tag x 200,000 steps, our SummaryWriter"),
    "tbx_sparse_steps": ("scalars", None, "3 tags at different rates, steps > 1e6 (multi-byte varints), tensorboardX"),
}
READERS = ("ours", "ea", "tbparse")
LABELS = {"ours": "ours", "ea": "EventAccumulator", "tbparse": "tbparse"}


def make_logdir(workload: str, logdir: str, scale: float) -> None:
    python, env = env_for("ours" if workload.startswith("ours") else "tbparse")
    subprocess.run([python, os.path.join(BENCH, "read_logs.py"), workload, logdir, str(scale)], env=env,
                   check=True, timeout=3600)


def measure(reader: str, kind: str, logdir: str, timeout: float) -> dict:
    python, env = env_for(reader)
    warm(logdir)  # every reader starts from the page cache (bench/page_cache.py)
    return run_json([python, os.path.join(BENCH, "read_worker.py"), reader, kind, logdir], env, timeout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies the step counts (goals need 1.0)")
    parser.add_argument("--reps", type=int, default=3, help="fresh-process repetitions (median)")
    parser.add_argument("--workloads", nargs="+", choices=list(WORKLOADS), default=list(WORKLOADS))
    parser.add_argument("--timeout", type=float, default=1800)
    args = parser.parse_args(argv)
    tmp = tempfile.mkdtemp(prefix="tb-read-bench-")
    results: dict = {}
    try:
        for workload in args.workloads:
            kind, goal, what = WORKLOADS[workload]
            logdir = os.path.join(tmp, workload)
            make_logdir(workload, logdir, args.scale)
            size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(logdir) for f in fs)
            print(f"{workload}: {what} ({size / 1e6:.1f} MB)", flush=True)
            row = results[workload] = {"kind": kind, "goal": goal, "what": what, "bytes": size, "readers": {}}
            for reader in READERS:
                runs = [measure(reader, kind, logdir, args.timeout) for _ in range(args.reps)]
                good = [r for r in runs if "error" not in r]
                if not good:
                    row["readers"][reader] = {"error": runs[-1]["error"]}
                    print(f"  {LABELS[reader]:>16s}: ERROR {runs[-1]['error']}", flush=True)
                    continue
                row["readers"][reader] = {"seconds": median_of(good, "seconds"),
                                          "peak_delta_mb": median_of(good, "peak_delta_mb"),
                                          "rows": good[0]["rows"], "n": len(good)}
                s = row["readers"][reader]
                print(f"  {LABELS[reader]:>16s}: {s['seconds']:8.2f} s  {s['rows'] / s['seconds'] / 1e3:9.0f}k rows/s"
                      f"  peak +{s['peak_delta_mb']:7.1f} MB  rows={s['rows']}", flush=True)
            shutil.rmtree(logdir, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    all_met = True
    print("\n| workload | ours | EventAccumulator | tbparse | × EA | × tbparse | peak MB ours / EA / tbparse | goal |")
    print("|---|---|---|---|---|---|---|---|")
    for workload, row in results.items():
        r = row["readers"]
        if any("error" in r.get(x, {"error": 1}) for x in READERS):
            all_met = False
            print(f"| {workload} | error: {r} |")
            continue
        x_ea = r["ea"]["seconds"] / r["ours"]["seconds"]
        x_tp = r["tbparse"]["seconds"] / r["ours"]["seconds"]
        lower_mem = r["ours"]["peak_delta_mb"] < min(r["ea"]["peak_delta_mb"], r["tbparse"]["peak_delta_mb"])
        met = lower_mem and (row["goal"] is None or min(x_ea, x_tp) >= row["goal"])
        if row["goal"] is not None and args.scale == 1.0:
            all_met &= met
        row.update(x_ea=x_ea, x_tbparse=x_tp, lower_memory=lower_mem, goal_met=met)
        goal = f"≥{row['goal']:.0f}× + less memory: {'met' if met else 'NOT met'}" if row["goal"] else \
            f"less memory: {'yes' if lower_mem else 'NO'}"
        print(f"| {workload} ({row['what']}) | {r['ours']['seconds']:.2f} s | {r['ea']['seconds']:.2f} s | "
              f"{r['tbparse']['seconds']:.2f} s | {x_ea:.1f}× | {x_tp:.1f}× | {r['ours']['peak_delta_mb']:.0f} / "
              f"{r['ea']['peak_delta_mb']:.0f} / {r['tbparse']['peak_delta_mb']:.0f} | {goal} |")
    out = os.path.join(REPO, "artifacts", "bench")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "read_results.json"), "w") as f:
        json.dump({"config": vars(args), "results": results}, f, indent=1)
    print(json.dumps({"target_met": all_met, "scale": args.scale,
                      "ratios": {w: [round(r.get("x_ea", 0), 1), round(r.get("x_tbparse", 0), 1)]
                                 for w, r in results.items()}}))
    return 0 if all_met else 1


if __name__ == "__main__":
    sys.exit(main())
