"""An object-store logdir (s3://, gs://, any fsspec URL) for serving: one recursive listing per reload,
then the bytes appended to its event files since the last reload, fetched concurrently from where each
file was last read (the engine's planner, tensorboard.logdir.planner). Objects have no inode: a file is
taken as re-created when it is gone, shorter than what was read, or its bytes before that point differ
(those bytes come with the same request)."""
from __future__ import annotations

import io
import logging

from tensorboard.events.storage import storage_for
from tensorboard.logdir import planner
from tensorboard.logdir.discovery import object_store_runs
from tensorboard.logdir.fetch import FETCH_HELD_BYTES, ObjectFile, list_files, reading_options
from tensorboard.logdir.follow import MARK_BYTES, TailBatch
from tensorboard.serving.file_reading import RunStateSink, ServedFile, read_appended

logger = logging.getLogger("tensorboard.serving")


def can_read(url: str) -> bool:
    """True when fsspec knows the URL's scheme and its backend is installed (s3:// needs s3fs)."""
    try:
        import fsspec

        fsspec.get_filesystem_class(url.split("://", 1)[0])
    except (ImportError, ValueError):
        return False
    return True


class _Tail(io.BytesIO):
    """Bytes fetched from file offset `start` on, read with the file's own offsets."""

    def __init__(self, data: bytes, start: int):
        super().__init__(data)
        self._start = start

    def seek(self, offset: int, whence: int = 0) -> int:
        if whence == 0:
            offset -= self._start
        return super().seek(offset, whence) + self._start

    def tell(self) -> int:
        return super().tell() + self._start


class RemoteRoot:
    """One object-store root: lists its runs and reads what was appended to their files."""

    concurrency: int | None = None  # files fetched at once (None: the fetch path's default)
    max_bytes = FETCH_HELD_BYTES  # listed bytes held at once; a file with more than a batch's share is streamed

    def __init__(self, url: str):
        self.url = url.rstrip("/")
        self.storage = storage_for(self.url, **reading_options(self.url, None))
        self.files: dict[str, int] = {}  # the last listing, {URL: size}: where configuration files are found

    def run_files(self) -> dict[str, dict[str, int]]:
        """Run directory URL -> {event file name: size}, from one recursive listing."""
        self.files = list_files(self.storage, self.url)
        return object_store_runs(self.url, self.files)

    def read(self, jobs: list[tuple[object, ServedFile, int]]) -> set[int]:
        """Reads each (run state, file state, listed size) job's new bytes into its run, in order;
        returns the id()s of run states whose files were re-created (read them again from the start)."""
        started_over: set[int] = set()
        skipped: set[int] = set()  # runs with a file that could not be fetched: the rest waits too (file order)
        files = [ObjectFile(state.path, size, max(0, state.offset - MARK_BYTES) if state.offset else 0)
                 for _, state, size in jobs]
        done = 0
        decode = TailBatch()
        for batch in planner.batches(self.storage, files, self.concurrency, self.max_bytes, on_error="return"):
            for (run, state, _), (listed, data) in zip(jobs[done:done + len(batch)], batch):
                if id(run) in started_over or id(run) in skipped:
                    continue
                if isinstance(data, OSError):  # its run waits for the next reload (its files are read in order)
                    logger.warning("reading %s: %s (tried again at the next reload)", listed.url, data)
                    skipped.add(id(run))
                elif not self._read_one(run, state, listed, data, decode):
                    started_over.add(id(run))
            done += len(batch)
            decode.flush()
        return started_over

    def _read_one(self, run, state: ServedFile, listed: ObjectFile, data: bytes | None, decode: TailBatch) -> bool:
        """Queues (or, streamed by ranges, reads) the new bytes of one file; False when the bytes
        before the last read point differ (the object was re-created)."""
        stream = self.storage.open_read(listed.url) if data is None else _Tail(data, listed.start)
        if state.offset:
            stream.seek(listed.start)
            if stream.read(len(state.mark)) != state.mark:
                return False
        new = len(data) - (state.offset - listed.start) if data is not None else None
        if new is None or planner.streams_alone(new):  # a lot to read: on its own, in chunks
            decode.flush()  # what was queued before it comes first
            read_appended(run, state, stream)
        elif new > 0:
            decode.add(RunStateSink(run, state), state, data[state.offset - listed.start:])
        return True
