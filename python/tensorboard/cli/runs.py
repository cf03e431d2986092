"""`tensorboard runs`: a logdir's runs on the command line.

    tensorboard runs ls LOGDIR [--where Q] [--metrics 'val/loss=min'] [--sort -val/loss] [--format csv]
    tensorboard runs archive LOGDIR [PATTERN...] [--where Q]   # to LOGDIR.archived, out of every server's sight
    tensorboard runs restore LOGDIR [PATTERN...]               # back from LOGDIR.archived
    tensorboard runs rm LOGDIR [PATTERN...] [--where Q] --yes  # without --yes: what would be deleted

PATTERNs are shell-style globs matched against whole run names (`'lr=0.1,*'`); `--runs`/`--exclude`
are regexes searched in them, as in `export`. The work is the engine's (`logdir.run_table`,
`logdir.archive`, `logdir.experiment`); this module parses, prints and asks."""
from __future__ import annotations

import argparse
import fnmatch
import sys

from tensorboard.cli import runs_output
from tensorboard.cli.messages import one_line_warnings
from tensorboard.logdir.archive import DELETING
from tensorboard.logdir.arguments import add_experiment_arguments, add_run_filter_arguments
from tensorboard.logdir.run_table import ACTIVE_WITHIN

PROG = "tensorboard runs"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=PROG, description="List, archive, restore and remove a logdir's runs.")
    commands = p.add_subparsers(dest="command", required=True, metavar="{ls,archive,restore,rm}")
    ls = commands.add_parser("ls", help="one row per run: hparams, steps, last write, size, metrics")
    _common(ls, patterns=False)
    ls.add_argument("--metrics", default=None, metavar="TAG=AGG,...",
                    help="scalar tags to show as last, min or max: 'val/loss=min,val/acc=max' (a tag alone: last)")
    ls.add_argument("--sort", default=None, metavar="COLUMN",
                    help="sort by a column (run, first_step, last_step, last_write, size, an hparam, a metric such "
                         "as 'val/loss (min)'); a leading '-' sorts descending; runs lacking it come last")
    ls.add_argument("--format", default="table", choices=("table", "csv", "json"), help="output format")
    ls.add_argument("--all-hparams", action="store_true", help="every hparam column, not only those that vary")
    ls.add_argument("--sources", action="store_true", help="show where each hparam came from (table and csv)")
    ls.add_argument("--over", default=None, metavar="KEYS", help="add each run's configuration group (see reduce)")
    for name, verb in (("archive", "move runs to LOGDIR.archived"), ("restore", "move archived runs back"),
                       ("rm", "delete runs (shows what it would delete; deletes with --yes)")):
        sub = commands.add_parser(name, help=verb)
        _common(sub, patterns=True)
        sub.add_argument("--force", action="store_true", help="also runs being written right now")
        if name == "rm":
            sub.add_argument("--yes", action="store_true", help="delete (without it, only show what would go)")
    return p


def _common(p: argparse.ArgumentParser, patterns: bool) -> None:
    p.add_argument("logdir", metavar="LOGDIR", help="directory or fsspec URL (s3://...)")
    if patterns:
        p.add_argument("patterns", nargs="*", metavar="PATTERN", help="globs matched against whole run names")
    add_run_filter_arguments(p)
    add_experiment_arguments(p)
    p.add_argument("--active-within", type=float, default=ACTIVE_WITHIN, metavar="SECONDS",
                   help=f"a run whose newest event file changed less than SECONDS ago is being written "
                        f"(default {ACTIVE_WITHIN:g})")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def wants(patterns: list[str]):
    """A predicate on run names: any glob of `patterns` matches the whole name (none: every run)."""
    if not patterns:
        return lambda run: True
    return lambda run: any(fnmatch.fnmatchcase(run, pattern) for pattern in patterns)


def _read(args, selection, listing_root=None):
    """(every run's listing, the chosen runs' listing, their experiment), read with progress on stderr."""
    from tensorboard.logdir.discovery import list_runs
    from tensorboard.logdir.experiment import read_listed_experiment
    from tensorboard.logdir.progress import Progress

    everything = list_runs(listing_root or args.logdir)
    if listing_root is not None:  # an archive: not the runs a removal was deleting
        everything = everything.only(lambda run: not run.startswith(DELETING + "/"))
    listing = everything.only(selection.wants_run).only(wants(getattr(args, "patterns", [])))
    progress = Progress(PROG, quiet=args.quiet)
    try:
        experiment = read_listed_experiment(listing, selection, True, progress, over_flag="--over")
    finally:
        progress.close()
    return everything, listing, experiment


