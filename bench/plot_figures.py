"""Figure benchmark: `tensorboard plot LOGDIR --out fig.pdf --grid --smoothing 0.6` on 12,000,000 scalars
(100 runs x 12 tags x 10,000 steps, our SummaryWriter) against the matplotlib script a user writes by hand
from `SummaryReader`: the same figure (a panel per tag, each run's raw line faint behind its smoothed one,
smoothed by pandas' `ewm(alpha=1 - w)`, which is TensorBoard's debiased moving average), every point drawn.

Each measurement is a fresh process, timed from start to exit (imports included, as a user waits for
them), both with this interpreter and PYTHONPATH=<repo>/python; alternating, median of --reps. Goal:
ours takes no longer than the script (ratio >= 1). Also records both PDFs' sizes. Prints a JSON line last.

    python bench/plot_figures.py                       # full size (the write alone takes minutes)
    python bench/plot_figures.py --scale 0.05 --steps 1000 --reps 1
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import ours_env  # noqa: E402  (bench/envs.py)
from logdirs import ScalarRun, write_scalar_runs  # noqa: E402
from timing import median_of  # noqa: E402

RUNS, TAGS, STEPS = 100, 12, 10_000
SMOOTHING = 0.6


def write_logdir(logdir: str, runs: int, tags: int, steps: int) -> None:
    """`runs` runs `lr_NNN` of `tags` tags in 3 groups: a decaying curve per run, offset per tag, with noise."""
    import numpy as np

    rng = np.random.default_rng(0)
    names = [f"group{t % 3}/metric{t:02d}" for t in range(tags)]

    def run(r: int) -> ScalarRun:
        values = (1.0 / (1.0 + np.arange(steps)[:, None] * (r + 1) / 5000) + np.arange(tags)
                  + rng.normal(0.0, 0.05, size=(steps, tags))).tolist()
        return ScalarRun(f"lr_{r:03d}", names, values)

    write_scalar_runs(logdir, (run(r) for r in range(runs)))


# What a user writes by hand: read every scalar into a DataFrame, then a panel per tag, a line per run.
BY_HAND = """
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
from tensorboard.reader import SummaryReader
logdir, out, weight = sys.argv[1], sys.argv[2], float(sys.argv[3])
frame = SummaryReader(logdir, extra_columns={"dir_name"}).scalars
tags = sorted(frame["tag"].unique())
columns = min(3, len(tags))
rows = -(-len(tags) // columns)
fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.0 * rows), squeeze=False)
for ax, tag in zip(axes.flat, tags):
    for i, (run, part) in enumerate(frame[frame["tag"] == tag].groupby("dir_name")):
        colour = f"C{i % 10}"
        ax.plot(part["step"], part["value"], color=colour, alpha=0.25, linewidth=1.0)
        ax.plot(part["step"], part["value"].ewm(alpha=1 - weight).mean(), color=colour, label=run)
    ax.set_title(tag)
fig.savefig(out)
"""


def timed(cmd: list[str], out: str, timeout: float = 7200) -> dict:
    """Runs `cmd` in a fresh process: its wall time and the size of the figure it wrote to `out`."""
    if os.path.exists(out):
        os.unlink(out)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=ours_env(), capture_output=True, text=True, timeout=timeout)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0 or not os.path.exists(out):
        raise RuntimeError(f"{cmd[:4]} failed:\n{proc.stderr[-2000:]}")
    return {"seconds": seconds, "bytes": os.path.getsize(out)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=3, help="fresh processes per measurement (default 3)")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the 100 runs (default 1.0)")
    parser.add_argument("--steps", type=int, default=STEPS, help=f"steps per tag (default {STEPS:,})")
    args = parser.parse_args(argv)
    runs = max(1, round(RUNS * args.scale))
    tmp = tempfile.mkdtemp(prefix="bench-plot-")
    try:
        logdir = os.path.join(tmp, "logs")
        t0 = time.perf_counter()
        write_logdir(logdir, runs, TAGS, args.steps)
        print(f"plot_figures: wrote {runs * TAGS * args.steps:,} scalars in {runs} runs "
              f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
        commands = {
            "ours": lambda out: [sys.executable, "-m", "tensorboard.cli.plot", logdir, "--out", out, "--grid",
                                 "--smoothing", str(SMOOTHING), "--force", "--quiet"],
            "by_hand": lambda out: [sys.executable, "-c", BY_HAND, logdir, out, str(SMOOTHING)],
        }
        measured: dict[str, list[dict]] = {"ours": [], "by_hand": []}
        for rep in range(args.reps):
            for who in (("ours", "by_hand") if rep % 2 == 0 else ("by_hand", "ours")):
                out = os.path.join(tmp, f"{who}.pdf")
                measured[who].append(timed(commands[who](out), out))
                print(f"plot_figures: {who} {measured[who][-1]}", file=sys.stderr, flush=True)
        ours_s, hand_s = median_of(measured["ours"], "seconds"), median_of(measured["by_hand"], "seconds")
        result = {
            "bench": "plot_figures", "scalars": runs * TAGS * args.steps, "runs": runs, "tags": TAGS,
            "steps": args.steps, "reps": args.reps, "ours_s": round(ours_s, 3), "by_hand_s": round(hand_s, 3),
            "ratio": round(hand_s / ours_s, 2), "ours_pdf_mb": round(measured["ours"][-1]["bytes"] / 1e6, 2),
            "by_hand_pdf_mb": round(measured["by_hand"][-1]["bytes"] / 1e6, 2),
            "goal": "ours_s <= by_hand_s", "target_met": ours_s <= hand_s,
        }
        print(f"plot_figures: tensorboard plot {ours_s:.2f} s, by hand {hand_s:.2f} s ({result['ratio']}x), "
              f"PDF {result['ours_pdf_mb']} MB vs {result['by_hand_pdf_mb']} MB", file=sys.stderr)
        print(json.dumps(result))
        return 0 if result["target_met"] else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
