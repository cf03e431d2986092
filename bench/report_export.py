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
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import ours_env, peer_env, python_of, run_json  # noqa: E402  (bench/envs.py)
from logdirs import ScalarRun, write_scalar_runs  # noqa: E402
from page_cache import warm  # noqa: E402
from timing import median_of  # noqa: E402

RUNS, TAGS, STEPS = 100, 12, 1000


def write_logdir(logdir: str, runs: int, tags: int, steps: int) -> None:
    """`runs` runs `lr_NNN` of `tags` tags in 3 groups (a decaying curve per run, offset per tag, with noise)
    and each run's hyperparameters."""
    import numpy as np

    rng = np.random.default_rng(0)
    names = [f"group{t % 3}/metric{t:02d}" for t in range(tags)]

    def run(r: int) -> ScalarRun:
        noise = rng.normal(0.0, 0.02, size=(steps, tags))
        values = (1.0 / (1.0 + np.arange(steps) * (r + 1) / 500))[:, None] + np.arange(tags) + noise
        return ScalarRun(f"lr_{r:03d}", names, values.tolist(), hparams={"lr": (r + 1) / 500, "seed": r % 5})

    write_scalar_runs(logdir, (run(r) for r in range(runs)))


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


def run_code(python: str, code: str, args: list, env: dict, timeout: float = 3600) -> dict:
    """Runs the snippet `code` with `args` in a fresh process: the JSON line it printed last; raises if it failed."""
    result = run_json([python, "-c", code, *map(str, args)], env, timeout)
    if "error" in result:
        raise RuntimeError(f"{python} failed:\n{result['error']}")
    return result


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
        write_logdir(logdir, runs, TAGS, STEPS)
        print(f"report_export: wrote {runs * TAGS * STEPS:,} scalars in {runs} runs ({time.perf_counter() - t0:.0f} s)",
              file=sys.stderr, flush=True)
        ours, peer = [], []
        for rep in range(args.reps):
            for who in (("ours", "tbparse") if rep % 2 == 0 else ("tbparse", "ours")):
                warm(logdir)  # bench/page_cache.py: both start from the page cache
                if who == "ours":
                    if os.path.exists(page):
                        os.unlink(page)
                    ours.append(run_code(sys.executable, OURS, [logdir, page, args.max_points], ours_env()))
                else:
                    peer.append(run_code(python_of("peers"), TBPARSE, [logdir], peer_env()))
                print(f"report_export: {who} {(ours if who == 'ours' else peer)[-1]}", file=sys.stderr, flush=True)
        opened = None
        try:
            import playwright  # noqa: F401

            opened = [run_code(sys.executable, OPEN, [page], dict(os.environ)) for _ in range(args.reps)]
        except ImportError:
            print("report_export: playwright is not installed: the page's opening time is not measured",
                  file=sys.stderr)
        export_s, tbparse_s = median_of(ours, "seconds"), median_of(peer, "seconds")
        result = {
            "bench": "report_export", "scalars": runs * TAGS * STEPS, "runs": runs, "tags": TAGS, "steps": STEPS,
            "max_points": args.max_points, "reps": args.reps,
            "export_s": round(export_s, 3), "tbparse_read_s": round(tbparse_s, 3),
            "ratio": round(tbparse_s / export_s, 2), "page_bytes": ours[-1]["bytes"],
            "page_mb": round(ours[-1]["bytes"] / 1e6, 2), "charts": ours[-1]["charts"],
            "tbparse_rows": peer[-1]["rows"],
            "open_s": None if opened is None else round(median_of(opened, "seconds"), 3),
            "draw_all_s": None if opened is None else round(median_of(opened, "draw_all_seconds"), 3),
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
