"""`tensorboard reduce RUN_DIR... --out OUT` (or `--logdir D --group_by REGEX`): seeds reduced step by
step into one run per op, `OUT/<op>` (`OUT/<group>/<op>` with groups), plus a run `band` per group
and a Custom Scalars layout, so that TensorBoard draws each tag's mean with a band around it."""
from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

from tensorboard.cli.messages import one_line_warnings
from tensorboard.events.bulk_encode import scalar_records
from tensorboard.events.file_names import event_file_name, header_record
from tensorboard.events.record import frame as frame_record
from tensorboard.events.storage import LOCAL
from tensorboard.events.wire import summary_event
from tensorboard.logdir import Selection, is_event_file
from tensorboard.logdir.arguments import add_experiment_arguments, add_run_filter_arguments, add_writing_arguments
from tensorboard.logdir.grouping import check_one_grouping
from tensorboard.logdir.output import contained_path, write_directory_atomically
from tensorboard.logdir.selection import CLI_FLAGS
from tensorboard.stats.reduction import DUPLICATE_STEPS, REDUCE_OPS, TagReduction, check_ops, reduce_tag_groups
from tensorboard.summary.custom_scalars import custom_scalars

BANDS = {"std": ("mean ± std", ("mean", "std")), "minmax": ("mean, min to max", ("mean", "min", "max"))}
BAND_RUN = "band"


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tensorboard reduce",
                                description="Seeds reduced step by step into one run per op, and a band run with "
                                            "a Custom Scalars layout that draws each tag's mean with a band.")
    p.add_argument("run_dirs", nargs="*", metavar="RUN_DIR", help="run directories, each one seed")
    p.add_argument("--logdir", default=None, help="a logdir whose runs are the seeds (instead of RUN_DIRs)")
    p.add_argument("--out", required=True, help="the directory to write the reduced runs to")
    p.add_argument("-r", "--ops", "--reduce-ops", dest="ops", default="mean", metavar="OPS",
                   help=f"comma-separated reductions from {','.join(REDUCE_OPS)} (default: mean)")
    p.add_argument("--group_by", "--group-by", dest="group_by", default=None, metavar="REGEX",
                   help="with --logdir: runs whose names are equal once REGEX's matches are removed form one group "
                        r"(e.g. '_seed\d+'); each group is written to OUT/<group>/")
    add_run_filter_arguments(p)
    add_experiment_arguments(p, over=True)
    p.add_argument("--tags", default=None, help="regex: only scalar tags that match")
    p.add_argument("--lax-steps", action="store_true", help="reduce runs whose steps differ, at the steps all have")
    p.add_argument("--lax-tags", action="store_true", help="reduce runs whose tags differ, each tag over its runs")
    p.add_argument("--min-runs-per-step", type=int, default=None, metavar="N",
                   help="keep every step at least N runs have (implies --lax-steps)")
    p.add_argument("--handle-dup-steps", choices=DUPLICATE_STEPS, default=None,
                   help="which value of a step logged twice in one run counts (default: refuse the run)")
    p.add_argument("--band", choices=tuple(BANDS), default="std",
                   help="the band Custom Scalars draws around the mean: std (mean ± std, the default) or minmax")
    add_writing_arguments(p)
    return p


def check_out_runs(out: str, force: bool) -> None:
    """Refuses an existing `out` unless `force` and it holds event files only (what reduce writes).

    Args:
        out: The output directory.
        force: Replace an existing, non-empty `out`.

    Raises:
        FileExistsError: `out` is a file, or exists without `force`, or holds other files.
    """
    if os.path.lexists(out) and not os.path.isdir(out):
        raise FileExistsError(f"--out {out!r} is a file; reduce writes a directory")
    if not os.path.isdir(out) or not os.listdir(out):
        return
    if not force:
        raise FileExistsError(f"--out {out!r} exists; pass --force to replace it")
    for directory, _, files in os.walk(out):
        strangers = [name for name in files if not is_event_file(name)]
        if strangers:
            raise FileExistsError(f"--out {out!r} holds {os.path.join(directory, strangers[0])!r}, which no reduce "
                                  "wrote; refusing to replace it even with --force")


def write_reduced(reduced: dict[str | None, list[TagReduction]], out: str, ops: tuple[str, ...],
                  band: str = "std") -> int:
    """Writes reduced runs below `out`: a run per op and a band run per group (tag, tag/lower,
    tag/upper), the Custom Scalars layout in the first band run; each run is one event file.

    Args:
        reduced: `stats.reduction.reduce_tag_groups`' result, {group: its tags} ({None: tags}
            without groups), with the columns of `ops` and of the band.
        out: The directory to write into (OUT/<group>/ per group, in name order).
        ops: The ops to write a run for.
        band: "std" (mean ± std) or "minmax" (min to max).

    Returns:
        How many runs were written.
    """
    wall = time.time()
    written = 0
    for index, group in enumerate(sorted(reduced, key=str) if None not in reduced else [None]):
        base = out if group is None else contained_path(out, str(group))
        tags = reduced[group]
        for op in ops:
            _write_run(os.path.join(base, op), [(tag.tag, tag.steps, tag.columns[op]) for tag in tags], wall)
        series = []
        for tag in tags:
            lower, upper = _band(tag.columns, band)
            series += [(tag.tag, tag.steps, tag.columns["mean"]), (f"{tag.tag}/lower", tag.steps, lower),
                       (f"{tag.tag}/upper", tag.steps, upper)]
        layout = custom_scalars({BANDS[band][0]: layout_for(reduced)}) if index == 0 else None
        _write_run(os.path.join(base, BAND_RUN), series, wall, layout)
        written += len(ops) + 1
    return written


