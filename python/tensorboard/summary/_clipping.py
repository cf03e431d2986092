"""Warns, once per tag, when image pixels or audio samples lie outside the range their dtype is read
in and are clipped (as every peer clips them): a [0, 255] float image turning white or a loud clip
flattened at +-1 is almost always a mistake that the picture alone does not reveal."""
from __future__ import annotations

import threading
import warnings

import numpy as np

_warned: set = set()  # (kind, tag) pairs already warned about, process-wide
_lock = threading.Lock()


class ClippedValuesWarning(UserWarning):
    """Values outside the range their dtype is read in were clipped to it."""


def _span(array: np.ndarray) -> tuple[float, float] | None:
    """(min, max) ignoring NaN, or None for an empty or all-NaN array."""
    if array.size == 0:
        return None
    low, high = np.fmin.reduce(array, axis=None), np.fmax.reduce(array, axis=None)
    if array.dtype.kind == "f" and (np.isnan(low) or np.isnan(high)):
        return None
    return low, high


def _warn_once(kind: str, tag: str, message: str) -> None:
    with _lock:
        if (kind, tag) in _warned:
            return
        _warned.add((kind, tag))
    warnings.warn(message, ClippedValuesWarning, stacklevel=4)


def check_image_range(tag: str, array: np.ndarray) -> None:
    """Warns (first time for `tag`) when float pixels leave [0, 1] or 32/64-bit integer pixels leave
    [0, 255]; other dtypes map their whole range and are never clipped."""
    kind = array.dtype.kind
    if kind == "f":
        span = _span(array)
        if span is not None and (span[0] < 0 or span[1] > 1):
            _warn_once("image", tag, f"image {tag!r}: float pixels span [{span[0]:.6g}, {span[1]:.6g}], and floats "
                                     "are read as [0, 1]: values outside are clipped (to black or white); pass uint8 "
                                     "for 0..255 pixels (or divide by 255), or rescale to [0, 1]")
    elif kind in "iu" and array.dtype.itemsize >= 4:
        span = _span(array)
        if span is not None and (span[0] < 0 or span[1] > 255):
            _warn_once("image", tag, f"image {tag!r}: {array.dtype.name} pixels span [{span[0]}, {span[1]}], and "
                                     f"{array.dtype.name} pixels are read as 0..255: values outside are clipped; "
                                     "scale them to 0..255 (and pass uint8)")


def check_audio_range(tag: str, array: np.ndarray) -> None:
    """Warns (first time for `tag`) when float samples leave [-1, 1]; integer PCM is never clipped."""
    if array.dtype.kind != "f":
        return
    span = _span(array)
    if span is not None and (span[0] < -1 or span[1] > 1):
        _warn_once("audio", tag, f"audio {tag!r}: float samples span [{span[0]:.6g}, {span[1]:.6g}], and floats are "
                                 "read as [-1, 1]: samples outside are clipped; divide by the peak "
                                 "(x / abs(x).max()) or pass int16 PCM")
