"""An event file writer's files and its I/O error policy (on_error): opening and rolling over files,
failing (stored to raise, or warned about, counted and retried with backoff) and recovering.

`EventFiles` owns this state; the EventFileWriter holds one and calls it from its writer thread
(and its constructor), handing it whole batches of serialized events.

With on_error="warn", what a deleted local file took with it since its name was last seen is written
again to the new file (`_Replayable`); what cannot be written even at close() is counted in
`dropped_events`, so that dropped_events + events on disk = events logged after the last good flush.
"""
from __future__ import annotations

import errno
import os
import struct
import time
import warnings

from tensorboard.events import record
from tensorboard.events.file_names import event_file_name, file_stamp, header_record
from tensorboard.events.storage import LocalAppendFile

ON_ERROR_CHOICES = ("raise", "warn")
RETRY_FIRST, RETRY_MAX = 1.0, 60.0  # seconds between write attempts while failing (on_error="warn")


class EventWriteWarning(RuntimeWarning):
    """An event file could not be written and on_error="warn": events are being dropped (and counted)."""


CONFIRM_BYTES = 1 << 20  # a local file's name is checked (one fstat) after this many bytes: bounds what is kept


def count_records(data: bytes) -> int:
    """Records in framed `data` (whole records, as this writer framed them)."""
    count = offset = 0
    while offset + 12 <= len(data):
        offset += 16 + struct.unpack_from("<Q", data, offset)[0]
        count += 1
    return count


class _Replayable:
    """A local event file that keeps the bytes written since its name was last seen to exist (by a
    flush, or an fstat every CONFIRM_BYTES), so a deleted file's recent events can be written again."""

    def __init__(self, inner: LocalAppendFile):
        self._inner = inner
        self._since: list = []
        self._since_bytes = 0
        self.lost = False  # an fstat at a write found the file deleted

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    def write(self, data: bytes) -> None:
        self._inner.write(data)
        self._since.append(data)
        self._since_bytes += len(data)
        if self._since_bytes >= CONFIRM_BYTES:
            if self.deleted():
                self.lost = True
            else:
                self._since, self._since_bytes = [], 0

    def flush(self, fsync: bool = False) -> None:
        self._inner.flush(fsync)  # raises when the file was deleted
        self._since, self._since_bytes = [], 0

    def deleted(self) -> bool:
        """True when the open file has no name any more (its directory was removed)."""
        try:
            return self._inner._fd >= 0 and os.fstat(self._inner._fd).st_nlink == 0
        except OSError:
            return False

    def take_unconfirmed(self) -> bytes:
        """The bytes written since the name was last seen (empty unless the file was deleted)."""
        data = b"".join(self._since) if self.deleted() else b""
        self._since, self._since_bytes = [], 0
        return data

    def needs_reopen(self) -> bool:
        return self.lost or self._inner.needs_reopen()

    def close(self) -> None:
        self._inner.close()


