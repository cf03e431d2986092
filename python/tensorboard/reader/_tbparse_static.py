"""tbparse's static helpers of `SummaryReader`: histogram buckets as CDF, PDF and even bins, and
tensor-stored histograms, images and audio as dicts. Same inputs, outputs and dtypes as tbparse 0.0.9;
images and audio are decoded with Pillow and the standard library instead of TensorFlow."""
from __future__ import annotations

import io
import wave
from typing import Any

import numpy as np

from tensorboard.logdir.payloads import decode_image, decode_wav


def tensor_to_histogram(tensor) -> dict[str, Any]:
    """A histogram stored as a tensor, as a dict.

    Args:
        tensor: Rows of [left edge, right edge, count].

    Returns:
        {limits, counts, min, max, num, sum, sum_squares}: limits start with the first left edge,
        counts with a 0; sum and sum_squares are unknown (NaN).
    """
    rows = list(tensor)
    limits = [rows[0][0]] + [row[1] for row in rows]
    counts = [0] + [row[2] for row in rows]
    return {"limits": np.array(limits), "counts": np.array(counts), "min": limits[0], "max": limits[-1],
            "num": np.sum(counts), "sum": np.nan, "sum_squares": np.nan}


def buckets_to_histogram_dict(lst) -> dict[str, Any]:
    """`tensor_to_histogram` under tbparse's older name.

    Args:
        lst: Rows of [left edge, right edge, count].

    Returns:
        As `tensor_to_histogram`.
    """
    return tensor_to_histogram(lst)


def tensor_to_image(tensor) -> dict[str, Any]:
    """An image summary stored as a tensor, decoded.

    Args:
        tensor: [width, height, encoded image, ...].

    Returns:
        {image, width, height}: several images stack on a first axis, one image has none.
    """
    image = np.stack([decode_image(bytes(encoded)) for encoded in list(tensor)[2:]], axis=0)
    if image.shape[0] == 1:
        image = image.squeeze(axis=0)
    return {"image": image, "width": int(tensor[0]), "height": int(tensor[1])}


def tensor_to_audio(tensor) -> dict[str, Any]:
    """An audio summary stored as a tensor, decoded.

    Args:
        tensor: Rows of [encoded WAV, b""].

    Returns:
        {audio, content_type, length_frames, sample_rate}: float32 samples (clips, frames,
        channels), one clip without the first axis.

    Raises:
        ValueError: Rows of another form.
    """
    tensor = np.asarray(tensor, dtype=object)
    if tensor.ndim != 2 or tensor.shape[1] != 2 or any(label != b"" for label in tensor[:, 1]):
        raise ValueError(f"tensor: expected rows of [encoded WAV, b''], got shape {tensor.shape}")
    audio = np.stack([decode_wav(bytes(encoded)) for encoded in tensor[:, 0]], axis=0)
    sample_rate = np.array([_wav_rate(bytes(encoded)) for encoded in tensor[:, 0]], dtype=np.int32)
    length = audio.shape[1]
    if audio.shape[0] == 1:
        audio, sample_rate = audio.squeeze(axis=0), sample_rate.squeeze(axis=0)
    return {"audio": audio, "content_type": "audio/wav", "length_frames": length, "sample_rate": sample_rate}


def _wav_rate(encoded: bytes) -> int:
    with wave.open(io.BytesIO(encoded)) as wav:
        return wav.getframerate()


def _buckets(counts, limits) -> tuple[np.ndarray, np.ndarray]:
    counts, limits = np.asarray(counts), np.asarray(limits)
    if len(counts) != len(limits):
        raise ValueError("counts and limits must be as long (the first count is 0), "
                         f"got {len(counts)} and {len(limits)}")
    return counts, limits


