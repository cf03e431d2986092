"""Seed runs written by our SummaryWriter for the reduction tests: configurations x seeds x tags."""
from __future__ import annotations

import os

import numpy as np

import tensorboard


def write_seeds(root, configs=("lr0.1", "lr0.01"), seeds=5, tags=("loss", "acc"), steps=300, start=0):
    """`root/<config>_seed<k>`, each tag a noisy curve; returns {run name: {tag: values}}."""
    written = {}
    for c, config in enumerate(configs):
        for seed in range(seeds):
            rng = np.random.default_rng(1000 * c + seed)
            name = f"{config}_seed{seed}"
            with tensorboard.SummaryWriter(os.path.join(root, name)) as writer:
                written[name] = {}
                for t, tag in enumerate(tags):
                    values = (rng.standard_normal(steps) + t + c).astype(np.float32)
                    for step, value in zip(range(start, start + steps), values.tolist()):
                        writer.add_scalar(tag, value, step)
                    written[name][tag] = values.astype(np.float64)
    return written
