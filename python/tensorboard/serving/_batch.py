"""Reads the new bytes of many small event files together into their runs: one scan (scan_tails) and
one column decode of plain scalars for all of them, then each file's records in order, with the
same rules as read_appended. A reload of thousands of small runs then costs about what one large
file costs, instead of a scan and a decode per file."""
from __future__ import annotations

import logging
import os
import time

from tensorboard.events.record import CorruptEventFileError
from tensorboard.events.scan_many import intact_spans, scan_tails
from tensorboard.logdir import decode_many
from tensorboard.logdir.bulk_decode import plain_scalars
from tensorboard.serving._reading import MARK_BYTES, FileState, file_records, read_appended, tag_ids
from tensorboard.serving._run import RunState

logger = logging.getLogger("tensorboard.serving")



class Batch:
    """Collects (run, file, new bytes) and reads them together once decode_many.DECODE_GROUP_BYTES are held
    (the engine's bound on bytes decoded together), or on flush()."""

    def __init__(self, max_bytes: int | None = None):
        self._max_bytes = decode_many.DECODE_GROUP_BYTES if max_bytes is None else max_bytes
        self._jobs: list[tuple[RunState, FileState, bytes]] = []
        self._held = 0

    def add(self, run: RunState, state: FileState, data: bytes) -> None:
        """Queues a file's bytes from `state.offset` on (a file's jobs in the order of its bytes)."""
        self._jobs.append((run, state, data))
        self._held += len(data)
        if self._held >= self._max_bytes:
            self.flush()

    def flush(self) -> None:
        jobs, self._jobs, self._held = self._jobs, [], 0
        read_tails(jobs)


def read_tails(jobs: list[tuple[RunState, FileState, bytes]]) -> None:
    """Adds each job's records to its run, file by file in order; damage ends a file as in read_appended."""
    if not jobs:
        return
    joined, starts, ends, scans = scan_tails([data for _, _, data in jobs])
    starts, ends = intact_spans(starts, ends, scans)
    ok, steps, walls, values, key_start, key_len = plain_scalars(joined, starts, ends)
    tags, tag_of = tag_ids(joined, ok, key_start, key_len)
    base, first = 0, 0
    for (run, state, data), scan in zip(jobs, scans):
        span = slice(first, first + scan.count)
        start = state.offset
        with run.lock:
            try:
                file_records(run, state, joined, start - base, starts[span], ends[span], ok[span],
                              steps[span], walls[span], values[span], tags, tag_of[span])
            except CorruptEventFileError as err:  # a record that is no Event: the file ends there
                _damaged(state, data, err.offset - start, err)
            else:
                damage = scan.error(state.path, start)
                if damage is None:
                    _advance(state, data, scan.consumed)
                else:
                    _damaged(state, data, scan.consumed, damage)
        base += len(data)
        first += scan.count


def _advance(state: FileState, data: bytes, consumed: int) -> None:
    """Moves the file's read point past `consumed` bytes of `data`, keeping the bytes before it."""
    if not consumed:
        return
    state.mark = (state.mark + data[:consumed])[-MARK_BYTES:] if consumed < MARK_BYTES \
        else data[consumed - MARK_BYTES:consumed]
    state.offset += consumed


def _damaged(state: FileState, data: bytes, good: int, err: CorruptEventFileError) -> None:
    """The file is read up to its first `good` new bytes and no further (logged once)."""
    _advance(state, data, good)
    state.damaged = True
    logger.warning("%s; the rest of this file is not read", err)


def read_new_bytes(run: RunState, reads: list[tuple[FileState, tuple, int, int]], batch: Batch) -> bool:
    """Reads the new bytes of one run's files, in order: `reads` holds (file, identity, size, mtime) as
    just stat'ed. Queued in `batch`, or read here file by file when one file has much to read (the
    run's files then keep their order). A file replaced since its stat is left for the next reload.
    True when a file read before was appended to (a file being written; its `grew` is now)."""
    alone = any(size - file_state.offset > decode_many.DECODE_GROUP_BYTES for file_state, _, size, _ in reads)
    now = time.monotonic()
    appended = False
    for file_state, identity, size, mtime in reads:
        with open(file_state.path, "rb") as stream:
            st = os.fstat(stream.fileno())
            if (st.st_dev, st.st_ino) != identity:
                continue  # replaced between stat and open: the next reload starts over
            if file_state.offset:  # appended to since a read: a file being written (the first read is not)
                file_state.grew = now
                appended = True
            if alone:
                read_appended(run, file_state, stream)
            else:
                stream.seek(file_state.offset)
                batch.add(run, file_state, stream.read(size - file_state.offset))
            file_state.mtime = mtime
    return appended
