"""The logdirs the figure tests draw: seeds of two configurations with a loss, an accuracy and an epoch
scalar, and histograms, written by our SummaryWriter and checked with upstream's reader."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import tensorboard

CONFIGS = ("lr0.1", "lr0.01")
SEEDS = 3
STEPS = 200
EPOCH_EVERY = 10  # an `epoch` scalar every 10 steps: the --x TAG join
RUNS = [f"{cfg}_seed{seed}" for cfg in CONFIGS for seed in range(SEEDS)]
TAGS = ("train/loss", "train/accuracy")


def loss(cfg: int, seed: int, step: int) -> float:
    """A decaying loss with seeded noise, always positive."""
    noise = np.random.default_rng([cfg, seed, step]).normal() * 0.05
    return float(np.exp(-step / (80.0 + 40 * cfg)) + 0.1 + abs(noise))


def write_sweep(root: Path, histograms: bool = False) -> Path:
    """RUNS below `root`, each STEPS steps of TAGS, an `epoch` every EPOCH_EVERY steps and, with
    `histograms`, a `weights` histogram every 20 steps."""
    for ci, cfg in enumerate(CONFIGS):
        for seed in range(SEEDS):
            with tensorboard.SummaryWriter(str(root / f"{cfg}_seed{seed}")) as writer:
                for step in range(STEPS):
                    value = loss(ci, seed, step)
                    writer.add_scalar("train/loss", value, step)
                    writer.add_scalar("train/accuracy", 1.0 - value / 2, step)
                    if step % EPOCH_EVERY == 0:
                        writer.add_scalar("epoch", step // EPOCH_EVERY, step)
                    if histograms and step % 20 == 0:
                        rng = np.random.default_rng([ci, seed, step])
                        writer.add_histogram("weights", rng.normal(step / 100, 1.0, 500), step)
    return root
