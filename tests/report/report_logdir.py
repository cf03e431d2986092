"""A small logdir with every kind the report shows, written by our logger (source tree)."""
import numpy as np

import tensorboard

RUNS = ("lr_0.1", "lr_0.01", "lr_0.001")
STEPS = 2500  # above the default 1000 points, so the page is downsampled


def write_logdir(root):
    for index, run in enumerate(RUNS):
        lr = float(run.split("_")[1])
        with tensorboard.SummaryWriter(str(root / run)) as writer:
            rng = np.random.default_rng(index)
            for step in range(STEPS):
                writer.add_scalar("train/loss", 1.0 / (1.0 + step * lr) + 0.02 * rng.random(), step)
                if step % 100 == 0:
                    writer.add_scalar("eval/accuracy", 1.0 - 1.0 / (2.0 + step * lr), step)
            for step in range(0, 60, 3):
                writer.add_histogram("weights", rng.normal(step / 20, 1.0 + index, 2000), step)
            for step in (0, 50):
                writer.add_image("samples", np.full((3, 8, 8), step / 50.0 * (index + 1) / 3), step)
            writer.add_text("notes", f"run {run}\nlearning rate {lr}", 7)
            writer.add_hparams({"lr": lr, "optimizer": "sgd"}, {"final/loss": 0.5 / (index + 1)})  # in the run
    return root
