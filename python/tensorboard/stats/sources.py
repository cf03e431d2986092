"""The runs a reduction reads: every run of a logdir, or run directories named one by one (each read
as one run: the event files directly in it, named by the path as given)."""
from __future__ import annotations

import os
from typing import Sequence

from tensorboard.logdir import TOP_RUN, Listing, RunData, Selection, list_runs, read_listed, read_runs


def read_sources(source: str | os.PathLike | Sequence[str | os.PathLike], selection: Selection | None = None,
                 storage_options: dict | None = None) -> list[RunData]:
    """The runs of the logdir `source`, or of each run directory in the list `source`, picked by
    `selection` (runs, exclude and tags; run directories are matched by the path as given)."""
    if isinstance(source, (str, os.PathLike)):
        return read_runs(source, storage_options, selection=selection)
    if not source:
        raise ValueError("runs: no run directory given")
    found, storage, sizes = [], None, {}
    for path in source:
        name = os.fspath(path)
        listing = list_runs(name, storage_options)
        files = dict(listing.runs).get(TOP_RUN)
        if not files:
            inside = [run for run, _ in listing.runs][:3]
            raise ValueError(f"{name!r} holds no event file itself" +
                             (f" (its runs are below it: {inside}; give those, or the logdir)" if inside else ""))
        if selection is None or selection.wants_run(name):
            found.append((name, files))
            storage = listing.storage
            sizes.update(listing.sizes)
    return list(read_listed(Listing(storage, found, sizes), selection=selection)) if found else []
