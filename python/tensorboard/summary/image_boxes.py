"""Images with bounding boxes drawn on them (tensorboardX's image_boxes): boxes are drawn into the
pixels in NumPy, labels (optional) with Pillow, then the image is encoded as any other image."""
from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np

from tensorboard.src import summary_pb2
from tensorboard.summary._common import check_tag
from tensorboard.summary._layout import arranged_shape
from tensorboard.summary.image import _resize, check_rescale, to_nhwc, to_uint8
from tensorboard.summary.png import encode_png
from tensorboard.values.convert import check_numeric, to_numpy

BOX_COLOR = (255, 0, 0)  # red, as tensorboardX draws them
BOX_THICKNESS = 2


def _boxes_shape(shape: Sequence[int]) -> tuple[int, int]:
    """The (N, 4) shape `box_tensor` of `shape` is read as (one box may come as a flat 4-vector)."""
    shape = tuple(int(d) for d in shape)
    if shape == (4,):
        return 1, 4
    if len(shape) != 2 or shape[1] != 4:
        raise ValueError(f"box_tensor: expected N x 4 corners (xmin, ymin, xmax, ymax), got shape {shape}")
    return shape


def _labels(labels: Optional[Sequence[str]]) -> Optional[list]:
    """`labels` as a list of str (one str is one label), or None."""
    return None if labels is None else [labels] if isinstance(labels, str) else [str(x) for x in labels]


def check_image_boxes_args(image_shape: Sequence[int], boxes_shape: Sequence[int], dataformats: str = "CHW",
                           labels: Optional[Sequence[str]] = None, rescale: float = 1) -> None:
    """Raises, naming the argument, unless one image of `image_shape` with boxes of `boxes_shape`
    (and a label per box) can be drawn: from the shapes alone."""
    image_shape = tuple(int(d) for d in image_shape)
    count, _, _, channels = arranged_shape(image_shape, dataformats, "NCHW", "HW", "NHWC", "tensor_image")
    if count != 1:
        raise ValueError(f"tensor_image: expected one image, got a batch of {count}")
    if channels not in (1, 3, 4):
        raise ValueError(f"tensor_image: expected 1, 3 or 4 channels, got shape {image_shape}")
    boxes = _boxes_shape(boxes_shape)[0]
    labels = _labels(labels)
    if labels is not None and len(labels) != boxes:
        raise ValueError(f"labels: expected one per box ({boxes}), got {len(labels)}")
    check_rescale(rescale)


def _draw_box(pixels: np.ndarray, box: np.ndarray) -> None:
    """Draws a BOX_THICKNESS-pixel red outline into RGB(A) `pixels`, clipped to the image."""
    height, width, channels = pixels.shape
    x0, x1 = sorted(int(round(v)) for v in (box[0], box[2]))
    y0, y1 = sorted(int(round(v)) for v in (box[1], box[3]))
    color = np.asarray(BOX_COLOR + (255,) * (channels - 3), np.uint8)
    t = BOX_THICKNESS
    for ya, yb, xa, xb in ((y0, y0 + t, x0, x1 + 1), (y1 - t + 1, y1 + 1, x0, x1 + 1),
                           (y0, y1 + 1, x0, x0 + t), (y0, y1 + 1, x1 - t + 1, x1 + 1)):
        ya, yb, xa, xb = max(ya, 0), min(yb, height), max(xa, 0), min(xb, width)
        if ya < yb and xa < xb:
            pixels[ya:yb, xa:xb] = color


def _draw_labels(pixels: np.ndarray, boxes: np.ndarray, labels: Sequence[str]) -> np.ndarray:
    """Writes each label in black on a red strip at its box's bottom-left corner (needs Pillow)."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise ImportError("labels: drawing box labels needs Pillow (pip install pillow)") from None
    image = Image.fromarray(pixels)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    extra = (255,) * (pixels.shape[2] - 3)
    for (x0, y0, x1, y1), label in zip(boxes, labels):
        left, bottom = min(x0, x1), max(y0, y1)
        l, t, r, b = font.getbbox(label)
        draw.rectangle([(left, bottom - (b - t) - 4), (left + (r - l) + 4, bottom)], fill=BOX_COLOR + extra)
        draw.text((left + 2 - l, bottom - (b - t) - 2 - t), label, fill=(0, 0, 0) + extra, font=font)
    return np.asarray(image)


def image_boxes(tag: str, tensor_image: Any, tensor_boxes: Any, rescale: float = 1, dataformats: str = "CHW",
                labels: Optional[Sequence[str]] = None) -> summary_pb2.Summary:
    """An image summary with boxes drawn in red, and labels written on them.

    Args:
        tag: The image's name, a non-empty str.
        tensor_image: One image; pixel rule and layouts as `image`.
        tensor_boxes: N x 4 pixel corners (xmin, ymin, xmax, ymax), finite.
        rescale: A positive factor the image is scaled by after drawing.
        dataformats: The image's layout ("CHW" by default).
        labels: One str per box (needs Pillow).

    Returns:
        A Summary proto with one image.

    Raises:
        ValueError: A batch instead of one image, boxes not N x 4 or not finite, or not one label per box.
    """
    check_tag(tag)
    array = to_numpy(tensor_image, "tensor_image")
    boxes = check_numeric(to_numpy(tensor_boxes, "box_tensor"), "box_tensor")
    check_image_boxes_args(array.shape, boxes.shape, dataformats, labels, rescale)
    boxes = boxes.astype(np.float64).reshape(_boxes_shape(boxes.shape))
    if not np.isfinite(boxes).all():
        raise ValueError("box_tensor: corners must be finite")
    labels = _labels(labels)
    pixels = np.array(to_uint8(to_nhwc(array, dataformats, "tensor_image")[0], "tensor_image"))
    if pixels.shape[2] == 1:  # grey: drawn on as RGB so the boxes are red
        pixels = np.repeat(pixels, 3, axis=2)
    for box in boxes:
        _draw_box(pixels, box)
    if labels:
        pixels = _draw_labels(pixels, boxes, labels)
    pixels = _resize(pixels, rescale)
    height, width, channels = pixels.shape
    proto = summary_pb2.Summary.Image(height=height, width=width, colorspace=channels,
                                      encoded_image_string=encode_png(pixels))
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, image=proto)])
