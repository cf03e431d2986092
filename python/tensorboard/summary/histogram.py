"""Histogram summaries as the legacy `HistogramProto` (upstream migrates it to a tensor).

The default buckets are TensorBoard's exponential ones: limits ±1e-12 * 1.1**k up to 1e20,
then ±DBL_MAX, with 0 in the middle. Bucket i counts values in (limit[i-1], limit[i]].
Runs of empty buckets collapse to one entry and leading/trailing empty buckets are dropped,
as TensorFlow's encoder does.

Speed: instead of binary-searching ~3,100 edges per value, values are grouped by the top
bits of their float32 pattern (sign, exponent, 10 mantissa bits: cells narrower than 0.1%).
A lookup table maps each cell to its bucket; only values in the few cells that straddle a
bucket edge (about 1% of values) are placed by one exact comparison.

Memory: values are processed in chunks of `_CHUNK` (64K) so every temporary (cell indices,
buckets, float64 copies for the sums) stays a few hundred KB whatever the input size, and
the per-cell tables are compact (uint16 bucket + bool "straddles" flag: 1.5 MB per input
kind), built block by block. The counts don't depend on the chunking; the float64 sums
only differ in rounding (they are summed chunk by chunk).

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
_CHUNK = 1 << 16  # values per chunk: temporaries stay small and in cache (tests change it)
_BUILD_BLOCK = 1 << 15  # cells per block while building the tables (bounds the build's temporaries)
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


def _cell_tables(key: str):
    """(bucket, straddles) per float32 cell for "f32" input or for float64 input rounded to float32 ("f64").

    Built on first use of each kind, then shared (read-only) by all threads.
    """
    tables = _tables.get(key)
    if tables is None:
        with _lock:
            tables = _tables.get(key)
            if tables is None:
                tables = _build_cell_tables(key)
                _tables[key] = tables
    return tables


def _build_cell_tables(key: str):
    """The lowest bucket of each cell (uint16) and whether the cell also reaches the next bucket (bool).

    A cell's buckets are those of its first and last float32 (buckets are monotone in value
    within a sign). Computed in blocks of `_BUILD_BLOCK` cells so no temporary is bigger than
    a few hundred KB. For "f64", float64 input is rounded to float32 to find its cell, which
    can move a value into the neighbouring cell, so a cell covers its neighbours' buckets too.
    """
    limits = default_bucket_limits()
    big = sys.float_info.max
    low = np.empty(_NUM_CELLS, dtype=np.uint16)  # ~3,100 buckets fit in 16 bits
    high = np.empty(_NUM_CELLS, dtype=np.uint16)
    for start in range(0, _NUM_CELLS, _BUILD_BLOCK):
        patterns = np.arange(start, start + _BUILD_BLOCK, dtype=np.uint32) << np.uint32(_CELL_SHIFT)
        ends = []
        for offset in (0, (1 << _CELL_SHIFT) - 1):  # the first and last float32 of each cell
            with np.errstate(invalid="ignore"):  # NaN patterns
                value = (patterns + np.uint32(offset)).view(np.float32).astype(np.float64)
            value = np.where(np.isnan(value), np.copysign(np.inf, value), value)
            value = np.clip(value, -big, big)  # float64 beyond float32's range lands in the ±inf cells
            ends.append(np.searchsorted(limits, value, side="left"))
        low[start:start + _BUILD_BLOCK] = np.minimum(*ends)
        high[start:start + _BUILD_BLOCK] = np.maximum(*ends)
    if key == "f64":
        half = _NUM_CELLS // 2  # cells [0, half) are positive, [half, N) negative: never neighbours
        for part in (slice(0, half), slice(half, _NUM_CELLS)):
            lo, hi = low[part], high[part]
            lo_own, hi_own = lo.copy(), hi.copy()
            np.minimum(lo[1:], lo_own[:-1], out=lo[1:])
            np.minimum(lo[:-1], lo_own[1:], out=lo[:-1])
            np.maximum(hi[1:], hi_own[:-1], out=hi[1:])
            np.maximum(hi[:-1], hi_own[1:], out=hi[:-1])
    straddles = high != low
    if (high - low).max() > 1:
        raise AssertionError("histogram cells must span at most two buckets")
    low.setflags(write=False)
    straddles.setflags(write=False)
    return low, straddles


def _work_dtype(dtype: np.dtype):
    """float32 or float64: the float type `dtype`'s values are counted as (exactly representable)."""
    if dtype.kind in "biu":  # exact as float32 up to 16 bits, as float64 up to 2**53
        return np.dtype(np.float32 if dtype.itemsize <= 2 else np.float64)
    return np.dtype(np.float32 if dtype.itemsize <= 4 else np.float64)


