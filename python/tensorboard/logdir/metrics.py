"""A run's metrics as one number each: a scalar tag's last, lowest or highest value
(`--metrics 'val/loss=min,val/acc=max'`, `hparams_table(metrics={'val/loss': 'min'})`), the tags every
run shares (the default metrics of the HParams dashboard) and a run's step range and last write."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Literal, Mapping, NamedTuple

Aggregation = Literal["last", "min", "max"]
AGGREGATIONS: tuple[Aggregation, ...] = ("last", "min", "max")


@dataclass(frozen=True)
class MetricChoice:
    """A scalar tag and how it is reduced to one number; `display_tag` names the column: the tag
    itself for its last value, `tag (min)` / `tag (max)` for a best one."""

    tag: str
    aggregation: Aggregation = "last"

    @property
    def display_tag(self) -> str:
        return self.tag if self.aggregation == "last" else f"{self.tag} ({self.aggregation})"


def parse_metrics(spec, flag: str = "--metrics") -> list[MetricChoice]:
    """`'val/loss=min,val/acc=max,epoch'` (a tag alone: its last value) or {tag: aggregation} as choices;
    a ValueError naming `flag` for an empty tag or an unknown aggregation."""
    if spec is None:
        return []
    if isinstance(spec, Mapping):
        pairs = [(tag, agg) for tag, agg in spec.items()]
    elif isinstance(spec, str):
        pairs = []
        for part in spec.split(","):
            tag, sep, agg = part.strip().rpartition("=")
            pairs.append((tag, agg) if sep else (agg, "last"))
    else:
        pairs = [(tag, "last") for tag in spec]
    out = []
    for tag, agg in pairs:
        if not isinstance(tag, str) or not tag.strip():
            raise ValueError(f"{flag} {spec!r}: expected TAG or TAG=last|min|max, comma-separated")
        if agg not in AGGREGATIONS:
            raise ValueError(f"{flag} {spec!r}: {agg!r} for {tag!r} is not one of {', '.join(AGGREGATIONS)}")
        out.append(MetricChoice(tag.strip(), agg))
    return list(dict.fromkeys(out))


def shared_scalar_tags(runs: Iterable) -> list[str]:
    """The scalar tags every run (a `RunData`) holding scalars has, in the first run's order;
    the hparams plugin's own tags are left out."""
    shared: dict[str, None] | None = None
    for run in runs:
        if not run.holds("scalars") or not len(run.scalars):
            continue
        names = run.scalars.tag_names
        shared = dict.fromkeys(names) if shared is None else {tag: None for tag in shared if tag in names}
    return [tag for tag in (shared or {}) if not tag.startswith("_hparams_/")]


def metric_values(run, choices: Iterable[MetricChoice]) -> dict[str, float | None]:
    """{display tag: value} of one run (a `RunData`): the last value is the one at the highest step
    (the last logged there); min and max ignore NaN. None when the run lacks the tag (or, for min
    and max, holds only NaN). Column-wise: a sweep's runs ls computes this for every run."""
    choices = list(choices)
    out: dict[str, float | None] = {choice.display_tag: None for choice in choices}
    if not choices or not run.holds("scalars") or not len(run.scalars):
        return out
    import numpy as np

    store = run.scalars
    tags = np.frombuffer(store.tags, np.int32)
    steps = np.frombuffer(store.steps, np.int64)
    values = np.frombuffer(store.values, np.float64)
    for choice in choices:
        tid = store.tag_ids.get(choice.tag)
        if tid is not None:
            rows = np.flatnonzero(tags == tid)
            out[choice.display_tag] = aggregate(steps[rows], values[rows], choice.aggregation)
    return out


def aggregate(steps, values, aggregation: Aggregation) -> float | None:
    """One series (steps and values in the order logged, NumPy arrays or sequences) as one number: its
    value at the highest step (the last logged there), or its lowest or highest value ignoring NaN;
    None for an empty series (or only NaN, for min and max)."""
    import numpy as np

    steps, values = np.asarray(steps), np.asarray(values, np.float64)
    if not len(values):
        return None
    if aggregation == "last":
        return float(values[np.flatnonzero(steps == steps.max())[-1]])
    if np.isnan(values).all():
        return None
    return float(np.nanmin(values) if aggregation == "min" else np.nanmax(values))


class Extent(NamedTuple):
    """A run's first and last step over all its kinds, and the latest wall time of an event (None: none)."""

    first_step: int | None
    last_step: int | None
    last_wall: float | None


def run_extent(run) -> Extent:
    """The step range and last wall time of a run's rows, every kind counted."""
    import numpy as np

    first = last = wall = None
    for store in run.stores():
        if not len(store):
            continue
        steps, walls = np.frombuffer(store.steps, np.int64), np.frombuffer(store.walls, np.float64)
        lo, hi, w = int(steps.min()), int(steps.max()), float(walls.max())
        first = lo if first is None else min(first, lo)
        last = hi if last is None else max(last, hi)
        wall = w if wall is None else max(wall, w)
    return Extent(first, last, wall)
