"""Video summaries: frames -> animated GIF (via Pillow, imported lazily) in `Summary.Image`."""
from __future__ import annotations

import io
import warnings
from typing import Any, Sequence

import numpy as np

from tensorboard.src import summary_pb2
from tensorboard.summary._common import check_tag
from tensorboard.summary._layout import arrange, arranged_shape
from tensorboard.summary.image import make_grid, to_uint8
from tensorboard.values.convert import to_numpy

__all__ = ["video", "encode_gif", "gif_delay", "check_video_args"]


def encode_gif(frames: np.ndarray, fps: float) -> bytes:
    """Animated GIF bytes of uint8 frames, looping forever (an alpha channel is dropped).

    Args:
        frames: A (T, H, W, C) uint8 array, C in 1, 3, 4.
        fps: Frames per second; GIF plays the nearest 100/k, at most 50 (with a warning).

    Returns:
        The GIF file's bytes.
    """
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
    images[0].save(buffer, format="GIF", save_all=True, append_images=images[1:], duration=10 * gif_delay(fps),
                   loop=0, optimize=False)
    return buffer.getvalue()


_MIN_DELAY = 2  # centiseconds: browsers play shorter GIF delays (0 or 1) as 10, i.e. at 10 frames/s
_MAX_DELAY = 65535  # the format's 16-bit field


def gif_delay(fps: float) -> int:
    """The GIF frame delay, in the format's 1/100 s, nearest to `fps`; warns, naming fps, when the
    format or the browsers cannot play that rate (above 50 frames/s, or slower than one per 655 s)."""
    delay = round(100.0 / fps)
    if fps > 100 / _MIN_DELAY or delay > _MAX_DELAY:
        delay = min(max(delay, _MIN_DELAY), _MAX_DELAY)
        warnings.warn(f"fps: a GIF cannot play {fps:g} frames/s in a browser; written at {100 / delay:g} frames/s "
                      f"(delays are whole 1/100 s, at least 2)", stacklevel=4)
    return delay


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
    """An animated GIF of a video (or a batch, tiled into a grid per frame).

    Args:
        tag: The video's name, a non-empty str.
        tensor: The frames; pixel values follow `image`'s rule.
        fps: Frames per second, positive. GIF stores frame delays in whole 1/100 s: the rate
            played is the nearest 100/k frames/s (24 -> 25), at most 50.
        dataformats: Letters N (optional), T (frames), C (1, 3 or 4; optional), H, W.

    Returns:
        A Summary proto with one image (the GIF).

    Raises:
        ValueError: A shape that does not fit `dataformats`, not 1, 3 or 4 channels, an empty video,
            or a bad `fps`.
    """
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
