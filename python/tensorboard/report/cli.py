"""`tensorboard export --logdir DIR --out report.html`: reads the logdir, extracts what the page shows
and writes the page (through a temporary file renamed into place, as the table formats are)."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from tensorboard.reader._select import compile_pattern, parse_steps
from tensorboard.report.extract import REPORT_KINDS


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tensorboard export",
                                description="a logdir as one self-contained HTML page (--out ending in .html)")
    p.add_argument("--logdir", required=True, help="directory, event file or fsspec URL (s3://...)")
    p.add_argument("--out", required=True, help="the page to write (.html)")
    p.add_argument("--kind", action="append", choices=REPORT_KINDS,
                   help="what the page shows; repeat for several (default: all of " + ", ".join(REPORT_KINDS) + ")")
    p.add_argument("--runs", default=None, help="regex: only runs whose name (relative directory) matches")
    p.add_argument("--tags", default=None, help="regex: only tags that match (charts, images, text)")
    p.add_argument("--steps", default=None, metavar="LO:HI",
                   help="only steps LO to HI, both included (LO: or :HI leaves one end open)")
    p.add_argument("--max-points", type=int, default=1000,
                   help="points per series at most, evenly spread, first and last kept (default: 1000)")
    p.add_argument("--title", default=None, help="the page's title (default: the logdir's name)")
    p.add_argument("--skip-damaged", action="store_true",
                   help="keep what precedes damage in a corrupt file (warns) instead of failing")
    p.add_argument("--force", action="store_true", help="replace --out if it exists (default: refuse)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return p


def export_report(logdir: str, out: str, kinds=REPORT_KINDS, runs: str | None = None, tags: str | None = None,
                  max_points: int = 1000, title: str | None = None, skip_damaged: bool = False,
                  force: bool = True, progress=None, steps: str | tuple | None = None) -> dict:
    """Writes the report of `logdir` to `out`; returns {"bytes", "runs", "charts"} of what it wrote.
    `runs`, `tags`: regexes; `steps`: (lo, hi) or 'LO:HI', both ends included."""
    from tensorboard.reader._runs import read_runs
    from tensorboard.reader.export import check_out, write_atomically
    from tensorboard.report.extract import extract
    from tensorboard.report.render import render

    if not str(out).lower().endswith(".html"):
        raise ValueError(f"--out {out!r}: a report is written to a file ending in .html")
    unknown = [k for k in kinds if k not in REPORT_KINDS]
    if unknown:
        raise ValueError(f"--kind {unknown[0]!r}: choose from {', '.join(REPORT_KINDS)}")
    if max_points < 2:
        raise ValueError(f"--max-points must be at least 2 (the first and the last point), got {max_points}")
    bounds = parse_steps(steps) if isinstance(steps, str) else steps
    check_out(out, force)
    run_re, _ = compile_pattern("--runs", runs), compile_pattern("--tags", tags)
    data = read_runs(logdir, skip_damaged=skip_damaged, progress=progress,
                     run_filter=None if run_re is None else (lambda name: bool(run_re.search(name))))
    report = extract(data, tuple(kinds), tags, max_points, bounds)
    name = title or os.path.basename(os.path.normpath(str(logdir))) or str(logdir)
    page = render(report, name, max_points).encode("utf-8")
    write_atomically(out, force, lambda tmp: Path(tmp).write_bytes(page))
    charts = len(report.scalars) + sum(len(items) for items in report.distributions.values())
    return {"bytes": len(page), "runs": len(report.runs), "charts": charts}


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    started = time.monotonic()
    last = [started]

    def progress(done: int, total: int, path: str) -> None:
        now = time.monotonic()
        if not args.quiet and (now - last[0] > 1.0 or (done == total and now - started > 1.0)):
            last[0] = now
            print(f"tensorboard export: read {done}/{total} files ({now - started:.1f} s) {path}", file=sys.stderr)

    try:
        written = export_report(args.logdir, args.out, tuple(args.kind or REPORT_KINDS), args.runs, args.tags,
                                args.max_points, args.title, args.skip_damaged, args.force, progress, args.steps)
    except (OSError, ValueError) as err:
        print(f"tensorboard export: {err}", file=sys.stderr)
        return 1 if isinstance(err, OSError) and not isinstance(err, (FileExistsError, IsADirectoryError)) else 2
    if not args.quiet:
        print(f"tensorboard export: wrote {args.out} ({written['bytes'] / 1e6:.1f} MB: {written['charts']} charts, "
              f"{written['runs']} runs; {time.monotonic() - started:.1f} s)", file=sys.stderr)
    return 0
