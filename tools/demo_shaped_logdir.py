"""A logdir with the demo's runs and scalar tags, written from fixed curves instead of training.

    .venv/bin/python tools/demo_shaped_logdir.py DIR      # writes DIR/lr_0.01, DIR/lr_0.1, DIR/lr_0.5

The pictures of the web UI (tools/screenshot_ui.py) are taken of this logdir, not of the demo's: training moves
with the last bit of every BLAS product, so the demo's `lr_0.5` run ends elsewhere on another CPU, and a picture
of trained data could only hold on the machine that took it. Here each value is a closed form of the epoch and
the learning rate in Python floats (no NumPy, no BLAS), the same on every machine; the runs, tags, epochs and
the look of the curves are the demo's (demo/demo.py): slow, steady and unstable training at the three rates.
"""
from __future__ import annotations

import argparse
import math
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
if (REPO / "python" / "tensorboard" / "src" / "summary_pb2.py").exists():  # a built source checkout
    sys.path.insert(0, str(REPO / "python"))

LEARNING_RATES = (0.01, 0.1, 0.5)  # demo/demo.py's, a run each
EPOCHS = 30  # the demo's default
# Where each run starts, how fast it learns (1/epochs), where its accuracy levels off, and how far it swings from
# epoch to epoch. The curves stay close enough together that the dashboard's default outlier-ignoring y range (the
# 5th to 95th percentile, padded by a tenth) holds every point, so every line is drawn whole.
START = 0.66
PACE = {0.01: 0.09, 0.1: 0.45, 0.5: 0.7}
CEILING = {0.01: 0.93, 0.1: 0.975, 0.5: 0.72}
SWING = {0.01: 0.0, 0.1: 0.003, 0.5: 0.03}


def accuracy(lr: float, epoch: int, validation: bool) -> float:
    """START at epoch 1, rising to CEILING at PACE, with a swing that alternates (the unstable run's zig-zag)."""
    top = CEILING[lr] - (0.02 if validation else 0.0)
    level = top - (top - START) * math.exp(-PACE[lr] * (epoch - 1))
    swing = SWING[lr] * math.sin(2.3 * epoch + (0.9 if validation else 0.0))
    return min(max(level + swing, 0.0), 1.0)


def loss(lr: float, epoch: int, validation: bool) -> float:
    """Cross-entropy that matches the accuracy: log(10) untrained, lower as the run learns."""
    right = accuracy(lr, epoch, validation)
    return -math.log(max(right, 1e-3)) + (1.0 - right) * 0.6 + (0.05 if validation else 0.0)


def scalars(lr: float, epoch: int) -> dict[str, float]:
    """Every scalar tag the demo logs once an epoch, for run `lr` at `epoch` (1-based)."""
    mean = loss(lr, epoch, validation=False)
    spread = 0.25 * mean + 0.6 * SWING[lr]  # the batches' losses around the epoch's mean
    return {"loss/train": mean, "loss/train_batch_min": max(mean - spread, 0.0),
            "loss/train_batch_max": mean + 1.5 * spread, "loss/validation": loss(lr, epoch, validation=True),
            "accuracy/train": accuracy(lr, epoch, validation=False),
            "accuracy/validation": accuracy(lr, epoch, validation=True), "learning_rate": lr}


def write(logdir: str | os.PathLike) -> Path:
    """Writes the three runs into `logdir` (created if missing); returns it."""
    from tensorboard import SummaryWriter

    logdir = Path(logdir)
    for lr in LEARNING_RATES:
        with SummaryWriter(str(logdir / f"lr_{lr}")) as writer:
            for epoch in range(1, EPOCHS + 1):
                for tag, value in scalars(lr, epoch).items():
                    writer.add_scalar(tag, value, epoch)
    return logdir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("logdir", help="the directory to write the runs into")
    write(parser.parse_args(argv).logdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
