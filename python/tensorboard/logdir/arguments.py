"""The command-line options of every front door that reads a logdir, worded once: where to read, which
runs, tags and steps, what to do with damaged files, and how to write the output."""
from __future__ import annotations

import argparse

from tensorboard.logdir.selection import compile_pattern, parse_steps


def add_reading_arguments(parser: argparse.ArgumentParser, tags_help: str = "regex: only tags that match") -> None:
    """--logdir, --runs, --tags, --steps and --skip-damaged."""
    parser.add_argument("--logdir", required=True, help="directory, event file or fsspec URL (s3://...)")
    parser.add_argument("--runs", default=None,
                        help='regex: only runs whose name (directory relative to --logdir, "." for itself) matches')
    parser.add_argument("--tags", default=None, help=tags_help)
    parser.add_argument("--steps", default=None, metavar="LO:HI",
                        help="only steps LO to HI, both included (LO: or :HI leaves one end open)")
    parser.add_argument("--skip-damaged", action="store_true",
                        help="keep what precedes damage in a corrupt file (warns) instead of failing")


def add_writing_arguments(parser: argparse.ArgumentParser) -> None:
    """--force and --quiet."""
    parser.add_argument("--force", action="store_true", help="replace --out if it exists (default: refuse)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def check_reading_arguments(args: argparse.Namespace) -> None:
    """A ValueError naming the option for a --runs, --tags or --steps that can't be used."""
    parse_steps(args.steps)
    compile_pattern("--runs", args.runs)
    compile_pattern("--tags", args.tags)
