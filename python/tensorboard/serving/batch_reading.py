"""A served run's new bytes, after a stat of its files: queued in the engine's TailBatch (many small
files' new bytes scanned and decoded together; logdir.follow), or read file by file when one file has
much to read (logdir.planner.streams_alone, the engine's one rule for what is batched)."""
from __future__ import annotations

import os
import time

from tensorboard.logdir.follow import TailBatch
from tensorboard.logdir.planner import streams_alone
from tensorboard.serving.file_reading import RunStateSink, ServedFile, read_appended
from tensorboard.serving.run_state import RunState


def read_new_bytes(run: RunState, reads: list[tuple[ServedFile, tuple, int, int]], batch: TailBatch) -> bool:
    """Reads the new bytes of one run's files, in order: `reads` holds (file, identity, size, mtime) as
    just stat'ed. Queued in `batch`, or read here file by file when one file has much to read (the
    run's files then keep their order). A file replaced since its stat is left for the next reload.
    True when a file read before was appended to (a file being written; its `grew` is now)."""
    alone = any(streams_alone(size - file_state.offset) for file_state, _, size, _ in reads)
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
                batch.add(RunStateSink(run, file_state), file_state, stream.read(size - file_state.offset))
            file_state.mtime = mtime
    return appended
