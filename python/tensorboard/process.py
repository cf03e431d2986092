"""The one owner of the logger's process hooks: what runs in a child after fork() and at interpreter exit.

Modules register their fork and exit callbacks here instead of with `os` and `atexit` directly, so
their order is decided in one place. In a forked child: the module callbacks, in the order they were
registered (each module registers when it is imported, so lower layers first), then each tracked
object's callback, in the order the objects were created. At exit: every SAMPLE callback (samplers stop
adding), then every FLUSH callback (writers write what they hold), then every STOP callback (helper
threads end), all sharing one deadline.
Imports nothing of the package, so every layer may use it.
"""
from __future__ import annotations

import atexit
import os
import sys
import time
import weakref
from typing import Any, Callable, TypeVar

T = TypeVar("T")

# How long the exit callbacks may take together, in seconds: a writer whose storage hangs is given up.
EXIT_TIMEOUT = float(os.environ.get("TENSORBOARD_EXIT_FLUSH_TIMEOUT", "60"))
SAMPLE = -1  # exit stage of samplers (system metrics): they stop adding before the writers write
FLUSH = 0  # exit stage of the writers: what they hold is written
STOP = 1  # exit stage of helper threads: they end once the writers no longer need them

_in_child: list[Callable[[], None]] = []
_tracked: "weakref.WeakKeyDictionary[Any, Callable[[Any], None]]" = weakref.WeakKeyDictionary()
_at_exit: list[tuple[int, Callable[[float], None]]] = []
_finalizer_pid: int | None = None  # the process whose multiprocessing exit finalizers hold run_exit_callbacks


def after_fork_in_child(callback: Callable[[], None]) -> None:
    """Runs `callback()` in every child forked from now on (module state: fresh locks, forgotten threads)."""
    _in_child.append(callback)


def track(obj: T, in_child: Callable[[T], None]) -> None:
    """Holds `obj` weakly; in a child forked while it lives, `in_child(obj)` runs (after the module callbacks)."""
    _tracked[obj] = in_child


def at_exit(callback: Callable[[float], None], stage: int = FLUSH) -> None:
    """Runs `callback(deadline)` at exit, in `stage` order (SAMPLE, FLUSH, then STOP); `deadline` is the
    time.monotonic() by which all exit callbacks should be done (EXIT_TIMEOUT from the start)."""
    _at_exit.append((stage, callback))
    _at_exit.sort(key=lambda entry: entry[0])  # stable: registration order within a stage


def run_exit_callbacks() -> None:
    """Runs the exit callbacks (atexit and multiprocessing's exit finalizer may both call this: each
    callback is idempotent). An error in one is printed and the others still run, as atexit does."""
    deadline = time.monotonic() + EXIT_TIMEOUT
    for _, callback in list(_at_exit):
        _run(callback, deadline)


def run_at_multiprocessing_exit() -> None:
    """Also runs the exit callbacks from multiprocessing's exit finalizers, once per process.

    A multiprocessing child started by fork (Linux's default; forkserver's children too) ends with
    os._exit(), which skips atexit, but runs multiprocessing's exit finalizers first. Called when a
    writer opens: only where multiprocessing is loaded, after the child's start has cleared the
    finalizers it inherited.
    """
    global _finalizer_pid
    mp_util = sys.modules.get("multiprocessing.util")
    if mp_util is not None and _finalizer_pid != os.getpid():
        _finalizer_pid = os.getpid()
        mp_util.Finalize(None, run_exit_callbacks, exitpriority=10)


def _in_forked_child() -> None:
    for callback in list(_in_child):
        _run(callback)
    for obj, callback in list(_tracked.items()):
        _run(callback, obj)


def _run(callback: Callable[..., None], *args: Any) -> None:
    """Calls `callback`; an error is printed, not raised, so the callbacks after it still run."""
    try:
        callback(*args)
    except Exception:
        import traceback

        print(f"Exception ignored in {callback!r}:", file=sys.stderr)
        traceback.print_exc()


atexit.register(run_exit_callbacks)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_in_forked_child)