def histogram_to_cdf(counts, limits, x) -> np.ndarray:
    """The cumulative probability at each value of `x`, interpolated linearly within buckets.

    Args:
        counts: Bucket counts; counts[0] belongs to limits[0], the first left edge.
        limits: The right edges, limits[0] the first left edge.
        x: Strictly increasing values.

    Returns:
        The probabilities: 0 up to limits[0], 1 past limits[-1].

    Raises:
        ValueError: `counts` and `limits` of different lengths, or `x` not strictly increasing.
    """
    counts, limits = _buckets(counts, limits)
    x = np.asarray(x)
    if np.any(np.diff(x) <= 0):
        raise ValueError("x must be strictly increasing")
    cumulative = np.cumsum(counts)
    total = np.sum(counts)
    y = np.empty(len(x), dtype=np.float64)
    below, above = x <= limits[0], x > limits[-1]
    y[below], y[above] = 0, total
    inside = ~(below | above)
    upper = np.searchsorted(limits, x[inside], side="left")  # the first edge at or past each x
    lower_edge, upper_edge = limits[upper - 1], limits[upper]
    y[inside] = (cumulative[upper - 1] * (upper_edge - x[inside]) + cumulative[upper] * (x[inside] - lower_edge)) \
        / (upper_edge - lower_edge)
    return y / total


def histogram_to_pdf(counts, limits, x) -> tuple[np.ndarray, np.ndarray]:
    """The probability density over each interval between consecutive values of `x`, from the CDF.

    Args:
        counts: As `histogram_to_cdf`'s.
        limits: As `histogram_to_cdf`'s.
        x: Strictly increasing values.

    Returns:
        (centres of the intervals, the density over each).
    """
    x = np.asarray(x)
    y = histogram_to_cdf(counts, limits, x)
    return (x[1:] + x[:-1]) / 2, (y[1:] - y[:-1]) / (x[1:] - x[:-1])


def histogram_to_bins(counts, limits, lower_bound=None, upper_bound=None, n_bins: int = 30):
    """Re-bins a histogram into even bins, each bucket's count spread by overlap, as TensorBoard's
    histogram dashboard does.

    Args:
        counts: Bucket counts, counts[0] being 0.
        limits: The right edges, limits[0] the first left edge.
        lower_bound: The bins' lower end.
        upper_bound: Their upper end. Without both bounds, or with equal ones, the range is widened
            around lower_bound (0 without bounds).
        n_bins: The number of bins.

    Returns:
        ([bin centres], [counts]).

    Raises:
        ValueError: counts[0] is not 0, or `counts` and `limits` differ in length.
    """
    counts, limits = _buckets(counts, limits)
    if counts[0] != 0:
        raise ValueError(f"counts[0] must be 0 (limits[0] is the first left edge), got {counts[0]}")
    if lower_bound is None or upper_bound is None:
        lower_bound = upper_bound = 0
    if upper_bound == lower_bound:
        lower_bound, upper_bound = lower_bound / 1.1 - 1, lower_bound * 1.1 + 1
    width = (upper_bound - lower_bound) / n_bins
    centres, totals = [], []
    bucket = 1  # buckets before this one lie wholly left of the current bin
    for i in range(n_bins):
        left = lower_bound + i * width
        right = left + width
        total = 0
        for bucket in range(bucket, len(counts)):
            b_left, b_right = max(lower_bound, limits[bucket - 1]), min(upper_bound, limits[bucket])
            total += _share(counts[bucket], b_left, b_right, left, right, last=right >= upper_bound)
            if b_right > right:  # the bucket reaches into the next bin: start there with it
                break
        else:
            bucket = len(counts)
        centres.append(left + width / 2)
        totals.append(total)
    return centres, totals


def _share(count, b_left, b_right, left, right, last: bool):
    """The part of a bucket's `count` in bin [left, right): by overlap; a zero-width bucket wholly or not
    at all (the last bin includes its right edge)."""
    if b_right - b_left > 0:
        overlap = min(b_right, right) - max(b_left, left)
        return overlap / (b_right - b_left) * count if overlap > 0 else 0
    inside = left <= b_left and (b_right <= right if last else b_right < right)
    return count if inside else 0
