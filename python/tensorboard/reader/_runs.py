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


def _open_storage(log_path: str, storage_options: dict | None):
    storage = storage_for(log_path, **(storage_options or {}))
    if not storage.exists(log_path):
        raise FileNotFoundError(f"log path not found: {log_path}")
    return storage


def discover(log_path: str | os.PathLike, storage_options: dict | None = None
             ) -> tuple[object, list[tuple[str, list[str]]]]:
    """(storage, [(run, [event file paths in name order])]) below `log_path`, or for one file.

    Runs are directories relative to `log_path` ("." for the top), ordered depth-first by name
    like a sorted directory listing; a file path gives one run "." holding that file.
    """
    storage = _open_storage(os.fspath(log_path), storage_options)
    log_path = storage.canonical(os.fspath(log_path))  # file:///x reads /x
    if not storage.isdir(log_path):
        return storage, [(".", [log_path])]
    root = log_path.rstrip("/") or "/"
    found = []
    for directory, files in storage.walk(log_path):
        stripped = directory.rstrip("/")
        run = os.path.relpath(stripped, root) if stripped != root else "."
        parts = () if run == "." else tuple(run.split(os.sep if "://" not in root else "/"))
        for name in files:
            if is_event_file(name):
                found.append((parts + (name,), run, storage.join(directory, name)))
    found.sort(key=lambda item: item[0])
    runs: dict[str, list[str]] = {}
    for _, run, path in found:
        runs.setdefault(run, []).append(path)
    return storage, list(runs.items())


def read_runs(log_path: str | os.PathLike, storage_options: dict | None = None, skip_damaged: bool = False,
              progress: Callable[[int, int, str], None] | None = None,
              run_filter: Callable[[str], bool] | None = None) -> list[RunData]:
    """Every run below `log_path`, decoded. `progress(files_done, files_total, path)` after each file."""
    from tensorboard.reader._decode import decode_file

    storage, runs = discover(log_path, storage_options)
    if run_filter is not None:
        runs = [(run, paths) for run, paths in runs if run_filter("" if run == "." else run)]
    total = sum(len(paths) for _, paths in runs)
    done = 0
    out = []
    for run, paths in runs:
        data = RunData(run)
        for file_id, path in enumerate(paths):
            data.files.append(path)
            with storage.open_read(path) as stream:
                decode_file(data, stream, path, file_id, skip_damaged)
            done += 1
            if progress is not None:
                progress(done, total, path)
        out.append(data)
    return out


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
