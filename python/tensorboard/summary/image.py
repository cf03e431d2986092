"""Image summaries: arrays -> 8-bit PNG in the legacy `Summary.Image` (upstream migrates it).

Pixel rule (by dtype, never by the data, so a run renders consistently across steps):
  float        values in [0, 1] -> 0..255 (rounded; clipped; NaN -> 0)
  bool         False/True -> 0/255
  uint8        as is
  uint16       v / 257 (the full 16-bit range)
  int8, int16  full signed range -> 0..255 (dtype min -> 0, dtype max -> 255)
  int32/int64/uint32/uint64  taken as 8-bit values, clipped to 0..255 (framework default
               integer tensors usually hold 0..255 pixels)
Clipping warns (ClippedValuesWarning) the first time per tag, naming the range seen.
Batches (N > 1) are tiled into a grid of up to `max_columns` columns, like make_grid; or, with
`image_samples`, kept as separate samples of one step (tf.summary.image's form, a slider in the
Images dashboard).
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from tensorboard.src import summary_pb2
from tensorboard.summary._clipping import check_image_range
from tensorboard.summary._common import check_tag, make_metadata, make_string_tensor
from tensorboard.summary._layout import arrange, arranged_shape
from tensorboard.summary.png import encode_png
from tensorboard.values.convert import check_numeric, to_numpy

__all__ = ["image", "images", "image_samples", "to_uint8", "to_nhwc", "make_grid", "image_proto", "check_image_shape",
           "check_image_size", "MAX_IMAGE_SIDE"]


def to_uint8(array: np.ndarray, name: str = "tensor") -> np.ndarray:
    """Pixels as uint8 following the module's dtype rule.

    Args:
        array: Numeric pixels.
        name: The argument's name in error messages.

    Returns:
        A uint8 array of the same shape (`array` itself if it is uint8).

    Raises:
        TypeError: Non-numeric values.
    """
    check_numeric(array, name)
    kind, dtype = array.dtype.kind, array.dtype
    if dtype == np.uint8:
        return array
    if kind == "f":
        with np.errstate(over="ignore"):  # float64 beyond float32's range: inf, clipped to 255 (or 0) below
            scaled = np.multiply(array, 255.0, dtype=np.float32)
        np.clip(scaled, 0.0, 255.0, out=scaled)
        np.rint(scaled, out=scaled)
        scaled[np.isnan(scaled)] = 0.0
        return scaled.astype(np.uint8)
    if kind == "b":
        return array.astype(np.uint8) * np.uint8(255)
    if dtype == np.uint16:
        return ((array.astype(np.uint32) * 255 + 32767) // 65535).astype(np.uint8)
    if dtype in (np.int8, np.int16):
        info = np.iinfo(dtype)
        span = int(info.max) - int(info.min)
        return (((array.astype(np.int64) - int(info.min)) * 255 + span // 2) // span).astype(np.uint8)
    return np.clip(array, 0, 255).astype(np.uint8)


def to_nhwc(array: np.ndarray, dataformats: str, name: str = "tensor") -> np.ndarray:
    """Reorders an array described by `dataformats` into NHWC.

    Args:
        array: An image or batch.
        dataformats: Its layout, letters of N, C, H, W (N and C optional).
        name: The argument's name in error messages.

    Returns:
        The array as (N, H, W, C).

    Raises:
        ValueError: A shape that does not fit `dataformats`, or an invalid `dataformats`.
    """
    return arrange(array, dataformats, "NCHW", "HW", "NHWC", name)


def check_image_shape(shape: Sequence[int], dataformats: str, name: str = "tensor") -> None:
    """Raises, naming `name`, unless an image or batch of `shape` in `dataformats` can be encoded."""
    shape = tuple(int(d) for d in shape)
    nhwc = arranged_shape(shape, dataformats, "NCHW", "HW", "NHWC", name)
    if nhwc[3] not in (1, 3, 4):
        raise ValueError(f"{name}: expected 1, 3 or 4 channels with dataformats {dataformats!r}, got shape {shape}")
    if 0 in nhwc:
        raise ValueError(f"{name}: image is empty, shape {shape}")


MAX_IMAGE_SIDE = 32767  # px per side of an image written (after tiling and rescale): browsers' own limit


def check_image_size(shape: Sequence[int], dataformats: str, rescale: float = 1, name: str = "tensor",
                     tiled: bool = True) -> None:
    """Raises, naming the argument, when the PNG made of an image or batch of `shape` (tiled into a grid
    of up to 8 columns if `tiled`, each image alone if not, then rescaled) would be wider or taller
    than MAX_IMAGE_SIDE: checked before any pixel is converted or allocated."""
    count, height, width, _ = arranged_shape(tuple(int(d) for d in shape), dataformats, "NCHW", "HW", "NHWC", name)
    columns = min(count, 8) if tiled else 1
    rows = math.ceil(count / columns) if tiled else 1
    out_height, out_width = rows * height * rescale, columns * width * rescale
    if max(out_height, out_width) > MAX_IMAGE_SIDE:
        what = "rescale" if rescale > 1 and max(rows * height, columns * width) <= MAX_IMAGE_SIDE else name
        raise ValueError(f"{what}: the image would be {round(out_height)}x{round(out_width)} px (shape "
                         f"{tuple(shape)}{', tiled' if tiled and count > 1 else ''}, rescale {rescale}); at most "
                         f"{MAX_IMAGE_SIDE} px a side")


def check_rescale(rescale: float) -> None:
    """Raises unless `rescale` is a positive number."""
    if not isinstance(rescale, (int, float)) or not rescale > 0:
        raise ValueError(f"rescale: expected a positive number, got {rescale!r}")


def make_grid(batch: np.ndarray, max_columns: int = 8) -> np.ndarray:
    """Tiles an NHWC batch into one HWC image, row-major, empty cells black (no padding).

    Args:
        batch: An (N, H, W, C) array.
        max_columns: Images per row at most.

    Returns:
        An (H, W, C) array: the single image itself when N is 1.
    """
    count, height, width, channels = batch.shape
    if count == 1:
        return batch[0]
    columns = min(count, max_columns)
    rows = math.ceil(count / columns)
    canvas = np.zeros((rows * columns, height, width, channels), dtype=batch.dtype)
    canvas[:count] = batch
    return canvas.reshape(rows, columns, height, width, channels).swapaxes(1, 2).reshape(
        rows * height, columns * width, channels)


def _resize(pixels: np.ndarray, rescale: float) -> np.ndarray:
    if rescale == 1:
        return pixels
    if float(rescale).is_integer() and rescale > 1:
        factor = int(rescale)
        return pixels.repeat(factor, axis=0).repeat(factor, axis=1)
    from PIL import Image  # only for fractional scaling

    height, width, channels = pixels.shape
    size = (max(1, round(width * rescale)), max(1, round(height * rescale)))
    resized = np.asarray(Image.fromarray(pixels.squeeze(-1) if channels == 1 else pixels).resize(size))
    return resized.reshape(size[1], size[0], channels)


def image_proto(tensor: Any, rescale: float = 1, dataformats: str = "HWC",
                name: str = "tensor", tag: str | None = None) -> summary_pb2.Summary.Image:
    """The PNG `Summary.Image` of an image or a batch (tiled into a grid).

    Args:
        tensor: The image or batch, laid out as `dataformats` says.
        rescale: A positive factor the image is scaled by.
        dataformats: Letters of N, C, H, W.
        name: The argument's name in error messages.
        tag: Warn about clipped pixels under this tag (once per tag); None: no warning.

    Returns:
        A Summary.Image.

    Raises:
        ValueError: A shape that does not fit `dataformats`, not 1, 3 or 4 channels, an empty image,
            one wider or taller than 32767 px, or a bad `rescale`.
    """
    array = to_numpy(tensor, name)
    check_rescale(rescale)
    check_image_shape(array.shape, dataformats, name)
    check_image_size(array.shape, dataformats, rescale, name)
    if tag is not None:
        check_image_range(tag, array)
    batch = to_nhwc(array, dataformats, name)
    channels = batch.shape[3]
    pixels = _resize(make_grid(to_uint8(batch, name)), rescale)
    height, width, _ = pixels.shape
    return summary_pb2.Summary.Image(height=height, width=width, colorspace=channels,
                                     encoded_image_string=encode_png(pixels))


def image(tag: str, tensor: Any, rescale: float = 1, dataformats: str = "HWC") -> summary_pb2.Summary:
    """An image summary (PNG); a batch (N > 1) is tiled into a grid.

    Args:
        tag: The image's name, a non-empty str.
        tensor: Pixels following the module's dtype rule (floats in [0, 1], uint8 0..255, ...).
        rescale: A positive factor the image is scaled by.
        dataformats: Its layout: HW, HWC, CHW, NCHW, NHWC, ...

    Returns:
        A Summary proto with one image.

    Raises:
        TypeError: A tag that is not a str, or non-numeric values.
        ValueError: A shape that does not fit `dataformats`, not 1, 3 or 4 channels, an empty image,
            or one wider or taller than 32767 px.
    """
    check_tag(tag)
    proto = image_proto(tensor, rescale, dataformats, tag=tag)
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, image=proto)])


def images(tag: str, tensor: Any, rescale: float = 1, dataformats: str = "NCHW") -> summary_pb2.Summary:
    """A batch of images tiled into one grid image (`image` with an NCHW default).

    Args:
        tag: The image's name, a non-empty str.
        tensor: The batch.
        rescale: A positive factor the grid is scaled by.
        dataformats: Its layout.

    Returns:
        A Summary proto with one image.
    """
    return image(tag, tensor, rescale=rescale, dataformats=dataformats)


def image_samples(tag: str, tensor: Any, max_outputs: int = 3, dataformats: str = "NHWC") -> summary_pb2.Summary:
    """The first `max_outputs` images of a batch as separate samples of one step (a slider in the
    Images dashboard): the images plugin's string tensor `[width, height, png, ...]`, as
    tf.summary.image writes it.

    Args:
        tag: The images' name, a non-empty str.
        tensor: The batch, laid out as `dataformats` says.
        max_outputs: How many images to keep, a positive int.
        dataformats: Its layout ("NHWC" by default).

    Returns:
        A Summary proto with one string tensor.

    Raises:
        ValueError: A bad `max_outputs`, or a shape that does not fit `dataformats`.
    """
    check_tag(tag)
    if isinstance(max_outputs, bool) or not isinstance(max_outputs, int) or max_outputs < 1:
        raise ValueError(f"max_outputs: expected a positive int, got {max_outputs!r}")
    array = to_numpy(tensor, "tensor")
    check_image_shape(array.shape, dataformats, "tensor")
    check_image_size(array.shape, dataformats, 1, "tensor", tiled=False)
    chosen = to_nhwc(array, dataformats, "tensor")[:max_outputs]
    check_image_range(tag, chosen)
    batch = to_uint8(chosen, "tensor")
    height, width = batch.shape[1:3]
    pngs = [encode_png(pixels) for pixels in batch]
    value = summary_pb2.Summary.Value(
        tag=tag, metadata=make_metadata("images", b"", data_class=summary_pb2.DATA_CLASS_BLOB_SEQUENCE),
        tensor=make_string_tensor([str(width), str(height), *pngs], [2 + len(pngs)]))
    return summary_pb2.Summary(value=[value])
