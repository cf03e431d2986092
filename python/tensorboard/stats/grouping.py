"""Runs grouped by name: runs whose names are equal once a regex's matches are removed are seeds of
one configuration (`lr0.1_seed0` ... `lr0.1_seed4` with `_seed\\d+` form the group `lr0.1`)."""
from __future__ import annotations

import re

from tensorboard.logdir.selection import compile_pattern


def group_name(run: str, pattern: str | re.Pattern, flag: str = "group_by") -> str:
    """The group of run `run`: its name with every match of `pattern` removed ("." when nothing is left)."""
    compiled = compile_pattern(flag, pattern)
    if compiled is None:
        raise ValueError(f"{flag}: a regex is needed to group runs")
    name = compiled.sub("", run).strip("/") or "."
    return name


def group_runs(runs: list[str], pattern: str | re.Pattern, flag: str = "group_by") -> dict[str, list[str]]:
    """{group: [its runs, in the order given]} for `runs`, groups in the order of their first run."""
    groups: dict[str, list[str]] = {}
    for run in runs:
        groups.setdefault(group_name(run, pattern, flag), []).append(run)
    return groups
