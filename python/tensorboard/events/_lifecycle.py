"""Process lifecycle of event file writers: flush what is open at exit and on SIGTERM, and after
fork() make the parent's writers raise in the child instead of silently losing events. The hooks
themselves are tensorboard.process's; the writers' callbacks are registered there."""
from __future__ import annotations

import os
import threading
import time
import weakref

from tensorboard import process
from tensorboard.events.deferred_event import Encoder

_open_writers: "weakref.WeakSet" = weakref.WeakSet()  # open event files: flushed at exit and on SIGTERM
_encoders: set = set()  # the background encoders handed to writers of this process


class WriterThread(threading.Thread):
    """An event file writer's named daemon thread. `stop()` closes its writer (what is queued is
    written, the thread ends), as upstream's writer thread stops, so leak guards (Lightning's test
    fixture) can end it."""

    def __init__(self, writer, name: str):
        super().__init__(name=name, daemon=True)
        self._writer = writer

    def run(self) -> None:
        self._writer._run()

    def stop(self) -> None:
        if self is not threading.current_thread():
            self._writer.close()
            self.join()


ENCODER_CLOSE_WAIT = 0.5  # close() waits this long at most for the encoder to end (it is idle: at once)


def writer_closed() -> None:
    """After a writer's close(): with no writer left open the background encoders have no work, so they
    end (waiting at most ENCODER_CLOSE_WAIT for an item one is on; it ends after that item)."""
    if not _open_writers:
        for encoder in list(_encoders):
            encoder.stop(ENCODER_CLOSE_WAIT)


def track(writer, encoder: Encoder | None) -> None:
    """Counts `writer` among the open writers that exit and SIGTERM flush; `encoder` is the background
    encoder it hands deferred events to (stopped once no writer is open). A multiprocessing child's
    exit flushes them too (process.run_at_multiprocessing_exit)."""
    _open_writers.add(writer)
    if encoder is not None:
        _encoders.add(encoder)
    process.run_at_multiprocessing_exit()


def flush_open_writers(timeout: float = 10.0) -> bool:
    """Flushes every open writer of this process, giving up after `timeout` seconds; never raises.

    Args:
        timeout: Seconds to give up after, for all writers together.

    Returns:
        True if every writer finished.
    """
    deadline = time.monotonic() + timeout
    ok = True
    for writer in list(_open_writers):
        ok = writer._flush_for_exit(deadline) and ok
    return ok


def _close_all_at_exit(deadline: float) -> None:
    """Flushes and closes writers the program left open, so queued events are not lost at exit
    (process.FLUSH: before the background encoder stops).

    Bounded: a writer whose storage hangs is given up at `deadline` (process.EXIT_TIMEOUT from the
    start of exit, all writers together), so the interpreter always exits.
    """
    for writer in list(_open_writers):
        if writer._pid != os.getpid():
            continue
        if writer._flush_for_exit(deadline) or writer._error is not None:
            try:
                writer.close()
            except Exception:
                pass


def _mark_inherited_writers() -> None:
    """In a forked child: the parent's writers have no thread here; using one raises instead of losing events."""
    for writer in list(_open_writers):
        if writer._error is None:
            writer._error = RuntimeError(
                f"this event file writer belongs to process {writer._pid}; after fork() create a new one "
                f"(FileWriter and SummaryWriter do this for you)")
        _open_writers.discard(writer)


process.at_exit(_close_all_at_exit, process.FLUSH)
process.after_fork_in_child(_mark_inherited_writers)
