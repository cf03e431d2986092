"""The benchmarks' logdirs of scalars, written by our SummaryWriter from the source tree.

A bench describes each run as a `ScalarRun` (its directory name, its tags, a row of values per step) and
`write_scalar_runs` writes them: one writer per run, every tag's value of a step before the next step, as
training loops log. The rows are produced lazily, so 10,000 runs need no more memory than one.
(bench/read_logs.py writes with tensorboardX and torch too, in their environment: it stays apart.)
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

from envs import SOURCE


@dataclass(frozen=True)
class ScalarRun:
    """One run directory: `rows[step][i]` is the value of `tags[i]` at that step; `hparams`, if given, are
    logged once after the scalars (with no metrics)."""
    name: str
    tags: Sequence[str]
    rows: Iterable[Sequence[float]]
    hparams: dict[str, Any] | None = None


def our_tensorboard():
    """Our `tensorboard` package from the source tree (put first on sys.path), as the benches measure it."""
    if SOURCE not in sys.path:
        sys.path.insert(0, SOURCE)
    import tensorboard

    return tensorboard


def write_scalar_runs(root: str, runs: Iterable[ScalarRun], max_queue: int | None = None) -> list[str]:
    """Writes each run under `root` (SummaryWriter's default queue unless `max_queue`); the run directories."""
    writer_class = our_tensorboard().SummaryWriter
    options = {} if max_queue is None else {"max_queue": max_queue}
    directories = []
    for run in runs:
        directory = os.path.join(root, run.name)
        with writer_class(directory, **options) as writer:
            for step, row in enumerate(run.rows):
                for tag, value in zip(run.tags, row):
                    writer.add_scalar(tag, value, step)
            if run.hparams is not None:
                writer.add_hparams(run.hparams, {})
        directories.append(directory)
    return directories
