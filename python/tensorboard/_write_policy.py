"""The event file writer's files and I/O error policy (on_error): opening and rolling over files,
failing (stored to raise, or warned about, counted and retried with backoff) and recovering.

A mixin of EventFileWriter: these methods run in its writer thread (and its constructor).

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

from tensorboard.event_file_names import event_file_name, file_stamp, header_record
from tensorboard.storage import LocalAppendFile

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


class WritePolicy:
    """Files and failures of an EventFileWriter (see the module docstring)."""

    def _open_file(self, path: str) -> None:
        """Starts event file `path` with its file_version record, made visible at once."""
        self._storage.makedirs(self.logdir)
        new = self._storage.open_append(path)
        try:
            new.write(header_record(self._source_writer))
            new.flush(self._fsync)
        except BaseException:
            try:
                new.close()
                if isinstance(new, LocalAppendFile) and os.path.getsize(new.path) == 0:
                    os.unlink(new.path)  # ours (O_EXCL) and empty: leave no 0-byte file behind
            except Exception:
                pass
            raise
        if isinstance(new, LocalAppendFile):
            new = _Replayable(new)
        self._file, self.path = new, path
        self._file_bytes, self._file_events = 0, 0  # _file_events: written since the last good flush
        self.paths.append(path)

    def _write_replay(self) -> bool:
        """Writes to the new current file what a deleted one took with it; if that fails, counts it dropped."""
        replay, self._replay = getattr(self, "_replay", b""), b""
        if not replay:
            return True
        try:
            self._file.write(replay)
        except Exception as err:
            self._fail(err, count_records(replay))
            return False
        self._file_bytes += len(replay)
        self._file_events += count_records(replay)
        return True

    def _next_path(self) -> str:
        """A new file name that sorts after every file this writer started (readers go in name order).

        Never stamped ahead of the clock: files of one second sort by the process's file counter, and
        a stamp in the future would sort this run's next writer (a reopen, a purge_step restart) first.
        """
        stamp = max(int(time.time()), max(map(file_stamp, self.paths), default=0))
        return self._storage.join(self.logdir, event_file_name(self._suffix, now=stamp))

    def _file_dirty(self) -> bool:
        return bool(getattr(self._file, "_dirty", False))

    def _fail(self, err: BaseException, dropped: int, flushing: bool = False) -> None:
        """Records an I/O failure as `on_error` says: stored to raise, or warned about, counted and retried later.

        Write failures hold back writes (and drop their events) until the retry time; flush (upload)
        failures hold back only flushes, so an object store's buffer keeps everything meanwhile.
        """
        if self._on_error == "raise":
            if getattr(self, "_error", None) is None:
                self._error = err
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
        if self._file is not None and not self._failing:
            if not getattr(self._file, "lost", False):
                return True
            self._fail(FileNotFoundError(errno.ENOENT, "event file was deleted while being written", self.path), 0)
            return self._on_error == "warn" and self._reopen()
        if time.monotonic() < self._retry_at:
            return False
        if self._file is None or self._file.needs_reopen():
            return self._reopen()
        return True

    def _reopen(self) -> bool:
        """Starts a new file in place of the current one (gone, damaged or never opened), first in it what a
        deleted file took with it since it was last seen (`_replay`, kept until a file takes it); False if
        it failed (counted as a failure)."""
        old, self._file = self._file, None
        if old is not None:
            if isinstance(old, _Replayable):
                self._replay = getattr(self, "_replay", b"") + old.take_unconfirmed()
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

    def _last_attempt(self) -> None:
        """At close() (on_error="warn"), after the writer thread stopped: one more try, whatever the backoff,
        to start a file for what a deleted one took with it; what still cannot be written is counted."""
        if self._on_error != "warn" or self._error is not None:
            return
        current = self._file
        if getattr(self, "_replay", b"") or (isinstance(current, _Replayable) and current.deleted()):
            if self._reopen():
                self._recovered(flushed=True)
                self._recovered(flushed=False)
        replay, self._replay = getattr(self, "_replay", b""), b""
        self.dropped_events += count_records(replay)

    def _may_flush(self) -> bool:
        if self._error is not None or not self._may_write():
            return False
        return not self._flush_failing or time.monotonic() >= self._flush_retry_at

    def _flush_file(self, fsync: bool) -> None:
        if not self._may_flush():
            return
        try:
            self._file.flush(fsync)
        except BaseException as err:
            self._fail(err, 0, flushing=True)
            if self._file.needs_reopen() and self._on_error == "warn":  # deleted: start anew, with its recent events
                if self._reopen():
                    self._recovered(flushed=True)
                    self._recovered(flushed=False)
                else:
                    self._failing, self._retry_at = True, self._flush_retry_at
        else:
            self._file_events = 0  # all uploaded: a later failed close loses only what comes after
            self._recovered(flushed=True)

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

    def _roll_over(self) -> None:
        """Closes (uploads) the full current file and starts the next one."""
        old = self._file
        if isinstance(old, _Replayable):
            self._replay = getattr(self, "_replay", b"") + old.take_unconfirmed()
        try:
            old.close()
        except Exception as err:
            self._file = None
            self._fail(err, self._file_events)
            if self._on_error == "raise":
                return
        try:
            self._open_file(self._next_path())
        except Exception as err:
            self._file = None
            self._fail(err, 0)
        else:
            self._write_replay()
