"""Reading logs back: event-by-event (`read_events`, `read_logdir`), as dicts (`read_scalars`) or as
pandas DataFrames in tbparse's layouts (`SummaryReader`), or a dask DataFrame (`to_dask`); seeds
reduced step by step (`reduce`), TensorBoard's smoothing (`smooth`) and figures for papers (`plot`,
with the `[plot]` extra). pandas is imported only for DataFrames; object stores are read many files at once.

Every record's CRCs are checked; a truncated tail is skipped with a TruncatedTailWarning;
corruption raises CorruptEventFileError naming the file and byte offset.
"""
import os
from typing import TYPE_CHECKING, Sequence

from tensorboard.events.record import CorruptEventFileError, DamagedFileWarning, TruncatedTailWarning
from tensorboard.reader._events import (
    EventFileReader,
    LoggedEvent,
    discover,
    is_event_file,
    read_events,
    read_logdir,
    read_runs,
    read_scalars,
)
from tensorboard.reader._summary_reader import SummaryReader
from tensorboard.stats.smoothing import smooth

if TYPE_CHECKING:
    import matplotlib.figure
    import pandas


def reduce(source: str | os.PathLike | Sequence[str | os.PathLike], ops: str | Sequence[str] = "mean", *,
           group_by: str | None = None, runs: str | None = None, exclude: str | None = None,
           tags: str | None = None, lax_steps: bool = False, lax_tags: bool = False,
           min_runs_per_step: int | None = None, duplicate_steps: str | None = None,
           storage_options: dict | None = None) -> "pandas.DataFrame":
    """Runs reduced across seeds, step by step, as a tidy DataFrame: `tag`, `step`, one column per op
    and `n_runs`, the number of runs with a value at that step (and a leading `group` column with
    `group_by`). Every point of every run is read; nothing is sampled.

    Args:
        source: a logdir (its runs are the seeds; `group_by` splits them into configurations), or a
            list of run directories (each read as one run, named by the path as given).
        ops: reductions, from "mean", "std", "min", "max", "median" ("mean,std" or a list), computed
            as pandas computes them across the runs at each step (std with ddof=1).
        group_by: a regex; runs whose names are equal once its matches are removed form one group
            (`"_seed\\d+"` groups `lr0.1_seed0` ... `lr0.1_seed4` as `lr0.1`).
        runs: a regex; only runs whose name it matches are read (as `tensorboard export --runs`).
        exclude: a regex; runs whose name it matches are left out.
        tags: a regex; only scalar tags it matches are reduced.
        lax_steps: reduce runs whose steps differ, at the steps all of them have.
        lax_tags: reduce runs whose tags differ, each tag over the runs that have it.
        min_runs_per_step: keep every step at least this many runs have (implies lax_steps).
        duplicate_steps: which value of a step logged twice in a run counts: "keep-first",
            "keep-last" or "mean"; None refuses such a run.
        storage_options: for fsspec URLs, as `SummaryReader` takes them.

    Returns:
        A pandas DataFrame, one row per (group,) tag and step.

    Raises:
        ValueError: no runs, an unknown op, runs whose tags or steps differ (naming the run and the
            tag) without the lax option, a step logged twice without `duplicate_steps`.

    Examples:
        >>> frame = tensorboard.reader.reduce("sweep", "mean,std", group_by=r"_seed\\d+")  # doctest: +SKIP
    """
    from tensorboard.logdir import Selection
    from tensorboard.stats import read_sources, reduce_groups

    selection = Selection.of(runs, tags, None, {"scalars"}, exclude=exclude)
    data = read_sources(source, selection, storage_options)
    return reduce_groups(data, ops, group_by, lax_steps=lax_steps, lax_tags=lax_tags,
                         min_runs_per_step=min_runs_per_step, duplicate_steps=duplicate_steps)


def plot(logdir: str | os.PathLike, tags: str | None = None, **options) -> "matplotlib.figure.Figure":
    """A matplotlib Figure of the logdir's charts, one panel per tag, as `tensorboard plot` draws them:
    `tensorboard.plot.plot`, whose arguments (runs, exclude, steps, kind, smoothing, group_runs, band, x,
    logx, logy, histogram_mode, style, size, max_points, storage_options) it takes. Needs the `[plot]` extra.

    Args:
        logdir: A logdir, local or an fsspec URL.
        tags: A regex; only tags it matches are drawn.
        **options: As `tensorboard.plot.plot` takes them.

    Returns:
        A matplotlib Figure; `fig.savefig("fig.pdf")` writes it with embedded fonts.

    Raises:
        ImportError: matplotlib is not installed (the message says what to install).
        ValueError: A bad argument, named in the message, or nothing to draw.

    Examples:
        >>> fig = tensorboard.reader.plot("runs", "^loss", smoothing=0.6, group_runs=r"_seed\\d+")  # doctest: +SKIP
    """
    from tensorboard.plot import plot as draw

    return draw(logdir, tags, **options)


def to_dask(logdir, kind: str = "scalars", storage_options: dict | None = None, runs: str | None = None,
            tags: str | None = None, steps=None, partition_bytes: int | None = None,
            partition_runs: int | None = None, exclude: str | None = None):
    """A dask DataFrame of `kind` below `logdir`, one partition per group of runs, read by dask's workers.

    Only the listing is done here; the workers read the files (run it on a cluster with
    `dask.distributed.Client(address)`). Needs the `[dask]` extra.

    Args:
        logdir: A logdir, local or an fsspec URL.
        kind: "scalars", "histograms", "tensors", "text" or "hparams".
        storage_options: fsspec options for a remote logdir.
        runs: A regex; only runs whose name it matches are read.
        tags: A regex; only tags it matches are kept.
        steps: (lo, hi): keep steps lo..hi, both included; None for an open end.
        partition_bytes: Event-file bytes per partition at most (default 64 MiB; a bigger run alone).
        partition_runs: Runs per partition at most (default 100).
        exclude: A regex; the runs it matches are left out.

    Returns:
        A dask DataFrame with `tensorboard export`'s columns (run, tag, step, wall_time, values).

    Raises:
        ImportError: dask is not installed.
        ValueError: An unknown kind, or a partition size that is not a positive int.
    """
    from tensorboard.reader import _dask

    return _dask.to_dask(logdir, kind, storage_options, runs, tags, steps,
                         _dask.DEFAULT_PARTITION_BYTES if partition_bytes is None else partition_bytes,
                         _dask.DEFAULT_PARTITION_RUNS if partition_runs is None else partition_runs, exclude)

__all__ = ["CorruptEventFileError", "DamagedFileWarning", "EventFileReader", "LoggedEvent", "SummaryReader",
           "TruncatedTailWarning", "discover", "is_event_file", "plot", "read_events", "read_logdir",
           "read_runs", "read_scalars", "reduce", "smooth", "to_dask"]
