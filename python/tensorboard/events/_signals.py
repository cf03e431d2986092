"""SIGTERM and SIGHUP flush open event writers before the process dies.

Python's default action for both kills the process without running `atexit`, so events still
queued in memory would be lost when a job scheduler stops a training run (SIGTERM) or the
terminal or ssh session it runs in goes away (SIGHUP). When the first writer is created, and
only if

* it is created in the main thread (signal handlers can only be set there),
* the program has not set its own handler for the signal (the disposition is still SIG_DFL;
  `nohup` sets SIGHUP to SIG_IGN, which is kept), and
* the environment variable TENSORBOARD_SIGTERM_FLUSH is not "0" (it turns off both),

we install a handler that flushes every open writer (bounded by FLUSH_TIMEOUT seconds), then
restores the default action and re-sends the signal to the process, which dies exactly as it
would have (killed by signal 15 or 1; a shell reports exit status 143 or 129). A program that
sets its own handler later replaces ours; if that handler calls ours in turn (Lightning chains the
handler it found), ours only flushes and returns, leaving the program's own shutdown to run.
"""
from __future__ import annotations

import os
import signal
import threading
from typing import Callable

FLUSH_TIMEOUT = float(os.environ.get("TENSORBOARD_SIGTERM_FLUSH_TIMEOUT", "10"))

_flush_all: Callable[[float], bool] | None = None
_lock = threading.Lock()


def _signals_to_flush() -> list:
    return [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]


def install_sigterm_flush(flush_all: Callable[[float], bool]) -> bool:
    """Installs the flushing handler for SIGTERM and SIGHUP, each where the conditions above hold;
    True if ours is (now) SIGTERM's handler."""
    global _flush_all
    if os.environ.get("TENSORBOARD_SIGTERM_FLUSH", "1") == "0":
        return False
    if threading.current_thread() is not threading.main_thread():
        return installed()
    with _lock:
        for signum in _signals_to_flush():
            if signal.getsignal(signum) is not signal.SIG_DFL:  # ours already, or the program's choice
                continue
            _flush_all = flush_all
            try:
                signal.signal(signum, _handle_sigterm)
            except (ValueError, OSError):  # not the main interpreter, or signals unavailable
                return False
    return installed()


def installed(signum: int | None = None) -> bool:
    """True while our handler is the process's handler of `signum` (default: SIGTERM)."""
    if signum is None:
        signum = getattr(signal, "SIGTERM", None)
    return signum is not None and signal.getsignal(signum) is _handle_sigterm


def _handle_sigterm(signum: int, frame) -> None:
    """Flushes writers, then dies of the signal as if no handler had been installed; called through
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