def _chunks(flat: np.ndarray, work: np.dtype):
    """`flat` in pieces of `_CHUNK` values, each converted to `work` (a view when no conversion is needed)."""
    size = _CHUNK
    for start in range(0, flat.size, size):
        yield flat[start:start + size].astype(work, copy=False)


def _default_counts(flat: np.ndarray) -> np.ndarray:
    """Counts per default bucket for finite values, chunk by chunk."""
    limits = default_bucket_limits()
    work = _work_dtype(flat.dtype)
    if flat.size < _SMALL:  # a binary search beats the table lookups
        return np.bincount(np.searchsorted(limits, flat.astype(np.float64), side="left"), minlength=len(limits))
    low, straddles = _cell_tables("f32" if work == np.float32 else "f64")
    counts = np.zeros(len(limits), dtype=np.int64)
    size = min(_CHUNK, flat.size)
    cell = np.empty(size, dtype=np.intp)  # reused per chunk; intp so bincount and take don't convert
    bucket = np.empty(size, dtype=np.intp)
    for part in _chunks(flat, work):
        if work == np.float32:
            bits = part.view(np.uint32)
        else:
            with np.errstate(over="ignore"):  # beyond float32's range -> the ±inf cells, placed exactly
                bits = part.astype(np.float32).view(np.uint32)
        n = part.size
        np.right_shift(bits, np.uint32(_CELL_SHIFT), out=cell[:n])
        bucket[:n] = low.take(cell[:n])
        picked = np.flatnonzero(np.take(straddles, cell[:n]))
        if picked.size:
            edge = bucket[picked]
            bucket[picked] = edge + (part[picked] > limits[edge])
        counts += np.bincount(bucket[:n], minlength=len(limits))
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
    """(min, max, sum, sum of squares) in float64; ValueError naming `name` on NaN/Inf.

    The sums are taken chunk by chunk so only one chunk is ever widened to float64.
    """
    lo = flat.min()
    hi = flat.max()
    if not (math.isfinite(lo) and math.isfinite(hi)):
        bad = int(np.count_nonzero(~np.isfinite(flat)))
        raise ValueError(f"{name}: {bad} of {flat.size} values are NaN or infinite; "
                         "histograms need finite values")
    total = squares = 0.0
    with np.errstate(over="ignore", invalid="ignore"):  # sums of values near DBL_MAX overflow
        for part in _chunks(flat, np.dtype(np.float64)):
            total += float(part.sum())
            squares += float(np.dot(part, part))
    return float(lo), float(hi), total, squares


def histogram_proto(values: Any, bins: Bins = "tensorflow", max_bins: Optional[int] = None,
                    name: str = "values") -> summary_pb2.HistogramProto:
    """The HistogramProto of `values` (see `histogram`)."""
    flat = check_numeric(to_numpy(values, name), name).reshape(-1)
    if flat.size == 0:
        raise ValueError(f"{name}: cannot make a histogram of an empty array")
    lo, hi, total, squares = _finite_stats(flat, name)
    if max_bins is not None and (not isinstance(max_bins, (int, np.integer)) or max_bins < 1):
        raise ValueError(f"max_bins: expected a positive int or None, got {max_bins!r}")
    if isinstance(bins, str) and bins in ("tensorflow", "default"):
        limits, counts = _compact(default_bucket_limits(), _default_counts(flat))
    else:
        try:
            counts, edges = np.histogram(flat.astype(_work_dtype(flat.dtype), copy=False), bins=bins)
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
