"""The page cache around a timed run: every measured path starts with the logdir in memory, and a row
says how many file pages the kernel had to read back while it was timed.

Machines that reclaim idle memory proactively (Linux DAMON's reclaim, on this project's bench hosts, pages
out what went unread for about a minute) drop parts of a logdir between repetitions. Whichever path came
after a pause then timed a disk read: a first load of 10,000 runs took a minute once instead of
2.5 seconds. Reading the logdir just before each timed start puts every path on the same footing.
"""
from __future__ import annotations

import os

_BLOCK = 1 << 20


def warm(*roots: str) -> int:
    """Reads every file below each of `roots` (a file itself, or a directory, links followed) once, so that
    the run timed next finds them in the page cache; the bytes read."""
    buffer = bytearray(_BLOCK)
    total = 0
    for root in roots:
        paths = [root] if os.path.isfile(root) else (
            os.path.join(directory, name) for directory, _, names in os.walk(root, followlinks=True) for name in names)
        for path in paths:
            total += _read_through(path, buffer)
    return total


def _read_through(path: str, buffer: bytearray) -> int:
    try:
        with open(path, "rb", buffering=0) as handle:
            total = 0
            while (read := handle.readinto(buffer)) > 0:
                total += read
            return total
    except OSError:  # gone meanwhile, or not readable: nothing of it will be timed either
        return 0


def refaults() -> int | None:
    """File pages read back after the kernel dropped them, since boot (Linux /proc/vmstat's
    workingset_refault_file; None elsewhere): its growth over a timed run is the run's cold reads."""
    try:
        with open("/proc/vmstat") as stats:
            for line in stats:
                name, _, value = line.partition(" ")
                if name in ("workingset_refault_file", "workingset_refault"):
                    return int(value)
    except OSError:
        pass
    return None


class ColdReads:
    """Counts the file pages read back into the page cache from its making to `pages()`, by every process
    (a bound on the timed run's own)."""

    def __init__(self) -> None:
        self._at = refaults()

    def pages(self) -> int | None:
        now = refaults()
        return None if now is None or self._at is None else now - self._at
