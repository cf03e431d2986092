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

from tensorboard.events import wire
from tensorboard.src import summary_pb2
from tensorboard.summary import _histogram_counts as _counts
from tensorboard.summary import _histogram_patterns as _bits
from tensorboard.summary._common import check_tag
from tensorboard.summary._histogram_counts import default_bucket_limits
from tensorboard.values.convert import check_numeric, to_float, to_numpy, to_numpy_bits16

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
MAX_BINS = 1 << 16  # buckets a histogram may ask for: 65,536 (0.5 MB of edges); TensorBoard's default has 1,551


def _check_bins(bins: Bins) -> None:
    """Raises, naming `bins`, unless it is a default name, NumPy rule name, bucket count in [1, MAX_BINS]
    or a sequence of 2 to MAX_BINS + 1 finite, strictly increasing edges (checked before any allocation)."""
    if isinstance(bins, str):
        if bins not in _DEFAULT_BINS and bins not in _numpy_rules():
            raise ValueError(f"bins: expected 'tensorflow', 'default', one of NumPy's rules "
                             f"{sorted(_numpy_rules())}, a bucket count or a sequence of edges, got {bins!r}")
        return
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, (bool, np.bool_)):
        if not 1 <= bins <= MAX_BINS:
            raise ValueError(f"bins: a bucket count must be in [1, {MAX_BINS}], got {bins}")
        return
    if isinstance(bins, (bool, np.bool_, float, np.floating, bytes)) or not hasattr(bins, "__len__"):
        raise TypeError(f"bins: expected a str, an int or a sequence of edges, got {type(bins).__name__}")
    if len(bins) > MAX_BINS + 1:
        raise ValueError(f"bins: at most {MAX_BINS + 1} edges ({MAX_BINS} buckets), got {len(bins)}")
    try:
        edges = np.asarray(bins, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"bins: edges must be real numbers ({exc})") from None
    if edges.ndim != 1 or len(edges) < 2:
        raise ValueError(f"bins: a sequence of edges needs at least two (one bucket), got {np.asarray(bins).tolist()}")
    if not np.isfinite(edges).all():
        raise ValueError(f"bins: edges must be finite, got {edges[~np.isfinite(edges)][:3].tolist()} among them")
    if not (np.diff(edges) > 0).all():
        at = int(np.flatnonzero(np.diff(edges) <= 0)[0])
        raise ValueError(f"bins: edges must be strictly increasing, got {edges[at]} then {edges[at + 1]}")


def _numpy_rules():
    """The names NumPy's histogram accepts as `bins` ("auto", "fd", "sturges", ...)."""
    module = getattr(np.lib, "_histograms_impl", None) or getattr(np.lib, "histograms")
    return module._hist_bin_selectors


def _rule_bins(flat: np.ndarray, rule: str, lo: float, hi: float) -> int:
    """How many buckets NumPy's `rule` makes for `flat` (range [lo, hi]), computed without making them."""
    if lo == hi:
        return 1
    width = _numpy_rules()[rule](flat, (lo, hi))
    if not width:
        return 1
    with np.errstate(over="ignore", divide="ignore"):
        count = math.ceil((hi - lo) / width) if math.isfinite((hi - lo) / width) else math.inf
    return count


def check_histogram_args(shape: Sequence[int], bins: Bins = "tensorflow", max_bins: Optional[int] = None,
                         name: str = "values") -> None:
    """Raises, naming the argument, unless a histogram of an array of `shape` with `bins` and `max_bins`
    can be made (from the shape alone: the values themselves may still be computing)."""
    if max_bins is not None and (isinstance(max_bins, bool) or not isinstance(max_bins, (int, np.integer))
                                 or max_bins < 1):
        raise ValueError(f"max_bins: expected a positive int or None, got {max_bins!r}")
    if math.prod(int(d) for d in shape) == 0:
        raise ValueError(f"{name}: cannot make a histogram of an empty array")
    _check_bins(bins)


def _numpy_buckets(flat: np.ndarray, bins: Bins, lo: float, hi: float, name: str):
    """(right edges, counts) of NumPy's histogram of `flat` (min `lo`, max `hi`) with checked `bins`;
    values outside explicit edges are refused (NumPy would leave them out of every bucket)."""
    if isinstance(bins, str):
        count = _rule_bins(flat, bins, lo, hi)
        if count > MAX_BINS:
            raise ValueError(f"bins: rule {bins!r} makes {count} buckets for these values, more than "
                             f"{MAX_BINS}; pass a bucket count instead")
    elif hasattr(bins, "__len__"):
        first, last = float(bins[0]), float(bins[-1])
        if lo < first or hi > last:
            outside = int(np.count_nonzero((flat < first) | (flat > last)))
            raise ValueError(f"{name}: {outside} of {flat.size} values lie outside bins' range [{first}, {last}] "
                             f"(values span [{lo}, {hi}]); widen the edges or clip the values")
    try:
        counts, edges = np.histogram(flat, bins=bins)
    except (ValueError, TypeError) as exc:  # e.g. a range beyond float64 split into `bins` buckets
        raise ValueError(f"bins: {exc}") from exc
    return edges[1:].astype(np.float64), counts


