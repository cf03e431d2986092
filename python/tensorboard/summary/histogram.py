"""Histogram summaries as the legacy `HistogramProto` (upstream migrates it to a tensor).

The default buckets are TensorBoard's exponential ones: limits ±1e-12 * 1.1**k up to 1e20,
then ±DBL_MAX, with 0 in the middle. Bucket i counts values in (limit[i-1], limit[i]].
Runs of empty buckets collapse to one entry and leading/trailing empty buckets are dropped,
as TensorFlow's encoder does. Counting is O(n) and exact (see `_histogram_counts`).

NaN and ±Inf are rejected with a ValueError naming `values`: histograms with non-finite
min/max/sum can't be drawn, and silently dropping them would hide a diverged run.
(tensorboardX and torch.utils.tensorboard write such histograms with NaN/inf statistics.)
"""
from __future__ import annotations

import math
import warnings
from typing import Any, Optional, Sequence, Union

import numpy as np

from tensorboard import wire
from tensorboard.convert import check_numeric, to_float, to_numpy, to_numpy_bits16
from tensorboard.src import summary_pb2
from tensorboard.summary import _histogram_counts as _counts
from tensorboard.summary import _histogram_patterns as _bits
from tensorboard.summary._common import check_tag
from tensorboard.summary._histogram_counts import default_bucket_limits

__all__ = ["histogram", "default_bucket_limits", "histogram_proto", "histogram_raw_proto", "check_histogram_args"]

Bins = Union[str, int, Sequence[float], np.ndarray]


def _work_dtype(dtype: np.dtype):
    """float32 or float64: the float type `dtype`'s values are counted as (exactly representable)."""
    if dtype.kind in "biu":  # exact as float32 up to 16 bits, as float64 up to 2**53
        return np.dtype(np.float32 if dtype.itemsize <= 2 else np.float64)
    return np.dtype(np.float32 if dtype.itemsize <= 4 else np.float64)


def _nonfinite_error(name: str, bad: int, size: int) -> ValueError:
    return ValueError(f"{name}: {bad} of {size} values are NaN or infinite; histograms need finite values")


def _compact(limits: np.ndarray, counts: np.ndarray):
    """Drops empty buckets at both ends and merges interior runs of empty buckets into one."""
    filled = counts != 0
    ends = np.flatnonzero(filled)  # on a bool mask: a third faster than on the counts
    if len(ends) == 0:
        return limits[:0], counts[:0]
    first, stop = ends[0], ends[-1] + 1
    keep = filled[first:stop].copy()  # every non-empty bucket and the last bucket of each empty run
    keep[:-1] |= filled[first + 1:stop]
    return limits[first:stop][keep], counts[first:stop][keep]


def _limit_buckets(limits: np.ndarray, counts: np.ndarray, max_bins: int):
    """Merges neighbouring buckets so that at most `max_bins` remain."""
    group = -(-len(counts) // max_bins)
    pad = (-len(counts)) % group
    if pad:  # pad at the end; the last group's right edge is the real last edge
        counts = np.concatenate([counts, np.zeros(pad, counts.dtype)])
        limits = np.concatenate([limits, np.repeat(limits[-1:], pad)])
    return limits[group - 1::group], counts.reshape(-1, group).sum(axis=1)


def _patterns(bits: np.ndarray, fmt: str, name: str):
    """(min, max, sum, sum of squares, default-bucket counts) of 8/16-bit input from its distinct values."""
    present, counts = _bits.pattern_counts(bits, fmt)
    with np.errstate(invalid="ignore"):  # signalling NaN patterns
        values = _bits.pattern_values(fmt)[present].astype(np.float64)
    finite = np.isfinite(values)
    if not finite.all():
        raise _nonfinite_error(name, int(counts[~finite].sum()), bits.size)
    weights = counts.astype(np.float64)  # exact: counts < 2**53
    with np.errstate(over="ignore", invalid="ignore"):
        total = float((weights * values).sum())
        squares = float((weights * values * values).sum())
    return float(values.min()), float(values.max()), total, squares, _bits.bucket_counts(present, counts, fmt)


def _floats(flat: np.ndarray, name: str):
    """(min, max, sum, sum of squares, default-bucket counts) of float32/float64 values."""
    counts, total, squares, lo, hi = _counts.counts_and_range(flat)
    if counts is None:
        raise _nonfinite_error(name, int(np.count_nonzero(~np.isfinite(flat))), flat.size)
    return lo, hi, total, squares, counts


_DEFAULT_BINS = ("tensorflow", "default")


def check_histogram_args(shape: Sequence[int], bins: Bins = "tensorflow", max_bins: Optional[int] = None,
                         name: str = "values") -> None:
    """Raises, naming the argument, unless a histogram of an array of `shape` with `bins` and `max_bins`
    can be made (from the shape alone: the values themselves may still be computing)."""
    if max_bins is not None and (isinstance(max_bins, bool) or not isinstance(max_bins, (int, np.integer))
                                 or max_bins < 1):
        raise ValueError(f"max_bins: expected a positive int or None, got {max_bins!r}")
    if math.prod(int(d) for d in shape) == 0:
        raise ValueError(f"{name}: cannot make a histogram of an empty array")
    if not (isinstance(bins, str) and bins in _DEFAULT_BINS):
        if not isinstance(bins, str) and np.ndim(bins) == 1 and len(bins) < 2:
            raise ValueError(f"bins: a sequence of edges needs at least two (one bucket), "
                             f"got {np.asarray(bins).tolist()}")
        try:  # NumPy's own checks of `bins` (a positive int, a rule's name, increasing edges), on one value
            np.histogram_bin_edges(np.zeros(1), bins=bins)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"bins: {exc}") from exc


