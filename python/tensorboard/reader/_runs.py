"""Finding runs and their event files (local or fsspec), and reading them: files of a run in name
order into one accumulator, so restarts purge orphaned steps across files as upstream does."""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterator

from tensorboard.events.record import CorruptRecordError, TruncatedRecordError, read_records
from tensorboard.reader._scan import CorruptEventFileError, TruncatedTailWarning
from tensorboard.reader._store import RunData
from tensorboard.events.storage import storage_for


def is_event_file(name: str) -> bool:
    """True for names TensorBoard loads as event files."""
    return "tfevents" in os.path.basename(name)


def _open_storage(log_path: str, storage_options: dict | None, check: bool = True, concurrency: int | None = None):
    """The storage of `log_path`; with `check`, a FileNotFoundError when it does not exist."""
    from tensorboard.reader._fetch import reading_options

    storage = storage_for(log_path, **reading_options(log_path, storage_options, concurrency))
    if check and not storage.exists(log_path):
        raise FileNotFoundError(f"log path not found: {log_path}")
    return storage


def discover(log_path: str | os.PathLike, storage_options: dict | None = None, storage=None
             ) -> tuple[object, list[tuple[str, list[str]]]]:
    """(storage, [(run, [event file paths in name order])]) below `log_path`, or for one file.

    Runs are directories relative to `log_path` ("." for the top), ordered depth-first by name
    like a sorted directory listing; a file path gives one run "." holding that file. An object
    store is listed once, recursively (`storage`: an already opened storage to reuse).
    """
    storage, runs, _, _ = _discover(os.fspath(log_path), storage_options, storage)
    return storage, runs


def _discover(log_path: str, storage_options: dict | None, storage=None, concurrency: int | None = None):
    """(storage, discover()'s runs, {path: listed size} (object stores only; else empty), is a directory).

    An object store is listed once, recursively, with no existence or directory probe before: a
    listing that finds nothing is followed by one look at the path itself (a file, an empty
    directory, or FileNotFoundError)."""
    from tensorboard.reader._fetch import is_object_store, list_files, relative_run

    remote = storage is not None and is_object_store(storage)
    if storage is None:
        from tensorboard.storage import is_remote

        remote = is_remote(log_path)
        storage = _open_storage(log_path, storage_options, check=not remote, concurrency=concurrency)
    log_path = storage.canonical(log_path)  # file:///x reads /x
    found = []
    sizes: dict[str, int] = {}
    if remote:
        root = log_path.rstrip("/")
        listing = list_files(storage, root)
        stripped = storage._strip(root)
        if not listing or [storage._strip(url) for url in listing] == [stripped]:
            try:
                info = storage.fs.info(stripped)
            except FileNotFoundError:
                raise FileNotFoundError(f"log path not found: {log_path}") from None
            if info.get("type") != "directory":
                return storage, [(".", [log_path])], {log_path: int(info.get("size") or 0)}, False
        for url, size in listing.items():
            if is_event_file(url):
                run, parts = relative_run(root, url)
                found.append((parts, run, url))
                sizes[url] = size
    else:
        if not storage.isdir(log_path):
            return storage, [(".", [log_path])], {}, False
        root = log_path.rstrip("/") or "/"
        for directory, files in storage.walk(log_path):
            stripped = directory.rstrip("/")
            run = os.path.relpath(stripped, root) if stripped != root else "."
            parts = () if run == "." else tuple(run.split(os.sep))
            for name in files:
                if is_event_file(name):
                    found.append((parts + (name,), run, storage.join(directory, name)))
    found.sort(key=lambda item: item[0])
    runs: dict[str, list[str]] = {}
    for _, run, path in found:
        runs.setdefault(run, []).append(path)
    return storage, list(runs.items()), sizes, True


def read_runs(log_path: str | os.PathLike, storage_options: dict | None = None, skip_damaged: bool = False,
              progress: Callable[[int, int, str], None] | None = None,
              run_filter: Callable[[str], bool] | None = None, **options) -> list[RunData]:
    """Every run below `log_path`, decoded. `progress(files_done, files_total, path)` after each file.
    Other keyword options: those of `iter_runs`."""
    return list(iter_runs(log_path, storage_options, skip_damaged, progress, run_filter, **options))


def iter_runs(log_path: str | os.PathLike, storage_options: dict | None = None, skip_damaged: bool = False,
              progress: Callable[[int, int, str], None] | None = None,
              run_filter: Callable[[str], bool] | None = None, selection=None, storage=None,
              concurrency: int | None = None, max_bytes: int | None = None) -> Iterator[RunData]:
    """The runs below `log_path` one at a time, each decoded in full before it is yielded.

    `selection` (a _select.Selection): runs it does not want are not fetched; its tags, steps and
    kinds trim each run. On an object store, files are fetched `concurrency` at a time with at most
    `max_bytes` in flight (see _fetch); local files are read one after another.
    """
    storage, runs, sizes, _ = _discover(os.fspath(log_path), storage_options, storage, concurrency)
    if run_filter is not None:
        runs = [(run, paths) for run, paths in runs if run_filter("" if run == "." else run)]
    if selection is not None:
        runs = [(run, paths) for run, paths in runs if selection.wants_run(run)]
    return read_listed(storage, runs, sizes, skip_damaged, progress, selection, concurrency, max_bytes)


