"""`tensorboard export --logdir DIR --out report.html`: reads the logdir, extracts what the page shows
and writes the page (through a temporary file renamed into place, as the table formats are)."""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from tensorboard.logdir import Selection, read_runs
from tensorboard.logdir.arguments import add_experiment_arguments, add_reading_arguments, add_writing_arguments
from tensorboard.logdir.grouping import check_one_grouping
from tensorboard.logdir.output import check_out, write_atomically
from tensorboard.logdir.progress import Progress
from tensorboard.logdir.selection import CLI_FLAGS, compile_pattern, parse_steps
from tensorboard.report.extract import REPORT_KINDS, ReportData


def parser() -> argparse.ArgumentParser:
    """The options of `tensorboard export` with an --out ending in .html."""
    p = argparse.ArgumentParser(prog="tensorboard export",
                                description="a logdir as one self-contained HTML page (--out ending in .html)")
    add_reading_arguments(p, tags_help="regex: only tags that match (charts, images, text)")
    p.add_argument("--out", required=True, help="the page to write (.html)")
    p.add_argument("--kind", action="append", choices=REPORT_KINDS,
                   help="what the page shows; repeat for several (default: all of " + ", ".join(REPORT_KINDS) + ")")
    p.add_argument("--max-points", type=int, default=1000,
                   help="points per series at most, evenly spread, first and last kept (default: 1000)")
    p.add_argument("--title", default=None, help="the page's title (default: the logdir's name)")
    p.add_argument("--group_runs", "--group-runs", dest="group_runs", default=None, metavar="REGEX",
                   help="also draw each group of runs (names equal once REGEX's matches are removed) as its mean "
                        "with a band of ± std")
    add_experiment_arguments(p, over=True)
    add_writing_arguments(p)
    return p


def export_report(logdir: str, out: str, kinds=REPORT_KINDS, runs: str | None = None, tags: str | None = None,
                  max_points: int = 1000, title: str | None = None, skip_damaged: bool = False,
                  force: bool = False, progress=None, steps: str | tuple | None = None, *,
                  exclude: str | None = None, group_runs: str | None = None, where: str | None = None,
                  over=None, hparams_file: str | None = None) -> dict:
    """Writes `logdir` as one self-contained HTML page, `tensorboard export --out page.html` from Python.

    The page is written to a temporary file beside `out`, then renamed into place.

    Args:
        logdir: The logdir to read.
        out: The page to write, a path ending in .html.
        kinds: What the page shows, from "scalars", "histograms", "images", "text", "hparams" (default: all).
        runs: A regex; only runs whose name it matches are read.
        tags: A regex; only tags it matches are shown.
        max_points: Points per series at most (at least 2), evenly spread, first and last kept.
        title: The page's title; None: the logdir's name.
        skip_damaged: Skip the rest of a corrupt file with a warning instead of raising.
        force: Replace an existing `out`; without it an existing `out` is refused, as the CLI
            refuses it without --force.
        progress: Called as `progress(files_done, files_total, path)` after each file read.
        steps: (lo, hi) or "LO:HI", both ends included.
        exclude: A regex; the runs it matches are left out.
        group_runs: A regex grouping runs (names equal once its matches are removed), each group
            also drawn as its mean with a band of ± std.
        where: A query on the runs' hyperparameters (`'lr < 0.01 and optimizer == "adam"'`, see
            docs/experiments.md); only runs it matches are shown.
        over: Hyperparameters (a comma-separated string or a list, e.g. "seed") the runs of one
            configuration differ in: each configuration of two or more runs is also drawn as its
            mean with a band of ± std, named after what varies (`lr=0.01`).
        hparams_file: Also read hyperparameters from this file in each run's directory or a parent.

    Returns:
        {"bytes": the page's size, "runs": runs shown, "charts": charts drawn}.

    Raises:
        FileExistsError: `out` exists and `force` is False.
        IsADirectoryError: `out` is a directory.
        FileNotFoundError: `logdir` does not exist.
        ValueError: An `out` not ending in .html, an unknown kind, `max_points` below 2, an
            invalid regex, step range or query, both `group_runs` and `over`, or an `over` key no run has.

    Examples:
        >>> from tensorboard.report import export_report
        >>> export_report("logs/sweep", "sweep.html", max_points=500)
        {'bytes': ..., 'runs': ..., 'charts': ...}
    """
    check_arguments(out, kinds, max_points, tags, group_runs, steps)
    selection = report_selection(runs, exclude, where, over, hparams_file, group_runs)
    check_out(out, force)
    page, report = build_page(logdir, kinds, selection, tags, max_points, title, skip_damaged, progress, steps,
                              group_runs=group_runs)
    data = page.encode("utf-8")
    write_atomically(out, force, lambda tmp: Path(tmp).write_bytes(data))
    charts = len(report.scalars) + sum(len(items) for items in report.distributions.values())
    return {"bytes": len(data), "runs": len(report.runs), "charts": charts}