def histogram_proto(values: Any, bins: Bins = "tensorflow", max_bins: Optional[int] = None,
                    name: str = "values") -> summary_pb2.HistogramProto:
    """The HistogramProto of `values` (see `histogram`)."""
    array, fmt = to_numpy_bits16(values, name)  # 16-bit floats arrive as their bit patterns
    if fmt is None:
        array = check_numeric(array, name)
        if array.dtype.itemsize <= 2:  # bool, (u)int8, (u)int16, float16: few enough patterns to count
            fmt = array.dtype.str
            array = array.view(f"u{array.dtype.itemsize}")
    check_histogram_args(array.shape, bins, max_bins, name)
    flat = array.reshape(-1)
    if fmt is not None and _bits.use_patterns(flat.size, fmt):
        lo, hi, total, squares, default_counts = _patterns(flat, fmt, name)
        flat = None
    else:
        if fmt is not None:  # float32 holds every 8/16-bit value exactly
            flat = _bits.pattern_values(fmt).take(flat)
        flat = flat.astype(_work_dtype(flat.dtype), copy=False)
        lo, hi, total, squares, default_counts = _floats(flat, name)
    if not (math.isfinite(total) and math.isfinite(squares)):
        what = "sum" if not math.isfinite(total) else "sum of squares"
        warnings.warn(f"{name}: the {what} of the values is beyond float64's range and is logged as inf "
                      f"(the buckets, min and max are exact)", stacklevel=3)
    if isinstance(bins, str) and bins in _DEFAULT_BINS:
        limits, counts = _compact(default_bucket_limits(), default_counts)
    else:
        if flat is None:  # NumPy's bins need the values themselves
            flat = _bits.pattern_values(fmt).take(array.reshape(-1))
        try:
            counts, edges = np.histogram(flat, bins=bins)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"bins: {exc}") from exc
        limits, counts = _compact(edges[1:].astype(np.float64), counts)
    if max_bins is not None and len(counts) > max_bins:
        limits, counts = _limit_buckets(limits, counts, int(max_bins))
    return summary_pb2.HistogramProto.FromString(wire.histogram_bytes(lo, hi, float(array.size), total, squares,
                                                                     limits, counts))


def _raw_number(value: Any, name: str) -> float:
    number = to_float(value, name)
    if math.isnan(number):
        raise ValueError(f"{name}: expected a number, got NaN")
    return number


def histogram_raw_proto(min: Any, max: Any, num: Any, sum: Any, sum_squares: Any, bucket_limits: Any,
                        bucket_counts: Any) -> summary_pb2.HistogramProto:
    """A HistogramProto from precomputed statistics, checked so that TensorBoard can draw it:
    bucket i counts values in (bucket_limits[i-1], bucket_limits[i]]; limits must never decrease,
    counts be finite and non-negative, min <= max unless num is 0, and nothing may be NaN."""
    low, high = _raw_number(min, "min"), _raw_number(max, "max")
    count, total, squares = _raw_number(num, "num"), _raw_number(sum, "sum"), _raw_number(sum_squares, "sum_squares")
    if low > high and count > 0:  # an empty histogram: TensorFlow writes min=DBL_MAX, max=-DBL_MAX
        raise ValueError(f"min and max: min {low} is above max {high}")
    if count < 0 or squares < 0:
        raise ValueError(f"{'num' if count < 0 else 'sum_squares'}: expected a non-negative number, "
                         f"got {count if count < 0 else squares}")
    limits = check_numeric(to_numpy(bucket_limits, "bucket_limits"), "bucket_limits").astype(np.float64).reshape(-1)
    counts = check_numeric(to_numpy(bucket_counts, "bucket_counts"), "bucket_counts").astype(np.float64).reshape(-1)
    if len(limits) != len(counts) or not len(limits):
        raise ValueError(f"bucket_limits and bucket_counts: expected the same, non-zero length, "
                         f"got {len(limits)} and {len(counts)}")
    if np.isnan(limits).any() or (np.diff(limits) < 0).any():  # equal edges: linspace over constant data
        raise ValueError("bucket_limits: expected non-decreasing right edges without NaN")
    if not (np.isfinite(counts).all() and counts.min() >= 0):
        raise ValueError(f"bucket_counts: expected finite, non-negative counts, "
                         f"got range [{counts.min()}, {counts.max()}]")
    return summary_pb2.HistogramProto(min=low, max=high, num=count, sum=total, sum_squares=squares,
                                      bucket_limit=limits.tolist(), bucket=counts.tolist())


def histogram(tag: str, values: Any, bins: Bins = "tensorflow",
              max_bins: Optional[int] = None) -> summary_pb2.Summary:
    """A histogram summary of `values` (any shape; flattened).

    `bins`: "tensorflow"/"default" for TensorBoard's exponential buckets, or anything
    numpy.histogram accepts (an int, a sequence of edges, "auto", "fd", ...; NumPy's
    [left, right) bucket semantics then apply). `max_bins` merges neighbouring buckets.
    """
    check_tag(tag)
    proto = histogram_proto(values, bins=bins, max_bins=max_bins, name="values")
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, histo=proto)])
