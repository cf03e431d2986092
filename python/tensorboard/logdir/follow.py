"""Following event files while they are written: how far each file was read (FileState), the records
appended since read into any sink of the reading pipeline (read_appended), and the new bytes of many
files read together (TailBatch). Serving follows its runs with it.

A file that ends inside a record keeps its read point at that record (read again once complete);
damage ends the file there for good, logged once. The last bytes read (the mark) let a caller tell a
file re-created in place from one appended to."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import BinaryIO, NamedTuple

from tensorboard.events.record import CorruptEventFileError
from tensorboard.logdir.decode_many import DECODE_GROUP_BYTES
from tensorboard.logdir.records import RecordSink, ScannedFiles, feed_stream

logger = logging.getLogger("tensorboard.logdir")
MARK_BYTES = 16


@dataclass
class FileState:
    """How far one event file has been read, and what identifies it (a replaced file starts over)."""

    path: str
    identity: tuple = ()  # (device, inode)
    offset: int = 0  # bytes of whole records read
    damaged: bool = False  # stopped at damage; nothing after it is read
    mtime: int = -1  # st_mtime_ns when last looked at
    mark: bytes = b""  # the last MARK_BYTES bytes read: differ when the file was re-created in place
    grew: float = float("-inf")  # time.monotonic() when new bytes were last read (a file being written)


def read_appended(sink: RecordSink, state: FileState, stream: BinaryIO) -> None:
    """Feeds the records after `state.offset` in `stream` (read with the file's own offsets) to `sink`."""
    tail: list[int] = []
    stream.seek(state.offset)
    try:
        for offset in feed_stream(sink, stream, state.path, start=state.offset, on_truncated=tail.append,
                                  warn_truncated=False):
            state.offset = offset
    except CorruptEventFileError as err:
        _stop_at(state, int(err.offset), err)
    else:
        state.offset = tail[0] if tail else stream.tell()
    if state.offset:
        stream.seek(max(0, state.offset - MARK_BYTES))
        state.mark = stream.read(min(state.offset, MARK_BYTES))


class TailJob(NamedTuple):
    """A file's new bytes, from its `state.offset` on, for `sink`."""

    sink: RecordSink
    state: FileState
    data: bytes


class TailBatch:
    """Collects files' new bytes and reads them together once DECODE_GROUP_BYTES are held (the engine's
    bound on bytes decoded together), or on flush(): one scan and one column decode for all of them."""

    def __init__(self, group_bytes: int | None = None):
        self._group_bytes = DECODE_GROUP_BYTES if group_bytes is None else group_bytes
        self._jobs: list[TailJob] = []
        self._held = 0

    def add(self, sink: RecordSink, state: FileState, data: bytes) -> None:
        """Queues a file's bytes from `state.offset` on (a file's jobs in the order of its bytes)."""
        self._jobs.append(TailJob(sink, state, data))
        self._held += len(data)
        if self._held >= self._group_bytes:
            self.flush()

    def flush(self) -> None:
        jobs, self._jobs, self._held = self._jobs, [], 0
        read_tails(jobs)


def read_tails(jobs: list[TailJob]) -> None:
    """Feeds each job's records to its sink, file by file in order; damage ends a file as in read_appended."""
    if not jobs:
        return
    files = ScannedFiles([job.data for job in jobs])
    for i, (sink, state, data) in enumerate(jobs):
        fed = files.feed(i, sink, state.path, state.offset)
        _advance(state, data, fed.scan.consumed)
        damage = fed.scan.error(state.path, state.offset - fed.scan.consumed)
        if damage is not None:
            _stop_at(state, state.offset, damage)


def _advance(state: FileState, data: bytes, consumed: int) -> None:
    """Moves the file's read point past `consumed` bytes of `data`, keeping the bytes before it."""
    if not consumed:
        return
    state.mark = (state.mark + data[:consumed])[-MARK_BYTES:] if consumed < MARK_BYTES \
        else data[consumed - MARK_BYTES:consumed]
    state.offset += consumed


def _stop_at(state: FileState, offset: int, err: CorruptEventFileError) -> None:
    """The file is read up to `offset` and no further (logged once)."""
    state.offset = offset
    state.damaged = True
    logger.warning("%s; the rest of this file is not read", err)