def _selection(args):
    from tensorboard.logdir.selection import CLI_FLAGS, Selection

    return Selection.of(args.runs, None, None, None, flags=CLI_FLAGS, exclude=args.exclude, where=args.where,
                        over=getattr(args, "over", None), hparams_file=args.hparams_file)


def ls(args) -> int:
    from tensorboard.logdir.metrics import parse_metrics
    from tensorboard.logdir.run_table import run_rows

    metrics = parse_metrics(args.metrics, "--metrics")
    _, listing, experiment = _read(args, _selection(args))
    rows = run_rows(listing, experiment.runs, experiment.hparams, metrics, args.active_within)
    groups = experiment.grouping.group_of() if experiment.grouping is not None else None
    for note in experiment.grouping.notes if experiment.grouping is not None else ():
        print(f"{PROG}: note: {note}", file=sys.stderr)
    runs_output.write(rows, args, groups, sys.stdout)
    return 0


def move(args) -> int:
    """archive, restore or rm."""
    from tensorboard.logdir import archive
    from tensorboard.logdir.discovery import list_runs

    if not (args.patterns or args.runs or args.where):
        raise ValueError(f"name the runs to {args.command}: PATTERN..., --runs or --where")
    logdir_listing = list_runs(args.logdir)
    source_root = archive.archive_root(logdir_listing) if args.command == "restore" else None
    everything, listing, experiment = _read(args, _selection(args), source_root)
    chosen = [run.name for run in experiment.runs]
    if not chosen:
        print(f"{PROG} {args.command}: no run matches", file=sys.stderr)
        return 1
    if not args.force:
        _refuse_active(listing, experiment, args)
    if args.command == "rm":
        return _remove(everything, chosen, args)
    target = logdir_listing.root if args.command == "restore" else archive.archive_root(listing)
    verb = "restored" if args.command == "restore" else "archived"
    for step in archive.plan_moves(everything, chosen, target):  # every run: those inside a chosen one count
        archive.move_run(everything, step)
        print(f"{verb} {step.run}: {step.source} -> {step.target}")
    return 0


def _refuse_active(listing, experiment, args) -> None:
    from tensorboard.logdir.run_table import run_rows

    rows = run_rows(listing, experiment.runs, experiment.hparams, [], args.active_within)
    active = [row.run for row in rows if row.active]
    if active:
        count = f"{len(active)} run{'s are' if len(active) > 1 else ' is'}"
        raise ValueError(f"{count} being written (an event file changed less than {args.active_within:g} s "
                         f"ago): {', '.join(active[:5])}; pass --force to {args.command} them anyway")


def _remove(listing, chosen: list[str], args) -> int:
    from tensorboard.logdir import archive
    from tensorboard.logdir.run_table import run_sizes

    steps = archive.plan_moves(listing, chosen, archive.trash_root(listing))
    sizes = run_sizes(listing)
    for step in steps:
        size = runs_output.human_size(sizes.get(step.run, 0))
        if not args.yes:
            print(f"would delete {step.run} ({size}): {step.source}")
            continue
        archive.remove_run(listing, step)
        print(f"deleted {step.run} ({size}): {step.source}")
    if not args.yes:
        print(f"{PROG} rm: nothing deleted; pass --yes to delete these {len(steps)} runs", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """Runs `tensorboard runs ARGV`; returns 0 done, 1 failed or nothing matched, 2 invalid arguments."""
    args = parser().parse_args(argv)
    with one_line_warnings(PROG):
        try:
            from tensorboard.logdir.arguments import check_experiment_arguments
            from tensorboard.logdir.selection import compile_pattern

            compile_pattern("--runs", args.runs)
            compile_pattern("--exclude", args.exclude)
            check_experiment_arguments(args)
        except (ValueError, TypeError) as err:
            print(f"{PROG}: {err}", file=sys.stderr)
            return 2
        try:
            return ls(args) if args.command == "ls" else move(args)
        except (OSError, ValueError) as err:
            print(f"{PROG} {args.command}: {err}", file=sys.stderr)
            return 1


if __name__ == "__main__":
    sys.exit(main())
