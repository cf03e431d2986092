"""Export's progress on stderr: on a terminal, one bar redrawn in place; elsewhere (a log, a pipe) a
line at most once a second, and nothing for reads shorter than a second."""
from __future__ import annotations

import sys
import time
from typing import TextIO

_WIDTH = 30


class Progress:
    """Call with (files done, files in all, path) after each file; `close()` ends the bar's line."""

    def __init__(self, prefix: str = "tensorboard export", stream: TextIO | None = None, quiet: bool = False):
        self.prefix, self.stream, self.quiet = prefix, stream or sys.stderr, quiet
        isatty = getattr(self.stream, "isatty", None)
        self.bar = bool(isatty and isatty())
        self.started = self.last = time.monotonic()
        self.drawn = False

    def __call__(self, done: int, total: int, path: str) -> None:
        if self.quiet:
            return
        now = time.monotonic()
        if self.bar:
            if now - self.last < 0.1 and done != total:
                return
            self.last = now
            filled = _WIDTH * done // total if total else _WIDTH
            self.stream.write(f"\r{self.prefix}: [{'#' * filled}{'.' * (_WIDTH - filled)}] {done}/{total} files "
                              f"{now - self.started:.1f} s")
            self.stream.flush()
            self.drawn = True
        elif now - self.last > 1.0 or (done == total and now - self.started > 1.0):
            self.last = now
            print(f"{self.prefix}: read {done}/{total} files ({now - self.started:.1f} s) {path}", file=self.stream)

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()
            self.drawn = False
