"""SIGTERM flushes open event writers before the process dies.

Python's default SIGTERM action kills the process without running `atexit`, so events still
queued in memory would be lost when a job scheduler stops a training run. When the first
writer is created, and only if

* it is created in the main thread (signal handlers can only be set there),
* the program has not set its own SIGTERM handler (the disposition is still SIG_DFL), and
* the environment variable TENSORBOARD_SIGTERM_FLUSH is not "0",

we install a handler that flushes every open writer (bounded by FLUSH_TIMEOUT seconds), then
restores the default action and re-sends SIGTERM to the process, which dies exactly as it would
have (killed by signal 15; a shell reports exit status 143). A program that sets its own
handler later replaces ours; if that handler calls ours in turn (Lightning chains the handler it
found), ours only flushes and returns, leaving the program's own shutdown to run.
"""
from __future__ import annotations

import os
import signal
import threading
from typing import Callable

FLUSH_TIMEOUT = float(os.environ.get("TENSORBOARD_SIGTERM_FLUSH_TIMEOUT", "10"))

_flush_all: Callable[[float], bool] | None = None
_lock = threading.Lock()


def install_sigterm_flush(flush_all: Callable[[float], bool]) -> bool:
    """Installs the flushing SIGTERM handler if the conditions above hold; True if ours is (now) in place."""
    global _flush_all
    if not hasattr(signal, "SIGTERM") or os.environ.get("TENSORBOARD_SIGTERM_FLUSH", "1") == "0":
        return False
    current = signal.getsignal(signal.SIGTERM)
    if current is _handle_sigterm:
        return True
    if current is not signal.SIG_DFL or threading.current_thread() is not threading.main_thread():
        return False
    with _lock:
        _flush_all = flush_all
        try:
            signal.signal(signal.SIGTERM, _handle_sigterm)
        except (ValueError, OSError):  # not the main interpreter, or signals unavailable
            return False
    return True


def installed() -> bool:
    """True while our handler is the process's SIGTERM handler."""
    return signal.getsignal(signal.SIGTERM) is _handle_sigterm


def _handle_sigterm(signum: int, frame) -> None:
    """Flushes writers, then dies of SIGTERM as if no handler had been installed; called through
    a later handler's chain, it only flushes (upstream has no handler there to kill the process)."""
    chained = signal.getsignal(signum) is not _handle_sigterm  # then the program's own handler decides
    try:
        if _flush_all is not None:
            _flush_all(FLUSH_TIMEOUT)
    finally:
        if not chained:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            os._exit(128 + signum)  # only reached if the re-sent signal was somehow not delivered
