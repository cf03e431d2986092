"""Report benchmark: `tensorboard export --out report.html` on a logdir of 1,200,000 scalars
(100 runs x 12 tags x 1,000 steps, our SummaryWriter) against tbparse just reading the same logdir
into a DataFrame; the page's size, and (when Playwright and Debian's chromium are there) the time
the page takes to open with its first screen of charts drawn (charts further down are drawn as they
come into view) and to draw every chart.

Each measurement runs in a fresh process, imports untimed: ours with this interpreter and
PYTHONPATH=<repo>/python, tbparse with .venv-upstream's. Alternating, median of --reps. Goal: the
export takes less time than tbparse's read (ratio > 1). Prints a JSON line last.

    python bench/report_export.py                 # full size (~3-5 min on 2 cores)
    python bench/report_export.py --scale 0.1 --reps 1
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
RUNS, TAGS, STEPS = 100, 12, 1000

WRITE = """
import os, sys
import numpy as np
import tensorboard
logdir, runs, tags, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(0)
for r in range(runs):
    noise = rng.normal(0.0, 0.02, size=(steps, tags))
    with tensorboard.SummaryWriter(os.path.join(logdir, f"lr_{r:03d}")) as writer:
        for step in range(steps):
            for t in range(tags):
                writer.add_scalar(f"group{t % 3}/metric{t:02d}",
                                  1.0 / (1.0 + step * (r + 1) / 500) + t + noise[step, t], step)
        writer.add_hparams({"lr": (r + 1) / 500, "seed": r % 5}, {})
"""

OURS = """
import sys, time, json
from tensorboard.report import export_report
t0 = time.perf_counter()
written = export_report(sys.argv[1], sys.argv[2], max_points=int(sys.argv[3]))
print(json.dumps({"seconds": time.perf_counter() - t0, **written}))
"""

TBPARSE = """
import sys, time, json
from tbparse import SummaryReader
t0 = time.perf_counter()
frame = SummaryReader(sys.argv[1], extra_columns={"dir_name"}).scalars
print(json.dumps({"seconds": time.perf_counter() - t0, "rows": len(frame)}))
"""

OPEN = """
import sys, json
from playwright.sync_api import sync_playwright
with sync_playwright() as p:
    browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                args=["--headless", "--no-sandbox", "--disable-gpu"])
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto("file://" + sys.argv[1])
    page.wait_for_function("() => window.tbReport && window.tbReport.ready "
                           "&& window.tbReport.timings.screen !== undefined",
                           timeout=600000)
    screen = page.evaluate("window.tbReport.timings.screen")  # ms since the navigation began
    every = page.evaluate("() => { const t = performance.now(); window.tbReport.drawAll(); "
                          "return performance.now() - t; }")
    canvases = page.evaluate("document.querySelectorAll('canvas').length")
    browser.close()
print(json.dumps({"seconds": screen / 1000, "draw_all_seconds": every / 1000, "canvases": canvases}))
"""


def upstream_python() -> str:
    return os.path.join(REPO, ".venv-upstream", "bin", "python")


def ours_env() -> dict:
    return {**os.environ, "PYTHONPATH": os.path.join(REPO, "python")}


def upstream_env() -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONNOUSERSITE"] = "1"
    return env


def run_json(python: str, code: str, args: list, env: dict, timeout: float = 3600) -> dict:
    proc = subprocess.run([python, "-c", code, *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"{python} failed:\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=3, help="fresh processes per measurement (default 3)")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the 100 runs (default 1.0)")
    parser.add_argument("--max-points", type=int, default=1000, help="the export's --max-points (default 1000)")
    args = parser.parse_args(argv)
    runs = max(1, round(RUNS * args.scale))
    tmp = tempfile.mkdtemp(prefix="bench-report-")
    try:
        logdir, page = os.path.join(tmp, "logs"), os.path.join(tmp, "report.html")
        t0 = time.perf_counter()
        run_json(sys.executable, WRITE + "\nprint('{}')", [logdir, runs, TAGS, STEPS], ours_env())
        print(f"report_export: wrote {runs * TAGS * STEPS:,} scalars in {runs} runs ({time.perf_counter() - t0:.0f} s)",
              file=sys.stderr, flush=True)
        ours, peer = [], []
        for rep in range(args.reps):
            for who in (("ours", "tbparse") if rep % 2 == 0 else ("tbparse", "ours")):
                if who == "ours":
                    if os.path.exists(page):
                        os.unlink(page)
                    ours.append(run_json(sys.executable, OURS, [logdir, page, args.max_points], ours_env()))
                else:
                    peer.append(run_json(upstream_python(), TBPARSE, [logdir], upstream_env()))
                print(f"report_export: {who} {(ours if who == 'ours' else peer)[-1]}", file=sys.stderr, flush=True)
        opened = None
        try:
            import playwright  # noqa: F401

            opened = [run_json(sys.executable, OPEN, [page], os.environ) for _ in range(args.reps)]
        except ImportError:
            print("report_export: playwright is not installed: the page's opening time is not measured",
                  file=sys.stderr)
        export_s = statistics.median(r["seconds"] for r in ours)
        tbparse_s = statistics.median(r["seconds"] for r in peer)
        result = {
            "bench": "report_export", "scalars": runs * TAGS * STEPS, "runs": runs, "tags": TAGS, "steps": STEPS,
            "max_points": args.max_points, "reps": args.reps,
            "export_s": round(export_s, 3), "tbparse_read_s": round(tbparse_s, 3),
            "ratio": round(tbparse_s / export_s, 2), "page_bytes": ours[-1]["bytes"],
            "page_mb": round(ours[-1]["bytes"] / 1e6, 2), "charts": ours[-1]["charts"],
            "tbparse_rows": peer[-1]["rows"],
            "open_s": None if opened is None else round(statistics.median(o["seconds"] for o in opened), 3),
            "draw_all_s": (None if opened is None
                           else round(statistics.median(o["draw_all_seconds"] for o in opened), 3)),
            "goal": "export_s < tbparse_read_s", "target_met": export_s < tbparse_s,
        }
        print(f"report_export: export {export_s:.2f} s, tbparse read {tbparse_s:.2f} s ({result['ratio']}x), "
              f"page {result['page_mb']} MB" + ("" if opened is None else
                                                  f", first screen in {result['open_s']} s, "
                                                  f"every chart in +{result['draw_all_s']} s"),
              file=sys.stderr)
        print(json.dumps(result))
        return 0 if result["target_met"] else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
