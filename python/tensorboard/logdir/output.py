"""The output files of the front doors (`tensorboard export` tables, datasets and pages, `tensorboard
reduce` runs): an existing file is refused unless forced, and a file or directory is written beside
its place and renamed in when complete, so a reader never sees half of one and a failed write leaves
nothing behind."""
from __future__ import annotations

import os
import shutil
import tempfile
from typing import Any, Callable, TypeVar

from tensorboard.events.storage import DIRECTORY_MODE, FILE_MODE, masked_mode

T = TypeVar("T")


def check_out(out: str, force: bool) -> None:
    """Raises FileExistsError for an existing `out` unless `force` (a directory is refused even then)."""
    if os.path.isdir(out):
        raise IsADirectoryError(f"--out {out!r} is a directory")
    if os.path.lexists(out) and not force:
        raise FileExistsError(f"--out {out!r} exists; pass --force to replace it")


def write_atomically(out: str, force: bool, write: Callable[[str], None]) -> None:
    """`write(tmp)` fills a temporary file beside `out`, which is then renamed into place."""
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(out)), prefix=".tmp-",
                               suffix="-" + os.path.basename(out))
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, masked_mode(FILE_MODE))
        _move_into_place(tmp, out, force)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _move_into_place(tmp: str, out: str, force: bool) -> None:
    """Renames `tmp` to `out`; without `force`, never over a file that appeared meanwhile (a hard link
    fails if `out` exists; where links are unsupported, a last check before the rename)."""
    if force:
        os.replace(tmp, out)
        return
    try:
        os.link(tmp, out)
    except FileExistsError:
        raise FileExistsError(f"--out {out!r} exists; pass --force to replace it") from None
    except OSError:
        check_out(out, force)
        os.replace(tmp, out)
    else:
        os.unlink(tmp)


def contained_path(out: str, name: str) -> str:
    """`out` joined with the '/'-separated parts of `name` (a run or group name from file content or directory
    names), never outside `out`: empty parts are dropped, and '.' and '..' parts are percent-encoded ('%2E%2E'),
    as `export --partition` encodes run names."""
    parts = [part if part.strip(".") else part.replace(".", "%2E") for part in name.split("/") if part]
    path = os.path.join(out, *parts)
    if os.path.commonpath([os.path.abspath(out), os.path.abspath(path)]) != os.path.abspath(out):
        raise ValueError(f"{name!r} names a place outside {out!r}")  # unreachable by the rule above; a guard
    return path


def write_directory_atomically(out: str, fill: Callable[[str], T]) -> T:
    """`fill(tmp)` writes a directory beside `out`, which then replaces `out` (an old `out` is moved
    aside first, then removed); a failed fill leaves nothing behind. Returns what `fill` returned."""
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=parent, prefix=".tmp-", suffix="-" + os.path.basename(os.path.abspath(out)))
    try:
        result = fill(tmp)
        os.chmod(tmp, masked_mode(DIRECTORY_MODE))
        _replace_dir(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return result


def _replace_dir(tmp: str, out: str) -> None:
    if os.path.isdir(out):
        old = tempfile.mkdtemp(dir=os.path.dirname(os.path.abspath(out)), prefix=".old-")
        os.rename(out, os.path.join(old, "previous"))
        os.rename(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.rename(tmp, out)


def plain_cell(value: Any) -> Any:
    """A cell JSON, CSV and Parquet can hold: arrays become (nested) lists."""
    tolist = getattr(value, "tolist", None)
    return tolist() if tolist is not None and not isinstance(value, (str, bytes)) else value
