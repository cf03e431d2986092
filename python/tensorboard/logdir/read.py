"""Reading runs: each run's event files in name order into one RunData, so restarts purge orphaned
steps across files as upstream does. Files come in batches from the one planner (`logdir.planner`: fetched
many at a time from an object store, read ahead from a local disk); small files are decoded together
(`logdir.decode_many`)."""
from __future__ import annotations

import os
from typing import Callable, Iterator

from tensorboard.logdir import planner
from tensorboard.logdir.decode import decode_file
from tensorboard.logdir.decode_many import FetchedFiles
from tensorboard.logdir.discovery import Listing, list_runs
from tensorboard.logdir.run_data import RunData
from tensorboard.logdir.selection import Selection

OnFile = Callable[[int, int, str], None]  # (files done, files in all, path), after each file


def read_runs(log_path: str | os.PathLike, storage_options: dict | None = None, skip_damaged: bool = False,
              progress: OnFile | None = None, selection: Selection | None = None, storage=None,
              concurrency: int | None = None, max_bytes: int | None = None, *,
              run_filter: Callable[[str], bool] | None = None) -> list[RunData]:
    """Every run below `log_path`, decoded (see `iter_runs`)."""
    return list(iter_runs(log_path, storage_options, skip_damaged, progress, selection, storage, concurrency,
                          max_bytes, run_filter=run_filter))


def iter_runs(log_path: str | os.PathLike, storage_options: dict | None = None, skip_damaged: bool = False,
              progress: OnFile | None = None, selection: Selection | None = None, storage=None,
              concurrency: int | None = None, max_bytes: int | None = None, *,
              run_filter: Callable[[str], bool] | None = None) -> Iterator[RunData]:
    """The runs below `log_path` one at a time, each decoded in full before it is yielded.

    `selection` and `run_filter(name)`: runs they do not want are not fetched; the selection's tags,
    steps and kinds trim each run. `progress(files_done, files_total, path)` is called after each file.
    On an object store, files are fetched `concurrency` at a time with at most `max_bytes` in flight
    (see `logdir.fetch`).
    """
    listing = list_runs(log_path, storage_options, storage, concurrency)
    for wanted in (run_filter, None if selection is None else selection.wants_run):
        if wanted is not None:
            listing = listing.only(wanted)
    return read_listed(listing, skip_damaged, progress, selection, concurrency, max_bytes)


def read_listed(listing: Listing, skip_damaged: bool = False, progress: OnFile | None = None,
                selection: Selection | None = None, concurrency: int | None = None,
                max_bytes: int | None = None) -> Iterator[RunData]:
    """The runs of `listing` read from its storage, one at a time."""
    storage, runs, sizes = listing.storage, listing.runs, listing.sizes
    total = sum(len(paths) for _, paths in runs)
    done = 0

    def finish(data: RunData) -> RunData:
        return selection.apply(data) if selection is not None else data

    files = [planner.ObjectFile(path, sizes.get(path, 0)) for _, paths in runs for path in paths]
    owner = [(run, file_id, file_id == len(paths) - 1) for run, paths in runs for file_id in range(len(paths))]
    index = 0
    for batch in planner.batches(storage, files, concurrency, max_bytes):
        fetched = FetchedFiles([payload for _, payload in batch]) if batch[0][1] is not None else None
        for i, (entry, _) in enumerate(batch):
            run, file_id, last = owner[index]
            index += 1
            if file_id == 0:
                data = RunData(run)
            data.files.append(entry.url)
            if fetched is not None:  # a batch holds either fetched files or one file to stream
                fetched.decode(i, data, entry.url, file_id, skip_damaged)
            else:
                with storage.open_read(entry.url) as stream:
                    decode_file(data, stream, entry.url, file_id, skip_damaged)
            done += 1
            if progress is not None:
                progress(done, total, entry.url)
            if last:  # each run as soon as its last file is read
                yield finish(data)
        del batch, fetched
