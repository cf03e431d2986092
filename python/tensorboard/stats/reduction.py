"""Runs reduced across seeds, step by step: for each scalar tag, the runs' values at each step become
one row of reductions (mean, std with ddof=1, min, max, median: pandas' values, computed in NumPy) and
the number of runs that have the step. Every point is read (no sampling); runs that can't be compared
step for step are refused, naming the run and the tag, unless the caller allows it. `reduce_tags`
gives NumPy columns (pandas is not imported); `reduce_runs` and `reduce_groups` a DataFrame."""
from __future__ import annotations

from typing import Iterable, Literal, NamedTuple, Sequence, get_args

import numpy as np

from tensorboard.logdir.run_data import RunData

ReduceOp = Literal["mean", "std", "min", "max", "median"]
DuplicateSteps = Literal["keep-first", "keep-last", "mean"]  # which value of a step logged twice counts
REDUCE_OPS: tuple[ReduceOp, ...] = get_args(ReduceOp)
DUPLICATE_STEPS: tuple[DuplicateSteps, ...] = get_args(DuplicateSteps)


def check_ops(ops: str | Iterable[ReduceOp], flag: str = "ops") -> tuple[ReduceOp, ...]:
    """`ops` as a tuple of known reductions ('mean,std' or ['mean', 'std']); a clear error names `flag`."""
    names = tuple(op.strip() for op in ops.split(",")) if isinstance(ops, str) else tuple(ops)
    unknown = [op for op in names if op not in REDUCE_OPS]
    if not names or unknown:
        raise ValueError(f"{flag}: {unknown[0] if unknown else 'nothing'!r} is no reduction; "
                         f"choose from {', '.join(REDUCE_OPS)}")
    return tuple(dict.fromkeys(names))


def run_series(run: RunData, duplicate_steps: DuplicateSteps | None = None) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """{tag: (steps, values)} of the run's scalars, steps ascending; a step logged twice is an error
    unless `duplicate_steps` says which value to keep ('keep-first', 'keep-last' or 'mean')."""
    store = run.scalars
    steps = np.frombuffer(store.steps, np.int64)
    values = np.frombuffer(store.values, np.float64)
    out = {}
    for tag, rows in store.rows_by_tag().items():
        tag_steps, tag_values = steps[rows], values[rows]
        repeated = np.flatnonzero(np.diff(tag_steps) == 0)
        if len(repeated):
            tag_steps, tag_values = _one_per_step(run.name, tag, tag_steps, tag_values, repeated, duplicate_steps)
        out[tag] = (tag_steps, tag_values)
    return out


def _one_per_step(run: str, tag: str, steps, values, repeated, how: DuplicateSteps | None):
    if how is None:
        raise ValueError(f"run {run!r}, tag {tag!r}: step {int(steps[repeated[0]])} is logged more than once; "
                         f"choose which value counts with duplicate_steps (--handle-dup-steps): "
                         f"{', '.join(DUPLICATE_STEPS)}")
    if how not in DUPLICATE_STEPS:
        raise ValueError(f"duplicate_steps {how!r}: choose from {', '.join(DUPLICATE_STEPS)}")
    unique, first, counts = np.unique(steps, return_index=True, return_counts=True)
    if how == "keep-first":
        return unique, values[first]
    if how == "keep-last":
        return unique, values[first + counts - 1]
    return unique, np.add.reduceat(values, first) / counts


class TagReduction(NamedTuple):
    """One tag of a reduction, column by column: the steps kept (ascending), a float64 column per op,
    and how many runs have a value at each step."""
    tag: str
    steps: np.ndarray
    columns: dict[str, np.ndarray]
    n_runs: np.ndarray


def reduce_tags(runs: Sequence[RunData], ops: str | Iterable[ReduceOp] = ("mean",), *, lax_steps: bool = False,
                lax_tags: bool = False, min_runs_per_step: int | None = None,
                duplicate_steps: DuplicateSteps | None = None) -> list[TagReduction]:
    """`reduce_runs` in NumPy arrays, one TagReduction per tag in the order the runs first have them;
    no pandas, so that a front door that writes the rows out (`tensorboard reduce`) need not import it.
    Arguments and errors: those of `reduce_runs`."""
    ops = check_ops(ops)
    if min_runs_per_step is not None and (isinstance(min_runs_per_step, bool)
                                          or not isinstance(min_runs_per_step, int) or min_runs_per_step < 1):
        raise ValueError(f"min_runs_per_step must be a positive int, not {min_runs_per_step!r}")
    if not runs:
        raise ValueError("runs: nothing to reduce (no run was found)")
    series = [run_series(run, duplicate_steps) for run in runs]
    tags = list(dict.fromkeys(tag for per_run in series for tag in per_run))
    if not tags:
        raise ValueError(f"runs {[run.name for run in runs]}: no scalars to reduce")
    if not lax_tags:
        _check_same_tags(runs, series, tags)
    reduced = []
    for tag in tags:
        having = [(run, per_run[tag]) for run, per_run in zip(runs, series) if tag in per_run]
        if not lax_steps and min_runs_per_step is None:
            _check_same_steps(tag, having)
        reduced.append(_reduce_tag(tag, [pair for _, pair in having], ops, min_runs_per_step))
    return reduced


