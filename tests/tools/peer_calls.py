"""Writer calls made positionally, as each peer library's own users make them (NumPy only, so that both
our venv and .venv-upstream can import this): tests/writers/test_orders.py runs them on our two classes, and
tests/tools/run_peer_calls.py runs the torch/tensorboardX lists through the real libraries."""
from __future__ import annotations

import numpy as np


def clip(frames: int = 800, phase: float = 0.0) -> np.ndarray:
    return (0.5 * np.sin(np.linspace(0, 60, frames) + phase)).astype(np.float32)


def torch_calls() -> list[tuple[str, tuple, dict]]:
    """(method, positional args, keywords) in torch.utils.tensorboard's (and tensorboardX's) order."""
    rng = np.random.default_rng(3)
    labels = np.array([1, 0, 1, 1, 0] * 4)
    predictions = np.linspace(0.05, 0.95, 20)
    calls = [
        ("add_scalar", ("loss", 0.5, 3), {}),
        ("add_scalar", ("loss", 0.25, 4, 1000.0), {}),
        ("add_scalars", ("pair", {"a": 1.0, "b": 2.0}, 5), {}),
        ("add_histogram", ("w", np.arange(100.0), 10), {}),  # 10 is the step here
        ("add_histogram", ("w", np.arange(100.0) * 2, 11, "auto"), {}),
        ("add_image", ("img", rng.random((3, 8, 10)), 2), {}),
        ("add_images", ("imgs", rng.random((2, 3, 8, 10)), 2), {}),
        ("add_text", ("note", "hello", 6), {}),
        ("add_pr_curve", ("pr", labels, predictions, 3), {}),  # 3 is the step
        ("add_pr_curve", ("pr11", labels, predictions, 4, 11), {}),
        ("add_mesh", ("mesh", rng.random((1, 5, 3)).astype(np.float32)), {"global_step": 1}),
        ("add_embedding", (rng.random((6, 3)), [str(i) for i in range(6)], None, 2, "emb"), {}),
        ("add_hparams", ({"lr": 0.1}, {"hp/acc": 0.5}, {"lr": [0.1, 0.2]}, "trial", 7), {}),
        ("add_custom_scalars_multilinechart", (["loss"],), {}),
    ]
    for step in (0, 1, 2, 16000):  # tensorboardX's test_writer loop calls add_audio(tag, x, n_iter)
        calls.append(("add_audio", ("tone", clip(phase=step), step), {}))
    calls.append(("add_audio", ("rate", clip(), 5, 8000), {}))
    calls.append(("add_audio", ("mono_row", clip()[None, :], 0, 16000), {}))
    return calls


def mxboard_calls() -> list[tuple[str, tuple, dict]]:
    """The same data in MXBoard 0.1.0's positional orders."""
    labels = np.array([1, 0, 1, 1, 0] * 4)
    predictions = np.linspace(0.05, 0.95, 20)
    return [
        ("add_scalar", ("loss", 0.5, 3), {}),
        ("add_scalar", ("curves", {"sin": 0.5, "cos": 0.25}, 4), {}),
        ("add_scalar", ("named", ("exp", 1.5), 5), {}),
        ("add_histogram", ("w", np.arange(100.0), 10), {}),
        ("add_histogram", ("w", np.arange(100.0) * 2, 11, 20), {}),  # MXBoard's (tag, values, global_step, bins)
        ("add_image", ("img", np.random.default_rng(3).random((3, 8, 10)), 2), {}),
        ("add_audio", ("tone", clip(), 16000, 5), {}),  # (tag, audio, sample_rate, global_step)
        ("add_audio", ("mono_row", clip()[None, :], 8000), {}),
        ("add_text", ("note", "hello", 6), {}),
        ("add_pr_curve", ("pr", labels, predictions, 11, 3), {}),  # (num_thresholds, global_step)
        ("add_embedding", ("emb", np.random.default_rng(3).random((6, 3)), [str(i) for i in range(6)], None, 2), {}),
    ]
