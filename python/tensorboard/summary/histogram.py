"""Histogram summaries as the legacy `HistogramProto` (upstream migrates it to a tensor).

The default buckets are TensorBoard's exponential ones: limits ±1e-12 * 1.1**k up to 1e20,
then ±DBL_MAX, with 0 in the middle. Bucket i counts values in (limit[i-1], limit[i]].
Runs of empty buckets collapse to one entry and leading/trailing empty buckets are dropped,
as TensorFlow's encoder does.

Speed: instead of binary-searching ~3,100 edges per value, values are grouped by the top
bits of their float32 pattern (sign, exponent, 10 mantissa bits: cells narrower than 0.1%)
with one bincount. A lookup table maps each cell to its bucket; only values in the few cells
that straddle a bucket edge (about 1% of values) are placed by one exact comparison.

NaN and ±Inf are rejected with a ValueError naming `values`: histograms with non-finite
min/max/sum can't be drawn, and silently dropping them would hide a diverged run.
"""
from __future__ import annotations

import math
import sys
import threading
from typing import Any, Optional, Sequence, Union

import numpy as np

from tensorboard.convert import check_numeric, to_numpy
from tensorboard.src import summary_pb2
from tensorboard.summary._common import check_tag

__all__ = ["histogram", "default_bucket_limits", "histogram_proto"]

_CELL_SHIFT = 13  # float32 bits dropped per cell: keeps sign, 8 exponent, 10 mantissa bits
_NUM_CELLS = 1 << (32 - _CELL_SHIFT)
_SMALL = 16384  # below this many values, plain binary search is faster than the cell tables
_lock = threading.Lock()
_tables: dict = {}

Bins = Union[str, int, Sequence[float], np.ndarray]


def default_bucket_limits() -> np.ndarray:
    """TensorBoard's default bucket right edges: -DBL_MAX, ..., -1e-12, 0, 1e-12, ..., DBL_MAX."""
    limits = _tables.get("limits")
    if limits is None:
        positive = []
        edge = 1e-12
        while edge < 1e20:  # repeated multiplication, like TensorFlow, so edges match exactly
            positive.append(edge)
            edge *= 1.1
        positive.append(sys.float_info.max)
        pos = np.array(positive, dtype=np.float64)
        limits = np.concatenate([-pos[::-1], [0.0], pos])
        limits.setflags(write=False)
        _tables["limits"] = limits
    return limits


def _cell_tables():
    """Per float32 cell: its lowest bucket, run starts for summing, cells needing a compare."""
    tables = _tables.get("cells")
    if tables is None:
        with _lock:
            tables = _tables.get("cells")
            if tables is None:
                tables = _build_cell_tables()
                _tables["cells"] = tables
    return tables