def _check_written(limits: np.ndarray, counts: np.ndarray, num: int, check_limits: bool = True) -> None:
    """The invariant of every histogram written, O(buckets): non-negative counts that add up to `num`,
    under finite, strictly increasing limits (not checked for the default buckets, a subset of a sorted
    constant table; the last may be DBL_MAX). A failure here is a bug, so it is never written."""
    if len(counts) != len(limits) or not len(counts):
        raise RuntimeError(f"internal error: {len(counts)} histogram counts for {len(limits)} bucket limits")
    if counts.min() < 0 or int(counts.sum()) != num:
        raise RuntimeError(f"internal error: histogram counts {counts.tolist()[:8]}... do not add up to {num}")
    if check_limits and not (math.isfinite(limits[0]) and math.isfinite(limits[-1])
                             and (limits[1:] > limits[:-1]).all()):
        raise RuntimeError("internal error: histogram bucket limits are not finite and increasing")


def histogram_proto(values: Any, bins: Bins = "tensorflow", max_bins: Optional[int] = None,
                    name: str = "values") -> summary_pb2.HistogramProto:
    """The HistogramProto of `values`, as `histogram` makes it.

    Args:
        values: Finite numbers, any shape.
        bins: As `histogram`'s.
        max_bins: As `histogram`'s.
        name: The argument's name in error messages.

    Returns:
        A HistogramProto.

    Raises:
        ValueError: Empty, NaN or infinite values, values outside explicit edges, or invalid `bins`.
    """
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
    default = isinstance(bins, str) and bins in _DEFAULT_BINS
    if default:
        limits, counts = _compact(default_bucket_limits(), default_counts)
    else:
        if flat is None:  # NumPy's bins need the values themselves
            flat = _bits.pattern_values(fmt).take(array.reshape(-1))
        limits, counts = _compact(*_numpy_buckets(flat, bins, lo, hi, name))
    if max_bins is not None and len(counts) > max_bins:
        limits, counts = _limit_buckets(limits, counts, int(max_bins))
    _check_written(limits, counts, array.size, check_limits=not default)
    return summary_pb2.HistogramProto.FromString(wire.histogram_bytes(lo, hi, float(array.size), total, squares,
                                                                     limits, counts))


def _raw_number(value: Any, name: str) -> float:
    number = to_float(value, name)
    if math.isnan(number):
        raise ValueError(f"{name}: expected a number, got NaN")
    return number


def histogram_raw_proto(min: Any, max: Any, num: Any, sum: Any, sum_squares: Any, bucket_limits: Any,
                        bucket_counts: Any) -> summary_pb2.HistogramProto:
    """A HistogramProto from precomputed statistics, checked so that TensorBoard can draw it.

    Args:
        min: The smallest value (not above `max` unless `num` is 0).
        max: The largest value.
        num: The number of values, which the bucket counts add up to.
        sum: The sum of the values.
        sum_squares: The sum of their squares (non-negative).
        bucket_limits: The buckets' right edges, non-decreasing: bucket i counts values in
            (bucket_limits[i-1], bucket_limits[i]].
        bucket_counts: Finite, non-negative counts, one per limit.

    Returns:
        A HistogramProto.

    Raises:
        ValueError: NaN anywhere, or statistics that break the rules above.
    """
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
    counted = float(counts.sum())
    # `max` is an argument here; TensorBoard draws the buckets, and shows num
    if abs(counted - count) > 1e-9 * (count if count > 1 else 1.0):
        raise ValueError(f"bucket_counts and num: the counts add up to {counted}, num is {count}")
    return summary_pb2.HistogramProto(min=low, max=high, num=count, sum=total, sum_squares=squares,
                                      bucket_limit=limits.tolist(), bucket=counts.tolist())


def histogram(tag: str, values: Any, bins: Bins = "tensorflow",
              max_bins: Optional[int] = None) -> summary_pb2.Summary:
    """A histogram summary of `values` (any shape; flattened).

    Args:
        tag: The chart's name, a non-empty str.
        values: Finite numbers: an array or tensor of any framework.
        bins: "tensorflow" or "default" for TensorBoard's exponential buckets, or what numpy.histogram
            takes: a count up to MAX_BINS, finite strictly increasing edges, "auto", "fd", ... (NumPy's
            [left, right) buckets then apply; values outside explicit edges are refused, as NumPy would
            count them nowhere).
        max_bins: Merge neighbouring buckets until at most this many remain.

    Returns:
        A Summary proto with one histogram.

    Raises:
        TypeError: A tag that is not a str, non-numeric values, or `bins` of another type.
        ValueError: Empty, NaN or infinite values, values outside explicit edges, or invalid `bins`.
    """
    check_tag(tag)
    proto = histogram_proto(values, bins=bins, max_bins=max_bins, name="values")
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, histo=proto)])
