"""Writes the reading benchmark's logdirs: `read_logs.py WORKLOAD LOGDIR SCALE` (runs in .venv-upstream
for tensorboardX/torch writers, in the main venv with PYTHONPATH=python for ours)."""
from __future__ import annotations

import os
import sys

import numpy as np


def scalars(writer_cls, logdir, runs, tags, steps, **kw):
    for r in range(runs):
        writer = writer_cls(os.path.join(logdir, f"run{r}") if runs > 1 else logdir, **kw)
        for step in range(steps):
            for t in range(tags):
                writer.add_scalar(f"group{t % 7}/metric{t:03d}", 1.0 / (step + 1) + t, step)
        writer.close()


def histograms(writer_cls, logdir, runs, tags, steps, **kw):
    rng = np.random.default_rng(0)
    pool = [rng.normal(size=1000) for _ in range(8)]
    for r in range(runs):
        writer = writer_cls(os.path.join(logdir, f"run{r}"), **kw)
        for step in range(steps):
            for t in range(tags):
                writer.add_histogram(f"layer{t}/weights", pool[(step + t) % 8] + step * 1e-3, step, bins=64)
        writer.close()


def sparse_steps(writer_cls, logdir, steps, **kw):
    """Large, irregular steps (multi-byte varints) and tags logged at different rates."""
    writer = writer_cls(logdir, **kw)
    for i in range(steps):
        step = 1_000_000 + 37 * i
        writer.add_scalar("every", float(i), step)
        if i % 3 == 0:
            writer.add_scalar("third", float(-i), step)
        if i % 10 == 0:
            writer.add_scalar("tenth", float(i) / 7, step)
    writer.close()


def main() -> None:
    workload, logdir, scale = sys.argv[1], sys.argv[2], float(sys.argv[3])
    n = lambda x: max(1, int(x * scale))  # noqa: E731
    if workload.startswith("torch"):
        from torch.utils.tensorboard import SummaryWriter
        kw = {"max_queue": 100000, "flush_secs": 3600}
    elif workload.startswith("ours"):
        from tensorboard import SummaryWriter
        kw = {}
    else:
        from tensorboardX import SummaryWriter
        kw = {"max_queue": 100000, "flush_secs": 3600}
    if workload == "tbx_scalars_1M":
        scalars(SummaryWriter, logdir, 1, 100, n(10000), **kw)
    elif workload == "tbx_histograms":
        histograms(SummaryWriter, logdir, 10, 20, n(1000), **kw)
    elif workload == "torch_scalars_10runs":
        scalars(SummaryWriter, logdir, 10, 10, n(2000), **kw)
    elif workload == "ours_scalars_1tag":
        scalars(SummaryWriter, logdir, 1, 1, n(200000), **kw)
    elif workload == "tbx_sparse_steps":
        sparse_steps(SummaryWriter, logdir, n(200000), **kw)
    else:
        raise SystemExit(f"unknown workload {workload}")


if __name__ == "__main__":
    main()
