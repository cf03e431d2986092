"""The writer thread's wake-up signal, safe to raise from a signal handler.

`threading.Event.set()` takes a lock; a SIGTERM handler that interrupts the main thread while
it is inside `set()` and then calls `set()` again waits for itself forever. `queue.SimpleQueue`
is reentrant (its `put` may interrupt another `put` in the same thread), so a wake-up here is a
token put on one; the pending flag only spares producers a put per event.
"""
from __future__ import annotations

import queue
import threading


class Wakeup:
    """set / is_set / wait / clear, as threading.Event's for one waiting thread; `force` always posts."""

    __slots__ = ("_tokens", "_pending")

    def __init__(self) -> None:
        self._tokens: queue.SimpleQueue = queue.SimpleQueue()
        self._pending = False

    def set(self) -> None:
        """Wakes the waiting thread unless a wake-up is already pending."""
        if not self._pending:
            self._pending = True
            self._tokens.put(None)

    def force(self) -> None:
        """Wakes the waiting thread even if the flag says one is pending: for a signal handler, which
        may have interrupted a `set` between its flag and its token."""
        self._pending = True
        self._tokens.put(None)

    def is_set(self) -> bool:
        return self._pending

    def wait(self, timeout: float) -> None:
        """Returns at the next wake-up, or after `timeout` seconds (any length: flush_secs may be inf)."""
        try:
            self._tokens.get(timeout=min(timeout, threading.TIMEOUT_MAX))
        except queue.Empty:
            pass

    def clear(self) -> None:
        """Called by the waiting thread before it looks at its work: later sets wake it again. Tokens
        go first, then the flag: a set() in between then either saw the flag up (and its work is
        already queued for this look) or posts a token that survives."""
        while True:
            try:
                self._tokens.get_nowait()
            except queue.Empty:
                break
        self._pending = False