def check_arguments(out: str | None, kinds, max_points: int, tags: str | None, group_runs: str | None,
                    steps: str | tuple | None = None) -> None:
    """Refuses bad options by name before anything is read (`out` None: no file is written)."""
    if out is not None and not str(out).lower().endswith(".html"):
        raise ValueError(f"--out {out!r}: a report is written to a file ending in .html")
    unknown = [k for k in kinds if k not in REPORT_KINDS]
    if unknown:
        raise ValueError(f"--kind {unknown[0]!r}: choose from {', '.join(REPORT_KINDS)}")
    if max_points < 2:
        raise ValueError(f"--max-points must be at least 2 (the first and the last point), got {max_points}")
    if isinstance(steps, str):
        parse_steps(steps)
    compile_pattern("--tags", tags)
    compile_pattern("--group_runs", group_runs)


def report_selection(runs: str | None, exclude: str | None, where: str | None, over, hparams_file: str | None,
                     group_runs: str | None, flags: tuple[str, ...] = CLI_FLAGS) -> Selection:
    """The runs a report shows, checked: regexes, query, `over` keys and file name; a ValueError naming
    the option, also for both `group_runs` and `over`."""
    selection = Selection.of(runs=runs, flags=flags, exclude=exclude, where=where, over=over,
                             hparams_file=hparams_file)
    check_one_grouping(group_runs, selection.over, "--group_runs" if flags is CLI_FLAGS else "group_runs", flags[5])
    return selection


def build_page(logdir: str, kinds, selection: Selection, tags: str | None, max_points: int, title: str | None,
               skip_damaged: bool, progress, steps, *, group_runs: str | None,
               storage_options: dict | None = None) -> tuple[str, ReportData]:
    """Reads the runs of `logdir` that `selection` wants and returns the report page as text, with the
    data it shows (options as `export_report`'s, already checked)."""
    from tensorboard.report.extract import extract
    from tensorboard.report.render import render

    bounds = parse_steps(steps) if isinstance(steps, str) else steps
    groups = group_runs
    if selection.needs_hparams or selection.hparams_file is not None:
        from tensorboard.logdir.experiment import read_experiment

        experiment = read_experiment(logdir, storage_options, selection, skip_damaged, progress,
                                     over_flag="--over")
        data = experiment.runs
        if experiment.grouping is not None:
            groups = {group.name: list(group.runs) for group in experiment.grouping.groups}
    else:
        data = read_runs(logdir, storage_options, skip_damaged=skip_damaged, progress=progress, selection=selection)
    report = extract(data, tuple(kinds), tags, max_points, bounds, groups)
    name = title or os.path.basename(os.path.normpath(str(logdir))) or str(logdir)
    return render(report, name, max_points), report


def main(argv: list[str] | None = None) -> int:
    """`tensorboard export` to an HTML page.

    Args:
        argv: The command line's arguments; None: `sys.argv[1:]`.

    Returns:
        The exit status: 0 written; 2 for an existing `--out` or a ValueError (invalid arguments, a
        damaged event file); 1 for other I/O errors.
    """
    args = parser().parse_args(argv)
    started = time.monotonic()
    progress = Progress(quiet=args.quiet)
    try:
        written = export_report(args.logdir, args.out, tuple(args.kind or REPORT_KINDS), args.runs, args.tags,
                                args.max_points, args.title, args.skip_damaged, args.force, progress, args.steps,
                                exclude=args.exclude, group_runs=args.group_runs, where=args.where,
                                over=args.over, hparams_file=args.hparams_file)
    except (OSError, ValueError) as err:
        progress.close()
        print(f"tensorboard export: {err}", file=sys.stderr)
        return 1 if isinstance(err, OSError) and not isinstance(err, (FileExistsError, IsADirectoryError)) else 2
    progress.close()
    if not args.quiet:
        print(f"tensorboard export: wrote {args.out} ({written['bytes'] / 1e6:.1f} MB: {written['charts']} charts, "
              f"{written['runs']} runs; {time.monotonic() - started:.1f} s)", file=sys.stderr)
    return 0
