"""`to_dask`: a logdir as a dask DataFrame, one partition per group of runs. The client only lists
the logdir; each task holds run names, file paths and sizes, and the workers read the files
straight from the logdir (a shared disk or an object store), so no event data passes through
the client. Needs the `[dask]` extra (dask[dataframe])."""
from __future__ import annotations

import os

from tensorboard.logdir.kinds import HISTOGRAMS, HPARAMS, SCALARS, TENSORS, TEXT

DASK_KINDS = (SCALARS, HISTOGRAMS, TENSORS, TEXT, HPARAMS)
DEFAULT_PARTITION_BYTES = 64 << 20  # listed bytes of event files per partition (and at least one run)
DEFAULT_PARTITION_RUNS = 100  # runs per partition at most: a sweep of small runs still spreads over workers


def _meta(kind: str):
    """The empty frame of `kind`'s columns and dtypes, as `tensorboard export` lays them out."""
    import numpy as np
    import pandas as pd

    text = pd.Series(["x"]).dtype  # pandas' default string dtype
    columns = {"run": text, "tag": text}
    if kind != HPARAMS:
        columns.update(step=np.int64, wall_time=np.float64)
    if kind == SCALARS:
        columns["value"] = np.float64
    elif kind == HISTOGRAMS:
        columns.update(counts=object, limits=object, max=np.float64, min=np.float64, num=np.float64,
                       sum=np.float64, sum_squares=np.float64)
    else:
        columns["value"] = object
    return pd.DataFrame({name: pd.Series([], dtype=dtype) for name, dtype in columns.items()})


def read_group(group: tuple, kind: str, storage_options: dict | None, tags, steps, root: str):
    """One partition: the runs of `group` ((run, ((path, size), ...)), ...) read on the worker that runs it."""
    from tensorboard.events.storage import storage_for
    from tensorboard.logdir import Listing, Selection, read_listed
    from tensorboard.logdir.fetch import reading_options
    from tensorboard.reader.export import long_form

    meta = _meta(kind)
    storage = storage_for(root, **reading_options(root, storage_options))
    runs = [(run, [path for path, _ in files]) for run, files in group]
    sizes = {path: size for _, files in group for path, size in files}
    selection = Selection.of(None, tags, steps, {kind})
    frame = long_form(list(read_listed(Listing(storage, runs, sizes), selection=selection)), kind)
    if frame.empty:
        return meta
    for name in meta.columns:
        if meta[name].dtype != object and frame[name].dtype != meta[name].dtype:
            frame[name] = frame[name].astype(meta[name].dtype)
        elif meta[name].dtype == object and frame[name].dtype != object:
            frame[name] = frame[name].astype(object)
    return frame[list(meta.columns)]


def _groups(runs: list, sizes: dict, partition_bytes: int, partition_runs: int) -> list[tuple]:
    """Consecutive runs grouped up to `partition_bytes` listed bytes and `partition_runs` runs (a bigger run alone)."""
    groups, current, held = [], [], 0
    for run, paths in runs:
        size = sum(sizes.get(p, 0) for p in paths)
        if current and (held + size > partition_bytes or len(current) >= partition_runs):
            groups.append(tuple(current))
            current, held = [], 0
        current.append((run, tuple((p, int(sizes.get(p, 0))) for p in paths)))
        held += size
    if current:
        groups.append(tuple(current))
    return groups


def to_dask(logdir: str | os.PathLike, kind: str = "scalars", storage_options: dict | None = None,
            runs: str | None = None, tags: str | None = None, steps: tuple[int | None, int | None] | None = None,
            partition_bytes: int = DEFAULT_PARTITION_BYTES, partition_runs: int = DEFAULT_PARTITION_RUNS,
            exclude: str | None = None):
    """A dask DataFrame of `kind` below `logdir` (local path or fsspec URL): `tensorboard export`'s
    columns (run, tag, step, wall_time, values), one partition per group of runs (up to
    `partition_bytes` of event files and `partition_runs` runs each). `runs`/`tags` are regexes and `steps` (lo, hi) an
    inclusive range, as `SummaryReader` and `export` take them. Only the listing is done here;
    dask's workers read the files. Run it on a cluster with `dask.distributed.Client(address)`."""
    if kind not in DASK_KINDS:
        raise ValueError(f"kind {kind!r}: choose from {', '.join(DASK_KINDS)}")
    for name, value in (("partition_bytes", partition_bytes), ("partition_runs", partition_runs)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ValueError(f"{name} must be a positive int, not {value!r}")
    try:
        import dask.dataframe as dd
    except ImportError as err:
        raise ImportError("to_dask needs dask: pip install 'tensorboard[dask]' (or dask[dataframe])") from err
    from tensorboard.logdir import Selection, list_runs

    selection = Selection.of(runs, tags, steps, {kind}, exclude=exclude)
    logdir = os.fspath(logdir)
    listing = list_runs(logdir, storage_options)
    sizes = listing.sizes or {p: os.path.getsize(p) for _, paths in listing.runs for p in paths}  # local: for grouping
    found = listing.only(selection.wants_run).runs
    root = listing.storage.canonical(logdir)
    groups = _groups(found, sizes, partition_bytes, partition_runs)
    meta = _meta(kind)
    if not groups:
        return dd.from_pandas(meta, npartitions=1)
    import dask

    # value columns hold arrays and mixed scalars: dask's conversion of object columns to strings would
    # turn them into text, so it is off for this collection (run and tag are pandas' string dtype already)
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_map(read_group, groups, kind=kind, storage_options=storage_options, tags=selection.tags,
                           steps=selection.steps, root=root, meta=meta, enforce_metadata=False,
                           label=f"tensorboard-{kind}")
