"""Axis layouts of image and video arrays (`dataformats` such as "CHW" or "NTCHW").

Everything is checked from the shape alone, so that a value that is still being computed (a JAX
array, an MXNet NDArray) can be refused at the add_* call rather than in the background.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["parse_layout", "arranged_shape", "arrange"]


def _listed(letters: str) -> str:
    return ", ".join(letters[:-1]) + " and " + letters[-1]


def parse_layout(dataformats: str, allowed: str, required: str) -> str:
    """`dataformats` upper-cased, once it is made of distinct letters of `allowed` including all of `required`."""
    if not isinstance(dataformats, str):
        raise TypeError(f"dataformats: expected str, got {type(dataformats).__name__}")
    layout = dataformats.upper()
    if len(set(layout)) != len(layout) or not set(layout) <= set(allowed) or not set(required) <= set(layout):
        raise ValueError(f"dataformats: expected distinct letters from {', '.join(allowed)} including "
                         f"{_listed(required)}, got {dataformats!r}")
    return layout


def _checked(shape: Sequence[int], dataformats: str, allowed: str, required: str, name: str) -> str:
    layout = parse_layout(dataformats, allowed, required)
    if len(shape) != len(layout):
        raise ValueError(f"{name}: dataformats {dataformats!r} needs a {len(layout)}-d array, "
                         f"got shape {tuple(shape)}")
    return layout


def arranged_shape(shape: Sequence[int], dataformats: str, allowed: str, required: str, target: str,
                   name: str) -> tuple[int, ...]:
    """The shape in `target` order, letters missing from `dataformats` (optional ones such as N, C) as 1."""
    sizes = dict(zip(_checked(shape, dataformats, allowed, required, name), shape))
    return tuple(int(sizes.get(letter, 1)) for letter in target)


def arrange(array: np.ndarray, dataformats: str, allowed: str, required: str, target: str,
            name: str) -> np.ndarray:
    """A view of `array` in `target` order, with a length-1 axis for each letter it lacks."""
    layout = _checked(array.shape, dataformats, allowed, required, name)
    for letter in target:
        if letter not in layout:
            array = array[..., np.newaxis]
            layout += letter
    return array.transpose([layout.index(letter) for letter in target])