def reduce_runs(runs: Sequence[RunData], ops: str | Iterable[ReduceOp] = ("mean",), *, lax_steps: bool = False,
                lax_tags: bool = False, min_runs_per_step: int | None = None,
                duplicate_steps: DuplicateSteps | None = None):
    """One DataFrame row per (tag, step): `tag`, `step`, a column per op and `n_runs`, the runs with a
    value at that step.

    Args:
        runs: the runs to reduce (seeds of one configuration), read by the engine.
        ops: reductions from REDUCE_OPS, as pandas computes them across the runs (std: ddof=1).
        lax_steps: reduce runs whose steps differ, at the steps they all have.
        lax_tags: reduce runs whose tags differ, each tag over the runs that have it.
        min_runs_per_step: keep every step that at least this many runs have (implies lax_steps).
        duplicate_steps: which value of a step logged twice in a run counts ('keep-first',
            'keep-last', 'mean'); None refuses such a run.

    Raises:
        ValueError: no runs or no scalars, an unknown op, tags or steps that differ between runs
            (naming the run and the tag) without the lax option, a step logged twice.
    """
    ops = check_ops(ops)
    return tags_frame(reduce_tags(runs, ops, lax_steps=lax_steps, lax_tags=lax_tags,
                                  min_runs_per_step=min_runs_per_step, duplicate_steps=duplicate_steps), ops)


def tags_frame(reduced: list[TagReduction], ops: tuple[str, ...]):
    """`reduce_tags`'s result as `reduce_runs`'s DataFrame (columns tag, step, the ops, n_runs)."""
    import pandas as pd

    frames = []
    for tag in reduced:
        out = pd.DataFrame({"tag": tag.tag, "step": tag.steps})
        for op in ops:
            out[op] = tag.columns[op]
        out["n_runs"] = tag.n_runs
        frames.append(out)
    columns = ["tag", "step", *ops, "n_runs"]
    frame = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    return frame[columns]


def _check_same_tags(runs, series, tags) -> None:
    for run, per_run in zip(runs, series):
        missing = [tag for tag in tags if tag not in per_run]
        if missing:
            raise ValueError(f"run {run.name!r} has no tag {missing[0]!r}, which other runs have; "
                             "pass lax_tags (--lax-tags) to reduce each tag over the runs that have it")


def _check_same_steps(tag: str, having) -> None:
    first_run, (first_steps, _) = having[0]
    for run, (steps, _) in having[1:]:
        if not np.array_equal(steps, first_steps):
            raise ValueError(f"run {run.name!r}, tag {tag!r}: {len(steps)} steps, not the {len(first_steps)} steps "
                             f"of run {first_run.name!r} (or not the same ones); pass lax_steps (--lax-steps) to "
                             "reduce the steps all runs have, or min_runs_per_step (--min-runs-per-step)")


def _reduce_tag(tag: str, having: list, ops: tuple[str, ...], min_runs: int | None) -> TagReduction:
    """The rows of one tag: steps all runs have (or, with `min_runs`, any step at least that many have).
    `having`: each run's (steps, values), steps ascending and unique."""
    steps = _kept_steps([steps for steps, _ in having], outer=min_runs is not None)
    table = np.full((len(having), len(steps)), np.nan)  # a row per run; NaN where a run lacks the step
    for row, (run_steps, values) in zip(table, having):
        if np.array_equal(run_steps, steps):
            row[:] = values
        else:
            at = np.minimum(np.searchsorted(steps, run_steps), max(len(steps) - 1, 0))
            inside = steps[at] == run_steps if len(steps) else np.zeros(len(run_steps), bool)
            row[at[inside]] = values[inside]
    missing = np.isnan(table)  # a NaN logged counts as missing too, as pandas skips it
    present = len(having) - missing.sum(axis=0)
    if min_runs is not None:
        keep = present >= min_runs
        steps, table, missing, present = steps[keep], table[:, keep], missing[:, keep], present[keep]
    columns = seed_statistics(table, missing, ops)
    return TagReduction(tag, steps.astype(np.int64), columns, present.astype(np.int64))


