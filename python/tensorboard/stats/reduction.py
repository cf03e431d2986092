"""Runs reduced across seeds, step by step: for each scalar tag, the runs' values at each step become
one row of pandas reductions (mean, std with ddof=1, min, max, median) and the number of runs that
have the step. Every point is read (no sampling); runs that can't be compared step for step are
refused, naming the run and the tag, unless the caller allows it."""
from __future__ import annotations

from typing import Iterable, Literal, Sequence, get_args

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
    import pandas as pd

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
    frames = []
    for tag in tags:
        having = [(run, per_run[tag]) for run, per_run in zip(runs, series) if tag in per_run]
        if not lax_steps and min_runs_per_step is None:
            _check_same_steps(tag, having)
        frames.append(_reduce_tag(tag, having, ops, min_runs_per_step, pd))
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


def _reduce_tag(tag: str, having, ops: tuple[str, ...], min_runs: int | None, pd):
    """The rows of one tag: steps all runs have (or, with `min_runs`, any step at least that many have)."""
    columns = [pd.Series(values, index=steps) for _, (steps, values) in having]
    table = pd.concat(columns, axis=1, join="outer" if min_runs is not None else "inner").sort_index()
    present = table.notna().sum(axis=1)
    if min_runs is not None:
        table, present = table[present >= min_runs], present[present >= min_runs]
    out = pd.DataFrame({"tag": tag, "step": table.index.to_numpy(np.int64)})
    for op in ops:
        out[op] = getattr(table, op)(axis=1).to_numpy(np.float64)
    out["n_runs"] = present.to_numpy(np.int64)
    return out


def reduce_groups(runs: Sequence[RunData], ops: str | Iterable[ReduceOp] = ("mean",), group_by=None,
                  groups: dict[str, list[str]] | None = None, **options):
    """`reduce_runs` for each group of `runs` (`stats.grouping`: names equal once `group_by`'s matches
    are removed; or `groups`, {group: run names}, formed otherwise, e.g. by `--over`), with a leading
    `group` column; without either, all runs are one group and there is no such column. `options`:
    those of `reduce_runs`."""
    import pandas as pd

    from tensorboard.stats.grouping import group_runs

    if group_by is None and groups is None:
        return reduce_runs(runs, ops, **options)
    by_name = {run.name: run for run in runs}
    frames = []
    for group, names in (groups if groups is not None else group_runs(list(by_name), group_by)).items():
        frame = reduce_runs([by_name[name] for name in names], ops, **options)
        frame.insert(0, "group", group)
        frames.append(frame)
    if not frames:
        raise ValueError("runs: nothing to reduce (no run was found)")
    return pd.concat(frames, ignore_index=True)
