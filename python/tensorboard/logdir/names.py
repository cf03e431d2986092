"""The one rule for run names: a run is the directory of its event files relative to the logdir,
its parts joined by "/", and the logdir itself is the run "." (as upstream TensorBoard names it in
the UI), a directory name that is not UTF-8 escaped so that every output can hold it. Every front door
names runs this way; only tbparse's own `dir_name` column writes "" for
the top, because tbparse defines it so."""
from __future__ import annotations

import posixpath

TOP_RUN = "."


def run_name(parts: tuple[str, ...] | list[str]) -> str:
    """The run of a directory given by its path parts below the logdir (none: the logdir itself). A part whose
    bytes are not UTF-8 (Python holds them as surrogate escapes, which no text output can encode) is shown with
    those bytes escaped: `bad\\xffname`."""
    name = "/".join(parts) or TOP_RUN
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return name


def run_parts(name: str) -> tuple[str, ...]:
    """The directory parts of run `name` below the logdir (none for the top run)."""
    return () if name == TOP_RUN else tuple(name.split("/"))


def prefixed(prefix: str | None, name: str) -> str:
    """`name` below a --logdir_spec prefix, joined as upstream's multiplexer joins them (the top run
    of a prefixed logdir is `prefix/.`)."""
    return posixpath.join(prefix, name) if prefix else name


def tbparse_dir_name(name: str) -> str:
    """tbparse's `dir_name` column for run `name`: "" for the top run."""
    return "" if name == TOP_RUN else name
