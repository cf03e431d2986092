"""The event-by-event API (protobuf Events: `read_events`, `read_logdir`), `read_scalars`, and the
reader's names for the engine's discovery and reading (`discover`, `read_runs`)."""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Callable, Iterator

from tensorboard.events.record import (
    NOT_AN_EVENT,
    CorruptEventFileError,
    CorruptRecordError,
    TruncatedRecordError,
    TruncatedTailWarning,
)
from tensorboard.events.scan import read_records
from tensorboard.events.storage import storage_for
from tensorboard.logdir import RunData, is_event_file, list_runs
from tensorboard.logdir import read_runs as engine_read_runs

__all__ = ["EventFileReader", "LoggedEvent", "discover", "is_event_file", "read_events", "read_logdir", "read_runs",
           "read_scalars"]


def discover(log_path: str | os.PathLike, storage_options: dict | None = None, storage=None
             ) -> tuple[object, list[tuple[str, list[str]]]]:
    """The runs and event files below `log_path`, or of one file.

    Runs are directories relative to `log_path` ("." for the top), ordered depth-first by name
    like a sorted directory listing; a file path gives one run "." holding that file. An object
    store is listed once, recursively.

    Args:
        log_path: A logdir, an event file, or an fsspec URL of either.
        storage_options: fsspec options for a remote path (e.g. {"endpoint_url": ...} for S3).
        storage: An already opened storage to reuse.

    Returns:
        (storage, [(run, [event file paths in name order]), ...]).

    Raises:
        FileNotFoundError: `log_path` does not exist.
    """
    listing = list_runs(log_path, storage_options, storage)
    return listing.storage, listing.runs


def read_runs(log_path: str | os.PathLike, storage_options: dict | None = None, skip_damaged: bool = False,
              progress: Callable[[int, int, str], None] | None = None,
              run_filter: Callable[[str], bool] | None = None, selection=None, storage=None,
              concurrency: int | None = None, max_bytes: int | None = None) -> list[RunData]:
    """Every run below `log_path`, decoded.

    Args:
        log_path: A logdir, an event file, or an fsspec URL of either.
        storage_options: fsspec options for a remote path.
        skip_damaged: Skip the rest of a corrupt file with a DamagedFileWarning instead of raising.
        progress: Called as `progress(files_done, files_total, path)` after each file.
        run_filter: `run_filter(name)` ("." for the top run) picks runs before anything of them is fetched.
        selection: A `tensorboard.logdir.Selection` of runs, tags, steps and kinds to keep.
        storage: An already opened storage to reuse.
        concurrency: Object-store files fetched at once (default 64; 256 through obstore).
        max_bytes: Object-store bytes decoded and fetched meanwhile (default 256 MiB).

    Returns:
        A list of `tensorboard.logdir.RunData`, one per run.

    Raises:
        FileNotFoundError: `log_path` does not exist.
        CorruptEventFileError: A record fails its CRC check (unless `skip_damaged`).
    """
    return engine_read_runs(log_path, storage_options, skip_damaged, progress, selection, storage, concurrency,
                            max_bytes, run_filter=run_filter)


# -- the event-by-event API (protobuf Events) ---------------------------------------------------------

@dataclass
class EventFileReader:
    """Iterates the Events of one file, each record's CRCs checked.

    A truncated tail (a writer stopped mid-record) is skipped with a TruncatedTailWarning, and
    `truncated_at` is then its offset; `count` is the number of Events read.

    Args:
        path: The event file (a path or fsspec URL).
        storage: An already opened storage to read it from; None: opened for `path`.

    Raises:
        CorruptEventFileError: While iterating, a record that fails its checks or is not an Event.
    """

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
                        raise CorruptEventFileError(f"{NOT_AN_EVENT} ({err})", rec.offset, self.path) from None
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
    """The Events of one event file, in order, each record's CRCs checked.

    Args:
        path: The event file.

    Returns:
        An iterator of Event protos.

    Raises:
        CorruptEventFileError: While iterating, a record that fails its checks.
    """
    return iter(EventFileReader(os.fspath(path)))


@dataclass(frozen=True)
class LoggedEvent:
    """One Event of a logdir, with its run name and the file it came from.

    Args:
        run: The run: its directory relative to the logdir ("." for the top).
        path: The event file.
        event: The Event proto.
    """

    run: str
    path: str
    event: object


def read_logdir(logdir: str | os.PathLike, storage_options: dict | None = None) -> Iterator[LoggedEvent]:
    """Every Event below `logdir`, with its run, run by run and file by file.

    Args:
        logdir: A logdir, or an fsspec URL of one.
        storage_options: fsspec options for a remote logdir (e.g. {"endpoint_url": ...} for S3).

    Returns:
        An iterator of `LoggedEvent`.

    Raises:
        FileNotFoundError: `logdir` does not exist.
        CorruptEventFileError: While iterating, a record that fails its checks.

    Examples:
        >>> for logged in tensorboard.reader.read_logdir("runs"):
        ...     print(logged.run, logged.event.step)
    """
    storage, runs = discover(logdir, storage_options)
    for run, paths in runs:
        for path in paths:
            for event in EventFileReader(path, storage):
                yield LoggedEvent(run, path, event)


def read_scalars(logdir: str | os.PathLike,
                 storage_options: dict | None = None) -> dict[str, dict[str, list[tuple[int, float, float]]]]:
    """The `simple_value` scalars below `logdir` (what add_scalar writes by default) as plain dicts.

    Restarts purge orphaned steps as upstream does.

    Args:
        logdir: A logdir, or an fsspec URL of one.
        storage_options: fsspec options for a remote logdir.

    Returns:
        {run: {tag: [(step, wall_time, value), ...]}}.

    Raises:
        FileNotFoundError: `logdir` does not exist.
        CorruptEventFileError: A record that fails its checks.

    Examples:
        >>> run = tensorboard.reader.read_scalars("runs")["exp1"]
        >>> steps, walls, values = zip(*run["train/loss"])
    """
    out: dict[str, dict[str, list[tuple[int, float, float]]]] = {}
    for data in read_runs(logdir, storage_options):
        store = data.scalars
        names = store.tag_names
        rows = out.setdefault(data.name, {}) if len(store) else None
        for tid, step, wall, value in zip(store.tags, store.steps, store.walls, store.values):
            rows.setdefault(names[tid], []).append((step, wall, value))
    return out
