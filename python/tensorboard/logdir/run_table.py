"""`tensorboard runs ls`'s rows: per run its hyperparameters (with their sources), first and last step,
last write time, size on disk, whether it is still being written, and chosen metrics.

"Still being written" (`active`): the run's newest event file was modified less than `active_within`
seconds ago (default ACTIVE_WITHIN, 120 s: a writer flushes every few seconds, upstream's
SummaryWriter every 120 s at most). On an object store, whose listing holds no modification times
here, the newest event's wall time stands for the file's. No lock file is written by any writer
(ours, upstream's, tensorboardX, torch), so the time is the one signal every writer gives."""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from tensorboard.logdir.discovery import Listing
from tensorboard.logdir.hparams_sources import HParam
from tensorboard.logdir.metrics import MetricChoice, metric_values, run_extent

ACTIVE_WITHIN = 120.0


@dataclass
class RunRow:
    """One run as `runs ls` shows it; times are seconds since the epoch, sizes bytes."""

    run: str
    hparams: dict[str, HParam]
    first_step: int | None
    last_step: int | None
    last_write: float | None
    size: int
    active: bool
    metrics: dict[str, float | None] = field(default_factory=dict)


def run_directories(listing: Listing) -> dict[str, str]:
    """{run: its directory} (local path or URL)."""
    remote = listing.files is not None
    return {run: (paths[0].rsplit("/", 1)[0] if remote else os.path.dirname(paths[0]))
            for run, paths in listing.runs if paths}


def nested_runs(directories: dict[str, str], sep: str) -> dict[str, list[str]]:
    """{run directory: the directories of other runs below it}. Sorted by their parts, a directory's
    descendants follow it, so each is found by a scan that stops at the first stranger."""
    ordered = sorted(directories.values(), key=lambda directory: directory.rstrip(sep).split(sep))
    out: dict[str, list[str]] = {}
    for i, directory in enumerate(ordered):
        head = directory.rstrip(sep) + sep
        below = []
        j = i + 1
        while j < len(ordered) and ordered[j].startswith(head):
            below.append(ordered[j])
            j += 1
        out[directory] = below
    return out


def _local_size(directory: str, skip: set[str]) -> int:
    """Bytes of the files below `directory`, other runs' directories (`skip`) left out; links not followed."""
    total, stack = 0, [directory]
    while stack:
        current = stack.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.path not in skip:
                        stack.append(entry.path)
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                continue
    return total


def run_sizes(listing: Listing) -> dict[str, int]:
    """{run: bytes of every file in its directory tree, other runs' trees left out}."""
    directories = run_directories(listing)
    remote = listing.files is not None
    nested = nested_runs(directories, "/" if remote else os.sep)
    sizes = {}
    for run, directory in directories.items():
        below = nested.get(directory, [])
        if remote:
            head = directory + "/"
            inner = tuple(other + "/" for other in below)
            sizes[run] = sum(size for url, size in listing.files.items()
                             if url.startswith(head) and not url.startswith(inner))
        else:
            sizes[run] = _local_size(directory, set(below))
    return sizes


def newest_modification(listing: Listing) -> dict[str, float]:
    """{run: the latest modification time of its event files} (local logdirs only; {} elsewhere)."""
    if listing.files is not None:
        return {}
    out = {}
    for run, paths in listing.runs:
        times = []
        for path in paths:
            try:
                times.append(os.stat(path).st_mtime)
            except OSError:
                continue
        if times:
            out[run] = max(times)
    return out


def run_rows(listing: Listing, runs, hparams: dict[str, dict[str, HParam]], metrics: list[MetricChoice] = (),
             active_within: float = ACTIVE_WITHIN, now: float | None = None) -> list[RunRow]:
    """The rows of decoded `runs` (RunData, in order) of `listing`, with their `hparams`."""
    now = time.time() if now is None else now
    sizes = run_sizes(listing)
    modified = newest_modification(listing)
    rows = []
    for run in runs:
        extent = run_extent(run)
        written = modified.get(run.name, extent.last_wall)
        rows.append(RunRow(run.name, hparams.get(run.name, {}), extent.first_step, extent.last_step, written,
                           sizes.get(run.name, 0), written is not None and now - written < active_within,
                           metric_values(run, metrics)))
    return rows


def varying_keys(rows: list[RunRow]) -> list[str]:
    """The hparams whose value differs between rows (a key some rows lack counts as differing)."""
    keys = sorted({key for row in rows for key in row.hparams})
    out = []
    for key in keys:
        values = {repr(row.hparams[key].value) if key in row.hparams else None for row in rows}
        if len(values) > 1:
            out.append(key)
    return out
