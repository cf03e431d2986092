"""Moving runs out of a logdir and back (`tensorboard runs archive / restore`) and deleting them
(`runs rm`).

Where archived runs go: `<logdir>.archived/<run>`, a sibling of the logdir. Every server walks the
whole tree below its logdir, hidden directories included, and takes any file whose name holds
"tfevents" as an event file: upstream's native data server (`DiskLogdir::discover`, walkdir over
everything), upstream's Python loader (`io_wrapper.GetLogdirSubdirectories`, a walk of every
directory) and ours (`logdir.discovery`). So no name inside the logdir hides a run from all three;
a directory beside it does, and a rename to it on the same file system is atomic. On an object store
the archive is the sibling prefix (`s3://bucket/logs` -> `s3://bucket/logs.archived`).

A local move is one rename per run (atomic). A removal first renames the run into the archive's
`.deleting/` directory (so every server drops it at once), then deletes the files. On an object store,
which has no rename, a move copies every object of the run and then deletes the originals: an
interrupted move leaves the run in both places, never in neither.
"""
from __future__ import annotations

import errno
import os
import shutil
import uuid
from dataclasses import dataclass

from tensorboard.logdir.discovery import Listing, directory_parts
from tensorboard.logdir.names import TOP_RUN, run_parts
from tensorboard.logdir.run_table import nested_runs, run_directories

ARCHIVE_SUFFIX = ".archived"
DELETING = ".deleting"


@dataclass(frozen=True)
class Move:
    """One run moved: its name, its directory now and where it goes (local paths or URLs)."""

    run: str
    source: str
    target: str


def archive_root(listing: Listing) -> str:
    """The archive of `listing`'s logdir: its sibling `<logdir>.archived` (an absolute path locally)."""
    if listing.files is not None:
        root = listing.root.rstrip("/")
        if "/" not in root.split("://", 1)[-1]:
            raise ValueError(f"{listing.root!r}: the runs of a bucket's root can't be archived beside it "
                             "(serve a prefix, s3://bucket/logs)")
        return root + ARCHIVE_SUFFIX
    root = os.path.abspath(listing.root)
    if os.path.dirname(root) == root:
        raise ValueError(f"{listing.root!r}: the runs of a file system's root can't be archived beside it")
    return root + ARCHIVE_SUFFIX


def _target(listing: Listing, target_root: str, directory: str) -> str:
    """Where `directory` (a run's, below the logdir) goes below `target_root`, by the same relative path."""
    parts = directory_parts(listing.root, directory)
    if listing.files is not None:
        return "/".join([target_root.rstrip("/"), *parts])
    return os.path.join(target_root, *parts)


def plan_moves(listing: Listing, runs: list[str], target_root: str) -> list[Move]:
    """The moves taking `runs` of `listing` below `target_root`, each by its path below the logdir.

    A run whose directory holds other runs moves them too: they must be among `runs` (they are then
    not moved again). Raises ValueError for the logdir's own run ".", for a run holding runs not
    chosen, and for a target that exists.
    """
    if TOP_RUN in runs:
        raise ValueError("the run '.' is the logdir itself; it can't be moved out of the logdir")
    directories = run_directories(listing)
    sep = "/" if listing.files is not None else os.sep
    nested = nested_runs(directories, sep)
    names = {directory: run for run, directory in directories.items()}
    chosen = {directories[run] for run in runs}
    moves = []
    for run in runs:
        directory = directories[run]
        strangers = [names[inner] for inner in nested.get(directory, []) if inner not in chosen]
        if strangers:
            raise ValueError(f"run {run!r} holds other runs ({', '.join(sorted(strangers)[:5])}); choose them too")
        if any(parent in chosen for parent in _parents(directory, listing.root, sep)):
            continue  # moved with the run that holds it
        target = _target(listing, target_root, directory)
        if _exists(listing, target):
            raise ValueError(f"run {run!r}: {target} exists already; move or remove it first")
        moves.append(Move(run, directory, target))
    return moves


def _parents(directory: str, root: str, sep: str):
    """The directories above `directory`, below the logdir `root`."""
    root = root.rstrip(sep)
    current = directory.rstrip(sep)
    while True:
        head = current.rsplit(sep, 1)[0] if sep in current else ""
        if not head or head == current or len(head) <= len(root):
            return
        yield head
        current = head


def _exists(listing: Listing, path: str) -> bool:
    if listing.files is None:
        return os.path.lexists(path)
    return bool(listing.storage.fs.exists(listing.storage.strip_protocol(path)))


def move_run(listing: Listing, move: Move) -> None:
    """Carries out one move: a rename on a local disk; copy, then delete, on an object store."""
    if listing.files is None:
        os.makedirs(os.path.dirname(move.target), exist_ok=True)
        try:
            os.rename(move.source, move.target)
        except OSError as err:
            if err.errno == errno.EXDEV:  # another file system, where no rename is atomic
                raise OSError(f"{move.source} -> {move.target}: not on one file system; an atomic move "
                              "needs the archive beside the logdir on the same disk") from None
            raise
        prune_empty(os.path.dirname(move.source), _top(move.source, move.run))
        return
    fs, strip = listing.storage.fs, listing.storage.strip_protocol
    source, target = strip(move.source).rstrip("/"), strip(move.target).rstrip("/")
    objects = sorted(fs.find(source))
    fs.copy(objects, [target + path[len(source):] for path in objects])
    fs.rm(objects)


def trash_root(listing: Listing) -> str:
    """Where a local removal puts runs before deleting them: a fresh directory in the archive's `.deleting/`."""
    return os.path.join(archive_root(listing), DELETING, uuid.uuid4().hex)


def remove_run(listing: Listing, move: Move) -> None:
    """Deletes one run (`move`: from `plan_moves(listing, runs, trash_root(listing))`). Locally the run
    first leaves the logdir by one rename to `move.target`, then its files are deleted; on an object
    store its objects are deleted where they are."""
    if listing.files is None:
        doomed = move.target
        os.makedirs(os.path.dirname(doomed), exist_ok=True)
        try:
            os.rename(move.source, doomed)
        except OSError as err:
            if err.errno != errno.EXDEV:
                raise
            doomed = move.source  # the archive is on another file system: deleted in place
        shutil.rmtree(doomed)
        prune_empty(os.path.dirname(move.source), _top(move.source, move.run))
        prune_empty(os.path.dirname(move.target), os.path.dirname(archive_root(listing)))
        return
    fs = listing.storage.fs
    objects = sorted(fs.find(listing.storage.strip_protocol(move.source).rstrip("/")))
    if objects:
        fs.rm(objects)


def _top(directory: str, run: str) -> str:
    """The logdir (or archive) that holds run `run` at `directory`."""
    for _ in run_parts(run):
        directory = os.path.dirname(directory)
    return directory


def prune_empty(directory: str, root: str) -> None:
    """Removes `directory` and its parents while they are empty, stopping below `root` (kept)."""
    root = os.path.abspath(root)
    current = os.path.abspath(directory)
    while current != root and current.startswith(root.rstrip(os.sep) + os.sep):
        try:
            os.rmdir(current)
        except OSError:
            return
        current = os.path.dirname(current)
