"""Scalar panels from read runs, as plain arrays (no drawing here): one panel per tag, one line per run
or per group of seeds (`stats.grouping`, reduced by `stats.reduction` as `reader.reduce` reduces them,
with a band of mean ± std or min to max), smoothed by TensorBoard's smoothing (`stats.smoothing`),
over steps, relative or wall time or another scalar joined on step, masked for log axes, then thinned
to at most about `max_points` points per line, every extremum kept."""
from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, replace

import numpy as np

from tensorboard.logdir import RunData
from tensorboard.plot.options import PlotOptions
from tensorboard.plot.thinning import extrema_indices
from tensorboard.stats.grouping import group_runs
from tensorboard.stats.reduction import reduce_runs
from tensorboard.stats.smoothing import smooth

_RELATIVE_UNITS = ((3600.0 * 2, 3600.0, "h"), (120.0, 60.0, "min"), (0.0, 1.0, "s"))  # (span above, seconds, unit)


@dataclass(frozen=True)
class Line:
    """One run's (or group's) series in a panel. `y` is what is drawn boldly (smoothed when smoothing),
    `raw` the unsmoothed values drawn faintly behind it (None without smoothing), `band` the (lower,
    upper) edges around a group's mean; all share `x`. `points`: the series' length before thinning."""

    name: str
    x: np.ndarray
    y: np.ndarray
    raw: np.ndarray | None = None
    band: tuple[np.ndarray, np.ndarray] | None = None
    points: int = 0


@dataclass(frozen=True)
class Panel:
    """One tag's chart: its lines and its axis labels."""

    tag: str
    xlabel: str
    lines: tuple[Line, ...]


@dataclass(frozen=True)
class _Series:
    steps: np.ndarray
    walls: np.ndarray | None
    values: np.ndarray
    lower: np.ndarray | None = None
    upper: np.ndarray | None = None


def scalar_panels(runs: list[RunData], options: PlotOptions, tags: str | None = None,
                  groups: dict[str, list[str]] | None = None) -> list[Panel]:
    """The panels of the scalar tags `tags` (a regex; None: all) of `runs`, as `options` asks; `groups`:
    {group: its runs} formed by configuration (`options.over`), else by `options.group_runs`.

    Raises:
        ValueError: No scalar tag to draw, or a group whose runs hold no scalars.
    """
    tag_re = re.compile(tags) if tags is not None else None
    if groups is None and options.group_runs is not None:
        groups = group_runs([run.name for run in runs], options.group_runs, "group_runs")
    sources = _group_series(runs, options, groups) if groups is not None else \
        {run.name: _run_series(run) for run in runs}
    wanted = [tag for per in sources.values() for tag in per
              if tag != options.x_tag and (tag_re is None or tag_re.search(tag))]
    if not wanted:
        raise ValueError(f"tags {tags!r}: no scalar tag of the {len(runs)} runs matches" if tags is not None
                         else f"tags: no scalar tag to draw in the {len(runs)} runs")
    start = {run.name: _first_wall(run) for run in runs}
    scale, unit = _relative_unit(start, sources) if options.x == "relative" else (1.0, "")
    if options.x_tag is not None and not any(options.x_tag in per for per in sources.values()):
        raise ValueError(f"x {options.x!r}: no run has this scalar tag (nor is it step, relative or wall)")
    panels, unplaced = [], set()
    for tag in dict.fromkeys(wanted):
        lines = []
        for name, per in sources.items():
            if tag in per:
                line = _line(name, per[tag], per, options, start.get(name), scale)
                if line is None:
                    unplaced.add(name)
                else:
                    lines.append(line)
        panels.append(Panel(tag, _xlabel(options, unit), tuple(lines)))
    if unplaced:
        names = sorted(unplaced)
        warnings.warn(f"x: {len(names)} runs have no scalar {options.x_tag!r} at the steps of their tags and are "
                      f"not drawn there: {', '.join(names[:5])}{', ...' if len(names) > 5 else ''}", stacklevel=2)
    return masked_and_thinned(panels, options.logx, options.logy, options.max_points)


def _run_series(run: RunData) -> dict[str, _Series]:
    """{tag: its points in step order (stable: points of one step keep their logged order)}."""
    store = run.scalars
    if not len(store):
        return {}
    steps = np.frombuffer(store.steps, np.int64)
    walls = np.frombuffer(store.walls, np.float64)
    values = np.frombuffer(store.values, np.float64)
    return {tag: _Series(steps[rows], walls[rows], values[rows]) for tag, rows in store.rows_by_tag().items()}


