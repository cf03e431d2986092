"""Video summaries: frames -> animated GIF (via Pillow, imported lazily) in `Summary.Image`."""
from __future__ import annotations

import io
from typing import Any, Sequence

import numpy as np

from tensorboard.convert import to_numpy
from tensorboard.src import summary_pb2
from tensorboard.summary._common import check_tag
from tensorboard.summary._layout import arrange, arranged_shape
from tensorboard.summary.image import make_grid, to_uint8

__all__ = ["video", "encode_gif", "check_video_args"]


def encode_gif(frames: np.ndarray, fps: float) -> bytes:
    """Animated GIF bytes of uint8 frames shaped (T, H, W, C), C in 1, 3, 4; loops forever."""
    try:
        from PIL import Image
    except ImportError as exc:  # pragma: no cover - Pillow is a dependency of the wheel
        raise ImportError("video summaries need Pillow: pip install pillow") from exc
    channels = frames.shape[-1]
    if channels == 1:
        images = [Image.fromarray(frame[:, :, 0], mode="L") for frame in frames]
    else:  # GIF has no real alpha; drop it
        images = [Image.fromarray(np.ascontiguousarray(frame[:, :, :3]), mode="RGB") for frame in frames]
    buffer = io.BytesIO()
    duration = max(1, int(round(1000.0 / fps)))
    images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:], duration=duration, loop=0,
                   optimize=False)
    return buffer.getvalue()


def check_video_args(shape: Sequence[int], fps: float, dataformats: str, name: str = "tensor") -> None:
    """Raises, naming the argument, unless a video of `shape` in `dataformats` at `fps` can be encoded."""
    shape = tuple(int(d) for d in shape)
    tnhwc = arranged_shape(shape, dataformats, "NTCHW", "THW", "TNHWC", name)
    if not isinstance(fps, (int, float)) or isinstance(fps, bool) or not fps > 0:
        raise ValueError(f"fps: expected a positive number, got {fps!r}")
    if tnhwc[-1] not in (1, 3, 4):
        raise ValueError(f"{name}: expected 1, 3 or 4 channels with dataformats {dataformats!r}, got shape {shape}")
    if 0 in tnhwc:
        raise ValueError(f"{name}: video is empty, shape {shape}")


def video(tag: str, tensor: Any, fps: float = 4, dataformats: str = "NTCHW") -> summary_pb2.Summary:
    """An animated GIF of a video batch. `dataformats` letters: N (optional, tiled into a grid per
    frame), T (frames), C (1, 3 or 4; optional), H, W. Pixel values follow `image`'s rule."""
    check_tag(tag)
    array = to_numpy(tensor, "tensor")
    check_video_args(array.shape, fps, dataformats)
    array = arrange(array, dataformats, "NTCHW", "THW", "TNHWC", "tensor")
    pixels = to_uint8(array, "tensor")
    frames = np.stack([make_grid(frame) for frame in pixels])
    _, height, width, channels = frames.shape
    proto = summary_pb2.Summary.Image(height=height, width=width, colorspace=channels,
                                      encoded_image_string=encode_gif(frames, float(fps)))
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, image=proto)])