class EventFiles:
    """The files one EventFileWriter writes, and what happens when writing them fails (module docstring).

    Only the writer thread calls it once the writer is running; `error` (on_error="raise") is the
    first failure, which the writer raises to its callers.
    """

    def __init__(self, storage, logdir: str, suffix: str, source_writer: str, on_error: str,
                 max_file_bytes: int | None):
        self._storage = storage
        self.logdir = logdir
        self._suffix = suffix
        self._source_writer = source_writer
        self._on_error = on_error
        self.max_file_bytes = max_file_bytes
        self.error: BaseException | None = None  # on_error="raise": the first failure, kept
        self.dropped_events = 0  # events on_error="warn" could not write
        self.paths: list[str] = []  # every file started, in order
        self.path = storage.join(logdir, event_file_name(suffix))
        self.file = None
        self.file_bytes = 0
        self._file_events = 0  # written since the last good flush
        self._failing = False  # writes fail (on_error="warn"): retried at _retry_at
        self._flush_failing = False  # flushes (uploads) fail: retried at _flush_retry_at
        self._in_trouble = False  # warned about a failure, not yet about the recovery
        self._retry_at = 0.0
        self._flush_retry_at = 0.0
        self._backoff = RETRY_FIRST
        self._replay = b""  # what a deleted local file took with it, until a new file takes it

    def open_first(self, fsync: bool) -> None:
        """Starts the writer's first file; a failure is raised (on_error="raise") or counted and retried."""
        try:
            self._open_file(self.path, fsync)
        except Exception as err:
            if self._on_error == "raise":
                raise
            self._fail(err, 0)

    # -- the writer thread's calls -----------------------------------------------------------------

    def batch_limit(self, batch_bytes: int) -> int:
        """Bytes to gather before a write: batch_bytes, or less when the current file is to roll over sooner."""
        if self.max_file_bytes is None:
            return batch_bytes
        return max(1, min(batch_bytes, self.max_file_bytes - self.file_bytes))

    def write(self, batch: list) -> None:
        """Frames and appends serialized events, or drops (and counts) them while writes fail."""
        if self.error is not None:
            return
        if not self._may_write():
            self.dropped_events += len(batch)
            return
        data = record.frame_many(batch)
        try:
            self.file.write(data)
        except BaseException as err:  # raised to the callers at their next call (or counted)
            self._fail(err, len(batch))
            return
        self.file_bytes += len(data)
        self._file_events += len(batch)
        self._recovered(flushed=False)
        if self.max_file_bytes is not None and self.file_bytes >= self.max_file_bytes:
            self._roll_over()

    def flush(self, fsync: bool) -> None:
        """Makes what was written visible (uploads it to object stores), fsyncs if asked."""
        if not self._may_flush():
            return
        try:
            self.file.flush(fsync)
        except BaseException as err:
            self._fail(err, 0, flushing=True)
            if self.file.needs_reopen() and self._on_error == "warn":  # deleted: start anew, with its recent events
                if self._reopen():
                    self._recovered(flushed=True)
                    self._recovered(flushed=False)
                else:
                    self._failing, self._retry_at = True, self._flush_retry_at
        else:
            self._file_events = 0  # all uploaded: a later failed close loses only what comes after
            self._recovered(flushed=True)

    def close(self) -> None:
        """After the writer thread stopped: one last attempt at what a deleted file took with it
        (on_error="warn"), then the file is closed; a failure counts what was not yet flushed."""
        self._last_attempt()
        if self.file is not None:
            try:
                self.file.close()
            except Exception as err:
                self._fail(err, self._file_events if getattr(self.file, "_dirty", False) else 0)

    def abandon(self) -> None:
        """In a forked child: let go of the parent's file without writing to it."""
        if self.file is not None:
            try:
                getattr(self.file, "abandon", self.file.close)()
            except Exception:
                pass

    # -- files -------------------------------------------------------------------------------------

    def _open_file(self, path: str, fsync: bool = False) -> None:
        """Starts event file `path` with its file_version record, made visible at once."""
        self._storage.makedirs(self.logdir)
        new = self._storage.open_append(path)
        try:
            new.write(header_record(self._source_writer))
            new.flush(fsync)
        except BaseException:
            try:
                new.close()
                if isinstance(new, LocalAppendFile) and os.path.getsize(new.path) == 0:
                    os.unlink(new.path)  # ours (O_EXCL) and empty: leave no 0-byte file behind
            except Exception:
                pass
            raise
        if isinstance(new, LocalAppendFile) and self._on_error == "warn":  # only "warn" writes a lost file again
            new = _Replayable(new)
        self.file, self.path = new, path
        self.file_bytes, self._file_events = 0, 0
        self.paths.append(path)

    def _write_replay(self) -> bool:
        """Writes to the new current file what a deleted one took with it; if that fails, counts it dropped."""
        replay, self._replay = self._replay, b""
        if not replay:
            return True
        try:
            self.file.write(replay)
        except Exception as err:
            self._fail(err, count_records(replay))
            return False
        self.file_bytes += len(replay)
        self._file_events += count_records(replay)
        return True

    def _next_path(self) -> str:
        """A new file name that sorts after every file this writer started (readers go in name order).

        Never stamped ahead of the clock: files of one second sort by the process's file counter, and
        a stamp in the future would sort this run's next writer (a reopen, a purge_step restart) first.
        """
        stamp = max(int(time.time()), max(map(file_stamp, self.paths), default=0))
        return self._storage.join(self.logdir, event_file_name(self._suffix, now=stamp))

    def _take_unconfirmed(self, old) -> None:
        if isinstance(old, _Replayable):
            self._replay += old.take_unconfirmed()

    def _reopen(self) -> bool:
        """Starts a new file in place of the current one (gone, damaged or never opened), first in it what a
        deleted file took with it since it was last seen; False if it failed (counted as a failure)."""
        old, self.file = self.file, None
        if old is not None:
            self._take_unconfirmed(old)
            try:
                old.close()
            except Exception:
                pass
        try:
            self._open_file(self._next_path())
        except Exception as err:
            self._fail(err, 0)
            return False
        return self._write_replay()

    def _roll_over(self) -> None:
        """Closes (uploads) the full current file and starts the next one."""
        old = self.file
        self._take_unconfirmed(old)
        try:
            old.close()
        except Exception as err:
            self.file = None
            self._fail(err, self._file_events)
            if self._on_error == "raise":
                return
        try:
            self._open_file(self._next_path())
        except Exception as err:
            self.file = None
            self._fail(err, 0)
        else:
            self._write_replay()

    def _last_attempt(self) -> None:
        """on_error="warn", at close: one more try, whatever the backoff, to start a file for what a deleted
        one took with it; what still cannot be written is counted."""
        if self._on_error != "warn" or self.error is not None:
            return
        current = self.file
        if self._replay or (isinstance(current, _Replayable) and current.deleted()):
            if self._reopen():
                self._recovered(flushed=True)
                self._recovered(flushed=False)
        replay, self._replay = self._replay, b""
        self.dropped_events += count_records(replay)

    # -- failures ----------------------------------------------------------------------------------

    def _fail(self, err: BaseException, dropped: int, flushing: bool = False) -> None:
        """Records an I/O failure as `on_error` says: stored to raise, or warned about, counted and retried later.

        Write failures hold back writes (and drop their events) until the retry time; flush (upload)
        failures hold back only flushes, so an object store's buffer keeps everything meanwhile.
        """
        if self._on_error == "raise":
            if self.error is None:
                self.error = err
            return
        self.dropped_events += dropped
        now = time.monotonic()
        if not self._in_trouble:
            self._in_trouble = True
            self._backoff = RETRY_FIRST
            warnings.warn(f"writing event file {self.path} failed ({err!r}); on_error='warn': dropping what "
                          f"cannot be written and retrying with backoff", EventWriteWarning, stacklevel=2)
        else:
            self._backoff = min(self._backoff * 2, RETRY_MAX)
        if flushing:
            self._flush_failing = True
            self._flush_retry_at = now + self._backoff
        else:
            self._failing = True
            self._retry_at = now + self._backoff

    def _may_write(self) -> bool:
        """False while writes fail (on_error="warn") and the next retry is not due; reopens a broken file when due."""
        if self.file is not None and not self._failing:
            if not getattr(self.file, "lost", False):
                return True
            self._fail(FileNotFoundError(errno.ENOENT, "event file was deleted while being written", self.path), 0)
            return self._on_error == "warn" and self._reopen()
        if time.monotonic() < self._retry_at:
            return False
        if self.file is None or self.file.needs_reopen():
            return self._reopen()
        return True

    def _may_flush(self) -> bool:
        if self.error is not None or not self._may_write():
            return False
        return not self._flush_failing or time.monotonic() >= self._flush_retry_at

    def _recovered(self, flushed: bool) -> None:
        """A write (or a flush) worked: leave the failing state, and say so once everything works again."""
        if flushed:
            self._flush_failing = False
        else:
            self._failing = False
        if self._in_trouble and not self._failing and not self._flush_failing:
            self._in_trouble = False
            warnings.warn(f"writing event file {self.path} works again; {self.dropped_events} events were dropped "
                          f"in all", EventWriteWarning, stacklevel=2)
