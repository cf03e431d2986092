"""A small sweep with every kind `tensorboard export` supports, under awkward run names (spaces, '=',
'/', '%', non-ASCII, a name like a Hive null, the top directory), written by our SummaryWriter."""
from __future__ import annotations

import os

import numpy as np

import tensorboard

RUNS = ("", "a b", "c=d", "e/f", "50%", "ünï", "x%2Fy", "null")
KINDS = ("scalars", "histograms", "tensors", "text", "hparams")


def write_sweep(root: str, storage_options: dict | None = None) -> list[str]:
    """Writes RUNS below `root` (a directory or URL); returns the run names (relative directories)."""
    for i, run in enumerate(RUNS):
        path = root if not run else root.rstrip("/") + "/" + run
        kwargs = {"storage_options": storage_options} if storage_options else {}
        with tensorboard.SummaryWriter(path, **kwargs) as writer:
            for step in range(40):
                writer.add_scalar("loss", (i + 1) / (step + 1), step)
                writer.add_scalar("lr", 0.1 * i, step)
            for step in (0, 10, 20):
                writer.add_histogram("w", np.arange(20.0) * (i + 1) + step, step)
            writer.add_scalar("dp", 0.5 + i, 7, double_precision=True)
            writer.add_text("note", f"run {run!r}", 3)
            if run:
                writer.add_hparams({"lr": 0.1 * i, "batch": 32 + i}, {"score": float(i)}, run_name="hp")
    return list(RUNS)


def local_sweep(root) -> str:
    root = os.fspath(root)
    write_sweep(root)
    return root
