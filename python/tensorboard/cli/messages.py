"""What the subcommands print besides their results: a warning is one line a script can parse."""
from __future__ import annotations

import contextlib
import sys
import warnings
from typing import Iterator


@contextlib.contextmanager
def one_line_warnings(prog: str) -> Iterator[None]:
    """Within the block, each warning (a damaged value, a truncated file) is printed on stderr as one line,
    `PROG: warning: MESSAGE`, instead of Python's two lines with a source line of ours."""
    original = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        print(f"{prog}: warning: {message}", file=file or sys.stderr, flush=True)

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = original
