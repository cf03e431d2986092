"""Events whose bytes are made off the caller's thread, and the encoder that makes them.

`EventFileWriter.write_deferred` queues a `Deferred` in order with the other events; an `Encoder`
handed to the writer (tensorboard.values.background's idle-priority thread, passed in by FileWriter)
runs it in the background, and the writer thread runs what the encoder has not finished when the
event is needed (see _deferred_writes).
"""
from __future__ import annotations

from typing import Any, Callable, Protocol

# Device memory that pending snapshots of one event file writer may hold; past it an add_* waits
# for the writer thread to catch up (as a synchronous logger would).
DEFAULT_MAX_PENDING_SNAPSHOT_BYTES = 256 << 20


class Deferred:
    """A queued event whose bytes are made off the caller's thread: `encode()` converts and encodes.

    The background encoder runs `encode` at idle CPU priority, skipping items another thread has
    started; a writer thread that cannot wait any longer runs it itself (`outcome()`), even if the
    encoder has started it: it never waits for an idle-priority thread.
    `encode` is a pure function of the snapshot, so whichever run finishes first gives the result.
    """

    __slots__ = ("encode", "nbytes", "tag", "queued_at", "wake", "_started", "_done", "_result", "_error")

    def __init__(self, encode: Callable[[], bytes], nbytes: int, tag: str):
        self.encode = encode
        self.nbytes = nbytes
        self.tag = tag
        self.queued_at = 0.0  # monotonic time the writer queued it
        self.wake: Any = None  # the writer's wake-up, set if encoding fails
        self._started = False  # a thread runs or ran `encode` (a race between two only repeats pure work)
        self._done = False
        self._result: bytes | None = None
        self._error: BaseException | None = None

    @property
    def done(self) -> bool:
        return self._done

    @property
    def running(self) -> bool:
        """Started by some thread and not finished yet."""
        return self._started and not self._done

    def compute(self) -> None:
        """Runs `encode` here unless a thread has already started it."""
        if not self._started:
            self._started = True
            self._run()

    def _run(self) -> None:
        """Runs `encode`; keeps the first result or error, then drops the snapshot."""
        result, error = None, None
        try:
            result = self.encode()
        except Exception as err:  # kept for the writer thread, which reports it naming the tag
            error = err
        if not self._done:  # a lost race only repeats pure work
            self._result, self._error = result, error
            self._done = True
            self.encode = _released  # frees the snapshot here: a device buffer's release costs ~25 us
        wake = self.wake
        if error is not None and wake is not None:  # so the error reaches the caller soon
            wake.set()

    def outcome(self) -> bytes:
        """The encoded event, computed here if it isn't done yet; raises what encoding raised."""
        if not self._done:
            self._started = True
            self._run()
        if self._error is not None:
            raise self._error
        return self._result  # type: ignore[return-value]

    def release(self) -> None:
        """Drops the snapshot and the result once written (the item may still sit in the encoder's queue)."""
        self.encode = _released
        self._result = None


def _released() -> bytes:
    raise RuntimeError("deferred event already encoded")


class DeferredValueError(ValueError):
    """A value logged asynchronously could not be converted or encoded; raised at the writer's next call."""


class Encoder(Protocol):
    """What an event file writer needs of a background encoder (tensorboard.values.background is one)."""

    def submit(self, item: Deferred) -> None:
        """Queues `item` for encoding in the background."""
        ...

    def running(self) -> bool:
        """Whether this process's encoder thread is alive (else the writer thread encodes at once)."""
        ...

    def stop(self, timeout: float | None = None) -> bool:
        """Ends the encoder after the item it is on (it starts again on the next submit)."""
        ...
