"""Reading event files back: every record's CRCs verified, a truncated tail skipped and reported.

`read_events(path)` walks one file; `read_logdir(logdir)` walks every event file below
a directory (local or fsspec URL), run by run, in file-name order.
"""
from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import Iterator

from tensorboard.record import CorruptRecordError, TruncatedRecordError, read_records
from tensorboard.src import event_pb2
from tensorboard.storage import storage_for

__all__ = ["CorruptEventFileError", "EventFileReader", "LoggedEvent", "TruncatedTailWarning", "is_event_file",
           "read_events", "read_logdir", "read_scalars"]


class CorruptEventFileError(CorruptRecordError):
    """An event file is damaged before its end (bad CRC, impossible length, unparsable event)."""


class TruncatedTailWarning(UserWarning):
    """An event file ends inside a record (its writer was killed mid-write); the partial record is skipped."""


def is_event_file(name: str) -> bool:
    """True for names TensorBoard loads as event files."""
    return "tfevents" in os.path.basename(name)


@dataclass
class EventFileReader:
    """Iterates the Events of one file. After iteration, `truncated_at` is the offset of a skipped partial tail."""

    path: str
    storage: object = None
    truncated_at: int | None = field(default=None, init=False)
    count: int = field(default=0, init=False)

    def __iter__(self) -> Iterator[event_pb2.Event]:
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


def read_events(path: str | os.PathLike) -> Iterator[event_pb2.Event]:
    """The Events of one event file, in order."""
    return iter(EventFileReader(os.fspath(path)))


@dataclass(frozen=True)
class LoggedEvent:
    """One Event of a logdir, with its run name and the file it came from."""

    run: str
    path: str
    event: event_pb2.Event


def read_logdir(logdir: str | os.PathLike, storage_options: dict | None = None) -> Iterator[LoggedEvent]:
    """Every Event below `logdir`, with its run (directory relative to `logdir`, "." for the top).

    storage_options: passed to fsspec for remote logdirs (e.g. {"endpoint_url": ...} for S3).
    """
    logdir = os.fspath(logdir)
    storage = storage_for(logdir, **(storage_options or {}))
    root = logdir.rstrip("/")
    for directory, files in storage.walk(logdir):
        run = os.path.relpath(directory.rstrip("/"), root) if directory.rstrip("/") != root else "."
        for name in files:
            if is_event_file(name):
                path = storage.join(directory, name)
                for event in EventFileReader(path, storage):
                    yield LoggedEvent(run, path, event)


def read_scalars(logdir: str | os.PathLike,
                 storage_options: dict | None = None) -> dict[str, dict[str, list[tuple[int, float, float]]]]:
    """{run: {tag: [(step, wall_time, value), ...]}} for the simple_value scalars below `logdir`."""
    out: dict[str, dict[str, list[tuple[int, float, float]]]] = {}
    for logged in read_logdir(logdir, storage_options):
        for value in logged.event.summary.value:
            if value.WhichOneof("value") == "simple_value":
                out.setdefault(logged.run, {}).setdefault(value.tag, []).append(
                    (logged.event.step, logged.event.wall_time, value.simple_value))
    return out
