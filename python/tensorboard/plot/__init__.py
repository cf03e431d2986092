"""Figures for papers from a logdir: `plot` returns a matplotlib Figure of scalar charts (smoothed as
TensorBoard smooths, seeds as a mean with a band, over steps, time or another scalar, log axes) or of
histograms and distributions as TensorBoard draws them; `tensorboard plot` writes one to PDF, SVG, PNG
or PGF. Reading is the engine's (`logdir.read_runs` with a `logdir.Selection`); the data is prepared
as plain arrays (`scalars`, `histograms`, `thinning`) and only then drawn (`draw`). Needs matplotlib
(the `[plot]` extra) and pandas for seed groups."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

from tensorboard.logdir import Selection, read_runs
from tensorboard.logdir.experiment import read_experiment
from tensorboard.logdir.scalar_tensors import fold_scalar_tensors
from tensorboard.logdir.selection import API_FLAGS
from tensorboard.plot.options import DEFAULT_MAX_POINTS, PlotOptions, parse_size

if TYPE_CHECKING:
    import matplotlib.figure

MISSING_MATPLOTLIB = "needs matplotlib: pip install tensorboard[plot]"


def require_matplotlib() -> None:
    """Raises ImportError with the one line to act on when matplotlib is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise ImportError(MISSING_MATPLOTLIB) from None


def panels(logdir: str | os.PathLike, options: PlotOptions, tags: str | None = None, runs: str | None = None,
           exclude: str | None = None, steps=None, storage_options: dict | None = None,
           flags: tuple[str, ...] = API_FLAGS, progress=None, where=None, hparams_file: str | None = None) -> list:
    """The panels to draw (plain arrays) of the runs and tags selected below `logdir` (and by `where`, a
    query on their hyperparameters); `progress` is called as `progress(files_done, files_total, path)`
    after each file read."""
    from tensorboard.plot.histograms import distribution_panels, histogram_panels
    from tensorboard.plot.scalars import scalar_panels

    kinds = {"scalars", "tensors"} if options.kind == "scalars" else {"histograms"}  # tensors: TF2's scalars
    selection = Selection.of(runs, options.reading_tags(tags), steps, kinds, flags=flags, exclude=exclude,
                             where=where, over=list(options.over) or None, hparams_file=hparams_file)
    groups = None
    if selection.needs_hparams:
        experiment = read_experiment(logdir, storage_options, selection, progress=progress, over_flag=flags[5])
        data = experiment.runs
        if experiment.grouping is not None:
            groups = {group.name: list(group.runs) for group in experiment.grouping.groups}
    else:
        data = read_runs(logdir, storage_options, progress=progress, selection=selection)
    if not data:
        raise ValueError(f"runs: no run to draw below {os.fspath(logdir)!r}")
    if options.kind == "histogram":
        return histogram_panels(data, tags, options.max_points)
    if options.kind == "distribution":
        return distribution_panels(data, tags, options.max_points)
    return scalar_panels([fold_scalar_tensors(run) for run in data], options, tags, groups)


def plot(logdir: str | os.PathLike, tags: str | None = None, *, runs: str | None = None,
         exclude: str | None = None, steps=None, kind: str = "scalars", smoothing: float = 0.0,
         group_runs: str | None = None, band: str = "std", x: str = "step", logx: bool = False,
         logy: bool = False, histogram_mode: str = "offset", style: str | None = None, size=None,
         max_points: int = DEFAULT_MAX_POINTS, storage_options: dict | None = None, where: str | None = None,
         over=None, hparams_file: str | None = None) -> "matplotlib.figure.Figure":
    """A matplotlib Figure of the logdir's charts: one panel per tag (per run and tag for histograms).

    Args:
        logdir: A logdir, local or an fsspec URL.
        tags: A regex; only tags it matches are drawn.
        runs: A regex; only runs whose name it matches are read (as `tensorboard export --runs`).
        exclude: A regex; runs whose name it matches are left out.
        steps: (lo, hi): only steps lo..hi, both included; None for an open end.
        kind: "scalars", "histogram" (TensorBoard's histogram view) or "distribution" (its percentile bands).
        smoothing: TensorBoard's smoothing weight, 0 to 1 (`reader.smooth`); the raw line is drawn faintly.
        group_runs: A regex; runs whose names are equal once its matches are removed are one group, drawn
            as its mean (`reader.reduce`, at the steps all its runs have) with a band.
        band: "std" (mean ± std) or "minmax" (min to max).
        x: "step", "relative" (time since the run's first point), "wall", or a scalar tag joined on step.
        logx: A log x axis; values at or below 0 are not drawn, with a warning.
        logy: A log y axis; values at or below 0 are not drawn, with a warning.
        histogram_mode: "offset" or "overlay", TensorBoard's two histogram views.
        style: A matplotlib style sheet (a name or a path) applied over our settings.
        size: (width, height) of the figure in inches, or "W,H".
        max_points: Points per line at most, about; longer lines are thinned keeping every extremum.
        storage_options: fsspec options for a remote logdir.
        where: A query on the runs' hyperparameters (`'lr < 0.01 and optimizer == "adam"'`, see
            docs/experiments.md); only runs it matches are drawn.
        over: Hyperparameters (a comma-separated string or a list, e.g. "seed") the runs of one configuration
            differ in: runs agreeing on every other one are a group, drawn as its mean with a band.
        hparams_file: Also read hyperparameters from this file in each run's directory or a parent.

    Returns:
        A matplotlib Figure (not attached to pyplot; show it in a notebook cell, or `savefig` it).

    Raises:
        ImportError: matplotlib is not installed.
        ValueError: A bad argument (the error names it), or nothing to draw.

    Examples:
        >>> fig = tensorboard.reader.plot("runs", "^loss", smoothing=0.6)  # doctest: +SKIP
        >>> fig.savefig("loss.pdf")  # doctest: +SKIP
    """
    require_matplotlib()
    from tensorboard.logdir.grouping import check_over

    options = PlotOptions(kind, smoothing, group_runs, band, x, logx, logy, histogram_mode, max_points,
                          check_over(over, "over"))
    size = parse_size(size)
    found = panels(logdir, options, tags, runs, exclude, steps, storage_options, where=where,
                   hparams_file=hparams_file)
    return draw_panels(found, options, style, size)


def draw_panels(found: list, options: PlotOptions, style: str | None = None, size=None,
                names: list[str] | None = None):
    """The Figure of `found` panels, drawn under our settings and the style sheet `style`; `names`: the
    runs and groups in colour order (None: those of `found`)."""
    from tensorboard.plot.draw import figure, plot_style

    with plot_style(style):
        return figure(found, size, options.logx, options.logy, options.histogram_mode == "offset", names)


__all__ = ["PlotOptions", "draw_panels", "panels", "plot", "require_matplotlib"]
