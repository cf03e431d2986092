"""The event file writer's files and I/O error policy (on_error): opening and rolling over files,
failing (stored to raise, or warned about, counted and retried with backoff) and recovering.

A mixin of EventFileWriter: these methods run in its writer thread (and its constructor).
"""
from __future__ import annotations

import time
import warnings

from tensorboard.event_file_names import event_file_name, file_stamp, header_record

ON_ERROR_CHOICES = ("raise", "warn")
RETRY_FIRST, RETRY_MAX = 1.0, 60.0  # seconds between write attempts while failing (on_error="warn")


class EventWriteWarning(RuntimeWarning):
    """An event file could not be written and on_error="warn": events are being dropped (and counted)."""


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
            except Exception:
                pass
            raise
        self._file, self.path = new, path
        self._file_bytes, self._file_events = 0, 0
        self.paths.append(path)

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
            return True
        if time.monotonic() < self._retry_at:
            return False
        if self._file is None or self._file.needs_reopen():
            old = self._file
            self._file = None
            if old is not None:
                try:
                    old.close()
                except Exception:
                    pass
            try:
                self._open_file(self._next_path())
            except Exception as err:
                self._fail(err, 0)
                return False
        return True

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
            if self._file.needs_reopen() and self._on_error == "warn":  # deleted: start anew at the next write
                self._failing, self._retry_at = True, self._flush_retry_at
        else:
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
