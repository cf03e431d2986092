"""Process lifecycle of event file writers: flush what is open at exit and on SIGTERM, and after
fork() make the parent's writers raise in the child instead of silently losing events."""
from __future__ import annotations

import atexit
import os
import sys
import threading
import time
import weakref

from tensorboard.values import background

_open_writers: "weakref.WeakSet" = weakref.WeakSet()


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
    """After a writer's close(): with no writer left open the background encoder has no work, so it ends
    (waiting at most ENCODER_CLOSE_WAIT for an item it is on; it ends after that item)."""
    if not _open_writers:
        background.stop(ENCODER_CLOSE_WAIT)


_finalizer_pid: int | None = None  # the process whose multiprocessing exit finalizers hold our exit flush


def track(writer) -> None:
    """Counts `writer` among the open writers that exit and SIGTERM flush.

    A multiprocessing child started by fork (Linux's default; forkserver's children too) ends
    with os._exit(), which skips atexit, but runs multiprocessing's exit finalizers first: in a
    process where multiprocessing is loaded, the exit flush is registered there as well, once
    per process, after the child's start has cleared the finalizers it inherited.
    """
    global _finalizer_pid
    _open_writers.add(writer)
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None and _finalizer_pid != os.getpid():
        _finalizer_pid = os.getpid()
        mp_util.Finalize(None, _close_all_at_exit, exitpriority=10)


def flush_open_writers(timeout: float = 10.0) -> bool:
    """Flushes every open writer of this process, giving up after `timeout` seconds; True if all finished."""
    deadline = time.monotonic() + timeout
    ok = True
    for writer in list(_open_writers):
        ok = writer._flush_for_exit(deadline) and ok
    return ok


EXIT_FLUSH_TIMEOUT = float(os.environ.get("TENSORBOARD_EXIT_FLUSH_TIMEOUT", "60"))
# How long exit waits for the background encoder to finish the item it is on. Every item is also
# in its writer's queue, so nothing is lost past it; it only keeps the thread out of C++ frames.
ENCODER_EXIT_WAIT = 5.0


def _close_all_at_exit() -> None:
    """Flushes and closes writers the program left open, so queued events are not lost at exit,
    then stops the background encoder before the interpreter finalizes (see background.shutdown).

    Bounded: a writer whose storage hangs is given up after EXIT_FLUSH_TIMEOUT seconds (all writers
    together), and the encoder after ENCODER_EXIT_WAIT more at most, so the interpreter always exits.
    """
    deadline = time.monotonic() + EXIT_FLUSH_TIMEOUT
    for writer in list(_open_writers):
        if writer._pid != os.getpid():
            continue
        if writer._flush_for_exit(deadline) or writer._error is not None:
            try:
                writer.close()
            except Exception:
                pass
    background.shutdown(min(ENCODER_EXIT_WAIT, deadline - time.monotonic()))


def _mark_inherited_writers() -> None:
    """In a forked child: the parent's writers have no thread here; using one raises instead of losing events."""
    for writer in list(_open_writers):
        if writer._error is None:
            writer._error = RuntimeError(
                f"this event file writer belongs to process {writer._pid}; after fork() create a new one "
                f"(FileWriter and SummaryWriter do this for you)")
        _open_writers.discard(writer)


atexit.register(_close_all_at_exit)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_mark_inherited_writers)
