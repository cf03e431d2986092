"""Keras values -> NumPy for the Keras callback: weights, the optimizer's counters, weight images.

Conversion only (no logging): `keras.ops.convert_to_numpy` works on every backend (JAX, torch,
NumPy, TensorFlow), so the callback never touches a backend's own tensor type.
"""
from __future__ import annotations

from typing import Any

import numpy as np

MAX_WEIGHT_IMAGES = 3  # Keras's callback logs a weight's images with tf.summary.image's default max_outputs


def to_numpy(value: Any) -> np.ndarray:
    """A Keras variable or backend tensor as a NumPy array."""
    import keras

    return np.asarray(keras.ops.convert_to_numpy(value))


def optimizer_iterations(model: Any) -> int | None:
    """The optimizer's step counter (`model.optimizer.iterations`), or None without an optimizer."""
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not hasattr(optimizer, "iterations"):
        return None
    return int(to_numpy(optimizer.iterations))


def learning_rates(model: Any) -> dict[str, float]:
    """{"learning_rate": lr} (or {"learning_rate_<name>": lr} per inner optimizer), as Keras logs them."""
    import keras

    optimizer = getattr(model, "optimizer", None)
    optimizer = getattr(optimizer, "inner_optimizer", optimizer)  # LossScaleOptimizer wraps the real one
    if hasattr(optimizer, "optimizers"):
        return {f"learning_rate_{inner.name}": float(to_numpy(inner.learning_rate)) for inner in optimizer.optimizers}
    if isinstance(optimizer, keras.optimizers.Optimizer):
        return {"learning_rate": float(to_numpy(optimizer.learning_rate))}
    return {}


def weight_image(array: np.ndarray, channels_last: bool) -> np.ndarray | None:
    """A weight laid out as NHWC images the way Keras's callback shows it, or None if it has no such view.

    Axes of length 1 go first (Keras squeezes the weight), then: bias (1-d): one image n pixels high,
    1 wide; a dense kernel (2-d): one image, the longer side horizontal; 3-d (a 1-d conv kernel): one
    grey image per last-axis entry; 4-d with 3 or 4 last-axis entries (a 2-d conv kernel with that
    many filters): its first axis as colour images. At most MAX_WEIGHT_IMAGES images, each a sample
    of its own. Values are not rescaled (as in Keras): floats in [0, 1] map to 0..255 (rounded; TF
    truncates, so a pixel may differ by one) and the rest is clipped.
    """
    image = np.squeeze(array)
    if image.ndim == 1:
        image = image.reshape(1, -1, 1, 1)
    elif image.ndim == 2:
        if image.shape[0] > image.shape[1]:
            image = image.T
        image = image[np.newaxis, :, :, np.newaxis]
    elif image.ndim == 3:
        if channels_last:
            image = np.transpose(image, (2, 0, 1))
        image = image[..., np.newaxis]
    elif image.ndim != 4 or image.shape[-1] not in (1, 3, 4):
        return None
    if image.size == 0:
        return None
    return image[:MAX_WEIGHT_IMAGES]