def _group_series(runs: list[RunData], options: PlotOptions, groups: dict[str, list[str]]
                  ) -> dict[str, dict[str, _Series]]:
    """{group: {tag: its mean at the steps all its runs have, with the band's edges}}."""
    by_name = {run.name: run for run in runs}
    out = {}
    for group, names in groups.items():
        frame = reduce_runs([by_name[name] for name in names], ("mean", "std", "min", "max"), lax_steps=True,
                            lax_tags=True, duplicate_steps="keep-last")
        per = {}
        for tag, rows in frame.groupby("tag", sort=False):
            mean = rows["mean"].to_numpy(np.float64)
            if len(names) < 2:
                lower = upper = None
            elif options.band == "std":
                lower, upper = mean - rows["std"].to_numpy(np.float64), mean + rows["std"].to_numpy(np.float64)
            else:
                lower, upper = rows["min"].to_numpy(np.float64), rows["max"].to_numpy(np.float64)
            per[tag] = _Series(rows["step"].to_numpy(np.int64), None, mean, lower, upper)
        out[group] = per
    return out


def _line(name: str, series: _Series, per: dict[str, _Series], options: PlotOptions, start, scale: float):
    """The line of one run or group: its x, smoothed and raw values and band; None (with a warning)
    when it has no point on the x axis asked for."""
    keep = np.arange(len(series.steps))
    if options.x == "step":
        x = series.steps.astype(np.float64)
    elif options.x == "relative":
        x = (series.walls - start) / scale
    elif options.x == "wall":
        x = (series.walls * 1e3).astype("datetime64[ms]")
    else:
        x, keep = _joined(series.steps, per.get(options.x_tag))
        if not len(keep):
            return None
    values = series.values[keep]
    smoothed = smooth(values, options.smoothing) if options.smoothing else values
    band = None if series.lower is None else (series.lower[keep], series.upper[keep])
    return Line(name, x, smoothed, values if options.smoothing else None, band, len(values))


def _joined(steps: np.ndarray, other: _Series | None) -> tuple[np.ndarray, np.ndarray]:
    """The values of `other` at `steps` (the last one logged at a step), and which of `steps` have one."""
    if other is None or not len(other.steps):
        return np.zeros(0), np.zeros(0, np.int64)
    last = len(other.steps) - 1 - np.unique(other.steps[::-1], return_index=True)[1]
    at_steps, at_values = other.steps[last], other.values[last]
    where = np.minimum(np.searchsorted(at_steps, steps), len(at_steps) - 1)
    keep = np.flatnonzero(at_steps[where] == steps)
    return at_values[where[keep]], keep


def _first_wall(run: RunData) -> float | None:
    walls = run.scalars.walls
    return float(np.min(np.frombuffer(walls, np.float64))) if len(walls) else None


def _relative_unit(start: dict, sources: dict) -> tuple[float, str]:
    """Seconds per unit of the relative time axis (hours, minutes or seconds, by the longest run)."""
    span = max((float(s.walls.max()) - start[name] for name, per in sources.items() for s in per.values()
                if s.walls is not None and len(s.walls)), default=0.0)
    return next((seconds, unit) for above, seconds, unit in _RELATIVE_UNITS if span > above)


def _xlabel(options: PlotOptions, unit: str) -> str:
    return {"step": "step", "relative": f"relative time ({unit})", "wall": "wall time (UTC)"}.get(options.x, options.x)


def masked_and_thinned(panels: list[Panel], logx: bool, logy: bool, max_points: int) -> list[Panel]:
    """Non-positive values become NaN (not drawn) on a log axis, with one warning per axis counting
    them; then each line is thinned to about `max_points` points, every extremum kept."""
    counts = {"x": 0, "y": 0}
    out = []
    for panel in panels:
        lines = []
        for line in panel.lines:
            columns = [line.y] + ([line.raw] if line.raw is not None else []) + list(line.band or ())
            x = line.x
            if logx:
                bad = ~(x > 0)
                counts["x"] += int(bad.sum())
                x = np.where(bad, np.nan, x)
                columns = [np.where(bad, np.nan, c) for c in columns]
            if logy:
                counts["y"] += int(sum((~(c > 0) & ~np.isnan(c)).sum() for c in columns[:2]))
                columns = [np.where(c > 0, c, np.nan) for c in columns]
            keep = extrema_indices(columns, max_points)
            y, raw, band = columns[0], columns[1] if line.raw is not None else None, columns[-2:] if line.band else None
            lines.append(replace(line, x=x[keep], y=y[keep], raw=None if raw is None else raw[keep],
                                 band=None if band is None else (band[0][keep], band[1][keep])))
        out.append(replace(panel, lines=tuple(lines)))
    for axis, count in counts.items():
        if count:
            warnings.warn(f"log{axis}: {count} values at or below 0 are not drawn on the log {axis} axis",
                          stacklevel=3)
    return out
