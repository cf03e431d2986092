"""The command-line options of every front door that reads a logdir, worded once: where to read, which
runs, tags and steps, what to do with damaged files, and how to write the output."""
from __future__ import annotations

import argparse

from tensorboard.logdir.selection import compile_pattern, parse_steps


def add_reading_arguments(parser: argparse.ArgumentParser, tags_help: str = "regex: only tags that match") -> None:
    """--logdir, --runs, --exclude, --tags, --steps and --skip-damaged."""
    parser.add_argument("--logdir", required=True, help="directory, event file or fsspec URL (s3://...)")
    add_run_filter_arguments(parser)
    parser.add_argument("--tags", default=None, help=tags_help)
    parser.add_argument("--steps", default=None, metavar="LO:HI",
                        help="only steps LO to HI, both included (LO: or :HI leaves one end open)")
    parser.add_argument("--skip-damaged", action="store_true",
                        help="keep what precedes damage in a corrupt file (warns) instead of failing")


def add_run_filter_arguments(parser: argparse.ArgumentParser) -> None:
    """--runs and --exclude: regexes searched in run names (see `logdir.selection.Selection`)."""
    parser.add_argument("--runs", default=None, metavar="REGEX",
                        help='regex: only runs whose name (directory relative to --logdir, "." for itself) matches')
    parser.add_argument("--exclude", default=None, metavar="REGEX",
                        help="regex: leave out runs whose name matches (after --runs)")


def add_experiment_arguments(parser: argparse.ArgumentParser, over: bool = False) -> None:
    """--where and --hparams_file (and, with `over`, --over): runs chosen by their hyperparameters
    (see `logdir.query`, `logdir.hparams_sources`, `logdir.grouping`)."""
    parser.add_argument("--where", default=None, metavar="QUERY",
                        help="only runs whose hyperparameters match, e.g. 'lr < 0.01 and optimizer == \"adam\"' "
                             "(names, `run`, == != < <= > >= in, not in, and, or, not, parentheses)")
    parser.add_argument("--hparams_file", "--hparams-file", dest="hparams_file", default=None, metavar="NAME",
                        help="also read hyperparameters from NAME (.json, .yaml or .toml) in each run's directory "
                             "or a parent up to the logdir")
    if over:
        parser.add_argument("--over", default=None, metavar="KEYS",
                            help="comma-separated hyperparameters (e.g. seed) the runs of one configuration differ "
                                 "in: runs agreeing on every other hyperparameter form a group")


def add_writing_arguments(parser: argparse.ArgumentParser) -> None:
    """--force and --quiet."""
    parser.add_argument("--force", action="store_true", help="replace --out if it exists (default: refuse)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def check_reading_arguments(args: argparse.Namespace) -> None:
    """A ValueError naming the option for a --runs, --exclude, --tags or --steps that can't be used."""
    parse_steps(args.steps)
    compile_pattern("--runs", args.runs)
    compile_pattern("--exclude", args.exclude)
    compile_pattern("--tags", args.tags)
    check_experiment_arguments(args)


def check_experiment_arguments(args: argparse.Namespace) -> None:
    """A ValueError naming the option for a --where, --over or --hparams_file that can't be used."""
    from tensorboard.logdir.selection import CLI_FLAGS, Selection

    Selection.of(flags=CLI_FLAGS, where=getattr(args, "where", None), over=getattr(args, "over", None),
                 hparams_file=getattr(args, "hparams_file", None))


def smoothing_weight(text: str) -> float:
    """A smoothing weight from the command line: a number from 0 to 1, as the UI's slider (argparse type)."""
    try:
        weight = float(text)
    except ValueError:
        weight = float("nan")
    if not 0.0 <= weight <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number from 0 to 1")
    return weight
