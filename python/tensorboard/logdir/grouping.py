"""`--over seed`: runs grouped by configuration. Runs that agree on every hyperparameter except the
`over` keys form one group (a run lacking a key differs from one holding it); each group is named after
the keys whose values vary between groups (`lr=0.01,optimizer=adam`; "all" when one group holds every
run). Nothing is silent: groups of one run and runs lacking an `over` key are listed as notes."""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from tensorboard.logdir.config_files import Scalar

ALL_GROUP = "all"


@dataclass(frozen=True)
class Group:
    """One configuration: its name, its runs (in the order given) and the values its runs share."""

    name: str
    runs: tuple[str, ...]
    config: dict[str, Scalar]


@dataclass(frozen=True)
class Grouping:
    """Groups in order of their first run, the keys their names use, and notes worth telling the user."""

    groups: list[Group]
    varying: list[str]
    notes: list[str] = field(default_factory=list)

    def group_of(self) -> dict[str, str]:
        """{run: its group's name}."""
        return {run: group.name for group in self.groups for run in group.runs}


def format_value(value: Scalar) -> str:
    """A value as it reads in a group's name: true/false, numbers as Python's shortest repr, text as is."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def check_over(over: str | Sequence[str] | None, flag: str = "--over") -> tuple[str, ...]:
    """`over` as a tuple of keys: a comma-separated string or a sequence of names; a ValueError naming `flag`."""
    if over is None:
        return ()
    keys = over.split(",") if isinstance(over, str) else list(over)
    if not all(isinstance(key, str) for key in keys):
        raise TypeError(f"{flag} must be key names, not {over!r}")
    keys = [key.strip() for key in keys]
    if not keys or any(not key for key in keys):
        raise ValueError(f"{flag} {over!r}: expected one or more hyperparameter names, comma-separated")
    return tuple(dict.fromkeys(keys))


def check_one_grouping(pattern, over, pattern_flag: str, over_flag: str = "--over") -> None:
    """A ValueError naming both options when runs are to be grouped by a regex over their names
    (`pattern`: --group_by, --group_runs) and by hyperparameters (`over`) at once."""
    if pattern is not None and over:
        raise ValueError(f"give {pattern_flag} (a regex over run names) or {over_flag} (hyperparameters), not both")


_MISSING = ("missing",)  # a key a run lacks: differs from every value


def _config_key(values: Mapping[str, Scalar], keys: list[str]) -> tuple:
    out = []
    for key in keys:
        value = values.get(key, _MISSING)
        if isinstance(value, float) and math.isnan(value):
            value = "nan"
        out.append((type(value).__name__ if value is not _MISSING else "", value))
    return tuple(out)


def group_over(hparams: Mapping[str, Mapping[str, Scalar]], over: Sequence[str], flag: str = "--over") -> Grouping:
    """Groups of the runs of `hparams` ({run: {key: value}}) that agree on every key but `over`.

    Raises:
        ValueError: An `over` key that no run has (naming the keys there are).
    """
    over = check_over(over, flag)
    known = sorted({key for values in hparams.values() for key in values})
    unknown = [key for key in over if key not in known]
    if unknown:
        raise ValueError(f"{flag}: no run has a hyperparameter {unknown[0]!r}; "
                         f"the keys are: {', '.join(known) or 'none'}")
    others = [key for key in known if key not in over]
    members: dict[tuple, list[str]] = {}
    for run, values in hparams.items():
        members.setdefault(_config_key(values, others), []).append(run)
    varying = [key for i, key in enumerate(others) if len({config[i] for config in members}) > 1]
    groups = []
    for config, runs in members.items():
        shared = {key: value for key, (_, value) in zip(others, config) if value is not _MISSING}
        name = ",".join(f"{key}={format_value(shared[key])}" for key in varying if key in shared) or ALL_GROUP
        groups.append(Group(name, tuple(runs), shared))
    return Grouping(_unique_names(groups), varying, _notes(groups, hparams, over, varying))


def _unique_names(groups: list[Group]) -> list[Group]:
    """Groups whose names collide (a key missing from one) get a numbered suffix, so none merge."""
    seen: dict[str, int] = {}
    out = []
    for group in groups:
        count = seen.get(group.name, 0)
        seen[group.name] = count + 1
        out.append(group if not count else Group(f"{group.name}#{count + 1}", group.runs, group.config))
    return out


def _notes(groups: list[Group], hparams, over: Sequence[str], varying: list[str]) -> list[str]:
    notes = []
    lonely = [group for group in groups if len(group.runs) == 1]
    if lonely:
        names = ", ".join(group.runs[0] for group in lonely[:5]) + (", ..." if len(lonely) > 5 else "")
        notes.append(f"{len(lonely)} of {len(groups)} groups hold one run ({names})" +
                     _unique_hint(hparams, varying))
    for key in over:
        lacking = [run for run, values in hparams.items() if key not in values]
        if lacking:
            notes.append(f"{len(lacking)} runs have no {key!r} ({', '.join(lacking[:5])}"
                         f"{', ...' if len(lacking) > 5 else ''})")
    return notes


def _unique_hint(hparams, varying: list[str]) -> str:
    """Keys whose value differs in every run: likely per-run settings to add to --over."""
    if len(hparams) < 2:
        return ""
    unique = [key for key in varying
              if len({repr(values.get(key)) for values in hparams.values()}) == len(hparams)]
    return f"; {', '.join(unique)} differ in every run (add to --over?)" if unique else ""


def mixed_groups(groups: Mapping[str, Sequence[str]], hparams: Mapping[str, Mapping[str, Scalar]],
                 ignore: Sequence[str] = ()) -> dict[str, list[str]]:
    """{group: the keys (other than `ignore`) its runs disagree on} for groups formed otherwise (a
    --group_by regex) whose runs differ in some hyperparameter."""
    out = {}
    for name, runs in groups.items():
        keys = sorted({key for run in runs for key in hparams.get(run, {})} - set(ignore))
        differ = [key for key in keys if len({_config_key(hparams.get(run, {}), [key]) for run in runs}) > 1]
        if differ:
            out[name] = differ
    return out
