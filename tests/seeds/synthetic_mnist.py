"""MNIST-shaped synthetic digits (no downloads): 28x28 uint8 images of 10 learnable classes.

Each class is a fixed random stroke pattern; samples are that pattern, shifted by up to
two pixels, with noise. Shapes and dtypes match MNIST's (N, 28, 28) uint8 / int labels.
"""
from __future__ import annotations

import numpy as np


def make_digits(count: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """`count` images (uint8, N x 28 x 28) and labels (int32, 0..9)."""
    rng = np.random.RandomState(1234)  # the class patterns are the same for every split
    templates = np.zeros((10, 28, 28), dtype=np.float32)
    for digit in range(10):
        for _ in range(6):  # a few random strokes per class
            r, c = rng.randint(4, 24, size=2)
            dr, dc = rng.randint(-1, 2, size=2)
            for t in range(8):
                rr, cc = np.clip(r + dr * t, 0, 27), np.clip(c + dc * t, 0, 27)
                templates[digit, max(rr - 1, 0):rr + 1, max(cc - 1, 0):cc + 1] = 1.0
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, size=count).astype(np.int32)
    images = np.empty((count, 28, 28), dtype=np.float32)
    for i, label in enumerate(labels):
        shift = rng.randint(-2, 3, size=2)
        images[i] = np.roll(templates[label], tuple(shift), axis=(0, 1))
    images = np.clip(images * 0.8 + rng.uniform(0, 0.3, size=images.shape), 0, 1)
    return (images * 255).astype(np.uint8), labels