def _build_cell_tables():
    limits = default_bucket_limits()
    big = sys.float_info.max
    patterns = np.arange(_NUM_CELLS, dtype=np.uint64) << np.uint64(_CELL_SHIFT)
    ends = []
    for offset in (0, (1 << _CELL_SHIFT) - 1):  # the first and last float32 of each cell
        with np.errstate(invalid="ignore"):
            value = (patterns + np.uint64(offset)).astype(np.uint32).view(np.float32).astype(np.float64)
        value = np.where(np.isnan(value), np.copysign(np.inf, value), value)
        value = np.clip(value, -big, big)  # float64 beyond float32's range lands in the ±inf cells
        ends.append(np.searchsorted(limits, value, side="left"))
    low = np.minimum(*ends)
    high = np.maximum(*ends)
    # float64 input is rounded to float32 to find its cell, which can move a value into the
    # neighbouring cell; for it, a cell covers its own buckets and its neighbours'.
    low64, high64 = low.copy(), high.copy()
    for shift in (1, -1):
        neighbour = np.roll(np.arange(_NUM_CELLS), shift)
        same_sign = (neighbour < _NUM_CELLS // 2) == (np.arange(_NUM_CELLS) < _NUM_CELLS // 2)
        low64 = np.where(same_sign, np.minimum(low64, low[neighbour]), low64)
        high64 = np.where(same_sign, np.maximum(high64, high[neighbour]), high64)
    if (high64 - low64).max() > 1:
        raise AssertionError("histogram cells must span at most two buckets")
    tables = {}
    for key, lo, hi in (("f32", low, high), ("f64", low64, high64)):
        exact = lo != hi
        pure = ~exact
        # pure cells in value order are runs of one bucket; reduceat sums each run
        order = np.concatenate([np.arange(_NUM_CELLS - 1, _NUM_CELLS // 2 - 1, -1), np.arange(_NUM_CELLS // 2)])
        order = order[pure[order]]
        run_starts = np.flatnonzero(np.diff(lo[order], prepend=-1))
        tables[key] = (lo.astype(np.intp), exact, np.flatnonzero(exact), order, run_starts,
                       lo[order][run_starts].astype(np.intp))
    return tables


def _default_counts(flat: np.ndarray) -> np.ndarray:
    """Counts per default bucket for finite float32 or float64 values."""
    limits = default_bucket_limits()
    if flat.size < _SMALL:  # a binary search beats clearing the 2**19 cell counters
        return np.bincount(np.searchsorted(limits, flat.astype(np.float64), side="left"), minlength=len(limits))
    if flat.dtype == np.float32:
        low, exact, exact_index, order, run_starts, run_bucket = _cell_tables()["f32"]
        as32 = flat
    else:
        low, exact, exact_index, order, run_starts, run_bucket = _cell_tables()["f64"]
        with np.errstate(over="ignore"):  # beyond float32's range -> the ±inf cells, placed exactly
            as32 = flat.astype(np.float32)
    cell = as32.view(np.uint32) >> np.uint32(_CELL_SHIFT)
    per_cell = np.bincount(cell, minlength=_NUM_CELLS)
    counts = np.zeros(len(limits), dtype=np.int64)
    counts[run_bucket] = np.add.reduceat(per_cell[order], run_starts)
    if per_cell[exact_index].any():
        picked = np.flatnonzero(np.take(exact, cell))
        bucket = low[cell[picked]]
        bucket += flat[picked] > limits[bucket]
        counts += np.bincount(bucket, minlength=len(limits))
    return counts


def _compact(limits: np.ndarray, counts: np.ndarray):
    """Drops empty buckets at both ends and merges interior runs of empty buckets into one."""
    filled = np.flatnonzero(counts)
    if len(filled) == 0:
        return limits[:0], counts[:0]
    limits = limits[filled[0]:filled[-1] + 1]
    counts = counts[filled[0]:filled[-1] + 1]
    # keep every non-empty bucket and the last bucket of each empty run
    keep = counts != 0
    keep[:-1] |= counts[1:] != 0
    return limits[keep], counts[keep]


def _limit_buckets(limits: np.ndarray, counts: np.ndarray, max_bins: int):
    """Merges neighbouring buckets so that at most `max_bins` remain."""
    group = -(-len(counts) // max_bins)
    pad = (-len(counts)) % group
    if pad:  # pad at the end; the last group's right edge is the real last edge
        counts = np.concatenate([counts, np.zeros(pad, counts.dtype)])
        limits = np.concatenate([limits, np.repeat(limits[-1:], pad)])
    return limits[group - 1::group], counts.reshape(-1, group).sum(axis=1)


def _finite_stats(flat: np.ndarray, name: str):
    """(min, max, sum, sum of squares) in float64; ValueError naming `name` on NaN/Inf."""
    lo = flat.min()
    hi = flat.max()
    if not (math.isfinite(lo) and math.isfinite(hi)):
        bad = int(np.count_nonzero(~np.isfinite(flat)))
        raise ValueError(f"{name}: {bad} of {flat.size} values are NaN or infinite; "
                         "histograms need finite values")
    wide = flat if flat.dtype == np.float64 else flat.astype(np.float64)
    with np.errstate(over="ignore", invalid="ignore"):  # sums of values near DBL_MAX overflow
        total = float(wide.sum())
        squares = float(np.dot(wide, wide))
    return float(lo), float(hi), total, squares


def histogram_proto(values: Any, bins: Bins = "tensorflow", max_bins: Optional[int] = None,
                    name: str = "values") -> summary_pb2.HistogramProto:
    """The HistogramProto of `values` (see `histogram`)."""
    flat = check_numeric(to_numpy(values, name), name).reshape(-1)
    if flat.size == 0:
        raise ValueError(f"{name}: cannot make a histogram of an empty array")
    if flat.dtype.kind in "biu":  # exact as float32 up to 16 bits, as float64 up to 2**53
        flat = flat.astype(np.float32 if flat.dtype.itemsize <= 2 else np.float64)
    elif flat.dtype == np.float16:
        flat = flat.astype(np.float32)
    lo, hi, total, squares = _finite_stats(flat, name)
    if max_bins is not None and (not isinstance(max_bins, (int, np.integer)) or max_bins < 1):
        raise ValueError(f"max_bins: expected a positive int or None, got {max_bins!r}")
    if isinstance(bins, str) and bins in ("tensorflow", "default"):
        limits, counts = _compact(default_bucket_limits(), _default_counts(flat))
    else:
        try:
            counts, edges = np.histogram(flat, bins=bins)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"bins: {exc}") from exc
        limits, counts = _compact(edges[1:].astype(np.float64), counts)
    if max_bins is not None and len(counts) > max_bins:
        limits, counts = _limit_buckets(limits, counts, int(max_bins))
    return summary_pb2.HistogramProto(min=lo, max=hi, num=float(flat.size), sum=total, sum_squares=squares,
                                      bucket_limit=limits.tolist(), bucket=counts.astype(np.float64).tolist())


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
