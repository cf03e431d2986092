"""Matplotlib figures as image summaries (matplotlib is optional and imported lazily)."""
from __future__ import annotations

import sys
from typing import Any

import numpy as np

from tensorboard.src import summary_pb2
from tensorboard.summary.image import image

__all__ = ["figure_to_image", "figures_to_images", "figure"]


def figure_to_image(figure: Any, close: bool = True) -> np.ndarray:
    """Renders a matplotlib Figure to an RGBA image.

    Args:
        figure: A matplotlib Figure.
        close: Close the figure once rendered.

    Returns:
        An (H, W, 4) uint8 array.

    Raises:
        ImportError: matplotlib is not installed.
        TypeError: Not a matplotlib Figure.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
    except ImportError as exc:
        raise ImportError("figure_to_image needs matplotlib: pip install matplotlib") from exc
    if not hasattr(figure, "savefig") or not hasattr(figure, "canvas"):
        raise TypeError(f"figure: expected a matplotlib Figure, got {type(figure).__name__}")
    canvas = figure.canvas
    if not hasattr(canvas, "buffer_rgba"):
        canvas = FigureCanvasAgg(figure)
    canvas.draw()
    pixels = np.array(canvas.buffer_rgba(), dtype=np.uint8, copy=True)
    if close:
        _close(figure)
    return pixels


def _close(figure: Any) -> None:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:  # figures made without pyplot aren't registered with it
        pyplot.close(figure)


def figures_to_images(figures: Any, close: bool = True) -> np.ndarray:
    """Renders a list of same-size matplotlib Figures to (N, H, W, 4) uint8; closes them (if `close`)
    only when all rendered, so a refused list can be fixed and logged again."""
    frames = [figure_to_image(figure, close=False) for figure in figures]
    if not frames:
        raise ValueError("figure: expected a Figure or a non-empty list of them")
    sizes = sorted({frame.shape[:2] for frame in frames})
    if len(sizes) > 1:
        raise ValueError(f"figure: the figures of a list are logged as one batch and must render at one size "
                         f"(height, width), got {sizes}")
    if close:
        for figure in figures:
            _close(figure)
    return np.stack(frames)


def figure(tag: str, figure: Any, close: bool = True) -> summary_pb2.Summary:
    """An image summary of a rendered matplotlib Figure.

    Args:
        tag: The image's name, a non-empty str.
        figure: A matplotlib Figure.
        close: Close the figure once rendered.

    Returns:
        A Summary proto with one PNG image.

    Raises:
        ImportError: matplotlib is not installed.
        TypeError: Not a matplotlib Figure.
    """
    return image(tag, figure_to_image(figure, close=close), dataformats="HWC")