def _write_run(directory: str, series: list, wall: float, summary=None) -> None:
    """One event file in `directory`: the header, `summary` (if any), then each (tag, steps, values)."""
    os.makedirs(directory, exist_ok=True)
    parts = [header_record("tensorboard reduce")]
    if summary is not None:
        parts.append(frame_record(summary_event(summary.SerializeToString(), 0, wall)))
    for tag, steps, values in series:
        parts.append(scalar_records(tag, steps, values, np.full(len(steps), wall)))
    LOCAL.write_chunks(os.path.join(directory, event_file_name()), parts)  # atomic, fsync'd, umask honoured


def layout_for(reduced: dict[str | None, list[TagReduction]]) -> dict:
    """One margin chart per tag: a band run's mean with its lower and upper bounds.

    Args:
        reduced: `stats.reduction.reduce_tag_groups`' result.

    Returns:
        {tag: ["Margin", [tag, tag/lower, tag/upper]]} for every tag of any group, in the order first
        met, `add_custom_scalars`'s chart format.
    """
    tags = dict.fromkeys(tag.tag for group in reduced.values() for tag in group)
    return {tag: ["Margin", [tag, f"{tag}/lower", f"{tag}/upper"]] for tag in tags}


def _band(columns: dict[str, np.ndarray], band: str) -> tuple[np.ndarray, np.ndarray]:
    if band == "std":
        return columns["mean"] - columns["std"], columns["mean"] + columns["std"]
    return columns["min"], columns["max"]


def main(argv: list[str] | None = None) -> int:
    """Runs `tensorboard reduce ARGV`; each warning (a damaged value, a truncated file) is one line on stderr.

    Args:
        argv: The command line's arguments; None: `sys.argv[1:]`.

    Returns:
        The exit status: 0 done, 1 reading or writing failed, 2 invalid arguments.
    """
    with one_line_warnings("tensorboard reduce"):
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    """`main` within one-line warnings."""
    args = parser().parse_args(argv)
    try:
        ops = check_ops(args.ops, "--ops")
        if bool(args.run_dirs) == bool(args.logdir):
            raise ValueError("give either RUN_DIRs or --logdir")
        for flag, value in (("--group_by", args.group_by), ("--over", args.over), ("--where", args.where),
                            ("--hparams_file", args.hparams_file)):
            if value is not None and not args.logdir:
                verb = "groups" if flag in ("--group_by", "--over") else "chooses among"
                raise ValueError(f"{flag} {verb} the runs of --logdir")
        check_one_grouping(args.group_by, args.over, "--group_by")
        selection = Selection.of(args.runs, args.tags, None, {"scalars"}, flags=CLI_FLAGS, exclude=args.exclude,
                                 where=args.where, over=args.over, hparams_file=args.hparams_file)
        check_out_runs(args.out, args.force)
    except (ValueError, OSError) as err:
        print(f"tensorboard reduce: {err}", file=sys.stderr)
        return 2
    started = time.monotonic()
    try:
        groups = None
        if args.logdir:  # hparams, --where and --over: imported only for a logdir
            from tensorboard.logdir.experiment import read_experiment

            experiment = read_experiment(args.logdir, None, selection, over_flag="--over")
            runs = experiment.runs
            groups = _groups(experiment, args.group_by, args.quiet)
        else:
            from tensorboard.stats.sources import read_sources

            runs = read_sources(args.run_dirs, selection)
        if not runs:
            raise ValueError("no run to reduce" + (f" matches --where {args.where!r}" if args.where else ""))
        needed = tuple(dict.fromkeys(ops + BANDS[args.band][1]))
        reduced = reduce_tag_groups(runs, needed, args.group_by if groups is None else None, groups,
                                    lax_steps=args.lax_steps, lax_tags=args.lax_tags,
                                    min_runs_per_step=args.min_runs_per_step, duplicate_steps=args.handle_dup_steps)
        count = write_directory_atomically(args.out, lambda tmp: write_reduced(reduced, tmp, ops, args.band))
    except (OSError, ValueError, OverflowError) as err:
        print(f"tensorboard reduce: {err}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"tensorboard reduce: wrote {count} runs from {len(runs)} to {args.out} "
              f"({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return 0


def _groups(experiment, group_by: str | None, quiet: bool) -> dict[str, list[str]] | None:
    """--over's groups ({group: runs}; None without --over), telling on stderr what the user should
    know: groups of one run, runs lacking an --over key, and --group_by groups whose runs differ in a
    hyperparameter the regex does not name (so they are not seeds of one configuration)."""
    from tensorboard.logdir.grouping import mixed_groups
    from tensorboard.stats.grouping import group_runs

    notes: list[str] = []
    groups = None
    if experiment.grouping is not None:
        notes = list(experiment.grouping.notes)
        groups = {group.name: list(group.runs) for group in experiment.grouping.groups}
    elif group_by is not None:
        by_regex = group_runs([run.name for run in experiment.runs], group_by, "--group_by")
        values = experiment.values
        named = [key for key in {key for row in values.values() for key in row} if key in group_by]
        for name, keys in mixed_groups(by_regex, values, ignore=named).items():
            notes.append(f"group {name!r} holds runs that differ in {', '.join(keys[:5])}")
        notes += [f"group {name!r} holds one run" for name, runs in by_regex.items() if len(runs) == 1]
    if not quiet:
        for note in notes:
            print(f"tensorboard reduce: note: {note}", file=sys.stderr)
    return groups


if __name__ == "__main__":
    sys.exit(main())