def _kept_steps(all_steps: list, outer: bool) -> np.ndarray:
    """The steps every run has (`outer`: that any run has), ascending."""
    kept = all_steps[0]
    for steps in all_steps[1:]:
        if not np.array_equal(steps, kept):
            kept = np.union1d(kept, steps) if outer else np.intersect1d(kept, steps)
    return np.asarray(kept, np.int64)


def seed_statistics(table: np.ndarray, missing: np.ndarray, ops: tuple[str, ...]) -> dict[str, np.ndarray]:
    """{op: float64 column} across the rows of `table` (runs x steps, NaN where `missing`): what pandas'
    `DataFrame.<op>(axis=1)` gives on the same table with a column per run, to the rounding of its sums
    (bit for bit with pandas 3.1's order of summation; pandas 2 sums 8 or more runs in another order):
    mean, min and max accumulate run by run, std sums each step's runs pairwise (ddof=1), median is
    NumPy's nanmedian.
    Steps no run has are NaN; std needs two runs. Among zeros of both signs, the sign of a zero min or
    max is left open (pandas' own depends on how NumPy's loop meets the arrays in memory)."""
    runs = table.shape[0]
    filled = np.where(missing, 0.0, table) if missing.any() else table
    count = (runs - missing.sum(axis=0)).astype(np.float64)
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for op in ops:
            if op == "mean":
                total = filled[0] + 0.0  # as pandas: each run summed from 0 first (turns -0.0 into 0.0)
                for row in filled[1:]:
                    total += row
                out[op] = np.where(count == 0, np.nan, total / count)
            elif op in ("min", "max"):
                pick = np.fmin if op == "min" else np.fmax
                extreme = table[0].copy()
                for row in table[1:]:
                    extreme = pick(extreme, row)
                out[op] = extreme
            elif op == "std":
                out[op] = _std(filled, missing, count)
            else:
                out[op] = _median(table)
    return out


def _std(filled: np.ndarray, missing: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Two-pass sample standard deviation per step (column), NaN below two runs."""
    few = count <= 1
    count = np.where(few, np.nan, count)
    by_step = np.ascontiguousarray(filled.T)  # each step's runs contiguous: NumPy sums them pairwise
    mean = by_step.sum(axis=1) / count
    squares = (mean[:, None] - by_step) ** 2
    np.putmask(squares, missing.T, 0.0)
    return np.sqrt(squares.sum(axis=1) / (count - 1.0))


def _median(table: np.ndarray) -> np.ndarray:
    import warnings

    if not table.shape[1]:
        return np.empty(0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "All-NaN slice encountered", RuntimeWarning)
        return np.nanmedian(table.T, axis=1)


def reduce_tag_groups(runs: Sequence[RunData], ops: str | Iterable[ReduceOp] = ("mean",), group_by=None,
                      groups: dict[str, list[str]] | None = None, **options) -> dict[str | None, list[TagReduction]]:
    """`reduce_tags` for each group of `runs`, {group: its tags}, groups as `reduce_groups` forms them;
    without `group_by` or `groups`, {None: the tags of all runs}. `options`: those of `reduce_runs`."""
    from tensorboard.stats.grouping import group_runs

    if group_by is None and groups is None:
        return {None: reduce_tags(runs, ops, **options)}
    by_name = {run.name: run for run in runs}
    members = groups if groups is not None else group_runs(list(by_name), group_by)
    reduced = {group: reduce_tags([by_name[name] for name in names], ops, **options)
               for group, names in members.items()}
    if not reduced:
        raise ValueError("runs: nothing to reduce (no run was found)")
    return reduced


def reduce_groups(runs: Sequence[RunData], ops: str | Iterable[ReduceOp] = ("mean",), group_by=None,
                  groups: dict[str, list[str]] | None = None, **options):
    """`reduce_runs` for each group of `runs` (`stats.grouping`: names equal once `group_by`'s matches
    are removed; or `groups`, {group: run names}, formed otherwise, e.g. by `--over`), with a leading
    `group` column; without either, all runs are one group and there is no such column. `options`:
    those of `reduce_runs`."""
    import pandas as pd

    ops = check_ops(ops)
    reduced = reduce_tag_groups(runs, ops, group_by, groups, **options)
    if group_by is None and groups is None:
        return tags_frame(reduced[None], ops)
    frames = []
    for group, tags in reduced.items():
        frame = tags_frame(tags, ops)
        frame.insert(0, "group", group)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)