def read_listed(storage, runs: list[tuple[str, list[str]]], sizes: dict[str, int], skip_damaged: bool = False,
                progress: Callable[[int, int, str], None] | None = None, selection=None,
                concurrency: int | None = None, max_bytes: int | None = None) -> Iterator[RunData]:
    """The listed `runs` ([(run, [paths])], `sizes` {path: listed size}) read from `storage`, one at a time."""
    from tensorboard.reader import _fetch
    from tensorboard.reader._decode import decode_file
    from tensorboard.reader._decode_many import FetchedFiles

    total = sum(len(paths) for _, paths in runs)
    done = 0

    def finish(data: RunData) -> RunData:
        return selection.apply(data) if selection is not None else data

    if not _fetch.is_object_store(storage):
        for run, paths in runs:
            data = RunData(run)
            for file_id, path in enumerate(paths):
                data.files.append(path)
                with storage.open_read(path) as stream:
                    decode_file(data, stream, path, file_id, skip_damaged)
                done += 1
                if progress is not None:
                    progress(done, total, path)
            yield finish(data)
        return
    files = [_fetch.ObjectFile(path, sizes.get(path, 0)) for _, paths in runs for path in paths]
    owner = [(run, file_id) for run, paths in runs for file_id in range(len(paths))]
    data = None
    index = 0
    for batch in _fetch.fetch_batches(storage, files, concurrency or _fetch.DEFAULT_CONCURRENCY,
                                      max_bytes or _fetch.DEFAULT_MAX_BYTES):
        fetched = FetchedFiles([payload for _, payload in batch]) if batch[0][1] is not None else None
        for i, (entry, _) in enumerate(batch):
            run, file_id = owner[index]
            index += 1
            if file_id == 0:
                if data is not None:
                    yield finish(data)
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
        del batch, fetched
    if data is not None:
        yield finish(data)


# -- the event-by-event API (protobuf Events) ---------------------------------------------------------

@dataclass
class EventFileReader:
    """Iterates the Events of one file. After iteration, `truncated_at` is the offset of a skipped partial tail."""

    path: str
    storage: object = None
    truncated_at: int | None = field(default=None, init=False)
    count: int = field(default=0, init=False)

    def __iter__(self) -> Iterator:
        from tensorboard.src import event_pb2

        storage = self.storage or storage_for(self.path)
        with storage.open_read(self.path) as stream:
            try:
                for rec in read_records(stream, self.path):
                    try:
                        event = event_pb2.Event.FromString(rec.payload)
                    except Exception as err:  # protobuf's DecodeError and friends
                        raise CorruptEventFileError(f"record is not an Event ({err})", rec.offset, self.path) from None
                    self.count += 1
                    yield event
            except TruncatedRecordError as err:
                self.truncated_at = err.offset
                warnings.warn(str(err) + "; skipping the partial record", TruncatedTailWarning, stacklevel=2)
            except CorruptRecordError as err:
                if isinstance(err, CorruptEventFileError):
                    raise
                raise CorruptEventFileError(str(err).split(": ", 1)[-1], err.offset, self.path) from None


def read_events(path: str | os.PathLike) -> Iterator:
    """The Events of one event file, in order."""
    return iter(EventFileReader(os.fspath(path)))


@dataclass(frozen=True)
class LoggedEvent:
    """One Event of a logdir, with its run name and the file it came from."""

    run: str
    path: str
    event: object


def read_logdir(logdir: str | os.PathLike, storage_options: dict | None = None) -> Iterator[LoggedEvent]:
    """Every Event below `logdir`, with its run (directory relative to `logdir`, "." for the top).

    storage_options: passed to fsspec for remote logdirs (e.g. {"endpoint_url": ...} for S3).
    """
    storage, runs = discover(logdir, storage_options)
    for run, paths in runs:
        for path in paths:
            for event in EventFileReader(path, storage):
                yield LoggedEvent(run, path, event)


def read_scalars(logdir: str | os.PathLike,
                 storage_options: dict | None = None) -> dict[str, dict[str, list[tuple[int, float, float]]]]:
    """{run: {tag: [(step, wall_time, value), ...]}} for the simple_value scalars below `logdir`.

    Read with the fast decoder; restarts purge orphaned steps as upstream does.
    """
    out: dict[str, dict[str, list[tuple[int, float, float]]]] = {}
    for data in read_runs(logdir, storage_options):
        store = data.scalars
        names = store.tag_names
        rows = out.setdefault(data.name, {}) if len(store) else None
        for tid, step, wall, value in zip(store.tags, store.steps, store.walls, store.values):
            rows.setdefault(names[tid], []).append((step, wall, value))
    return out
