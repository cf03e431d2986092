"""Counts values into TensorBoard's default histogram buckets in O(n), exactly, with their sums.

The default buckets: limits ±1e-12 * 1.1**k up to 1e20, then ±DBL_MAX, with 0 in the middle;
bucket i counts values in (limit[i-1], limit[i]], so a value's bucket is
`searchsorted(limits, value, side="left")`. The results here equal that exactly, without
a binary search per value:

* 32/64-bit floats (and wider ints, as float64): the top 16 bits of a value's bit pattern name a
  "cell" (sign, exponent and 7 (float32) or 4 (float64) mantissa bits: at most 6.25% wide, while a
  bucket is 9.5% wide), so a cell meets at most two buckets, split at one limit. The split is a
  position among the cell's patterns, so one table look-up and one integer add give the bucket:
  key = pattern + table[cell] (wrapping), bucket = key >> (16 or 48), the carry out of the low
  bits being "past the split". Negative values' patterns grow as the values fall, so their cells
  count into a mirrored index (`_MIRROR` - bucket).
* 8/16-bit inputs (bool, int8/16, uint8/16, float16, bfloat16): counted by bit pattern (`_histogram_patterns`).
* When a 256-value sample shows a few values holding much of the data (0/1 masks, ReLU outputs'
  zeros) or a few buckets holding most of it, those are counted by comparisons first, and only
  the other values go through the tables (`_histogram_plan`). When one bucket holds >= 1/8 of
  what goes through them, neighbouring values count into 4 lanes of counters.
* When min and max share a bucket there is nothing to count; when they are equal (constant
  data), not even a sum to take.

Work is done in chunks of `_CHUNK` values with per-thread buffers (4.8 MB for float32, 6.8 MB for
float64) kept between calls: every temporary stays bounded, and no call pays fresh pages. Chunks are
large (256k values) so that what the comparisons leave of masks, ReLU outputs and mostly-zero data
reaches the tables in few calls. Counts are added with `np.add.at` (`bincount` on a NumPy whose
add.at is slow, before 1.25); sums are in `_histogram_sums`. The tables (0.25 MB for float32,
0.5 MB for float64) are built on first use and shared by all threads.
"""
from __future__ import annotations

import bisect
import math
import sys
import threading
from typing import NamedTuple

import numpy as np

from tensorboard.summary._histogram_plan import NO_PLAN, count_by_comparisons, float32_at_most, sample_of, sample_plan
from tensorboard.summary._histogram_sums import finite_sum, float64_sums

__all__ = ["default_bucket_limits", "counts_and_range", "float_counts", "add_keyed"]

_CELL_BITS = 16  # a cell: the top 16 bits of a value's pattern
_NUM_CELLS = 1 << _CELL_BITS
_MIRROR = 1 << 12  # negative float32 cells count into index _MIRROR - bucket (> 2x the 1,551 buckets)
_LANE_STRIDE = 1 << 13  # keys per lane of counters (> _MIRROR); 4 lanes << 16 still fit a uint32 key
_LANES = 4
_SMALL = 768  # below this many values, a binary search per value is faster than the tables
_CHUNK = 1 << 18  # values per chunk (tests change it)
_FUSE_BYTES = 16 << 20  # from this size min and max are taken chunk by chunk (tests change it)
_HOT_MIN = 1 << 14  # from this many values, a sample may send common values or hot buckets to comparisons
_NUMPY = tuple(int(part) for part in np.__version__.split(".")[:2])
_FAST_ADD_AT = _NUMPY >= (1, 25)  # np.add.at got its fast path in 1.25 (before: ~50x slower than bincount)
_lock = threading.Lock()
_local = threading.local()
_tables: dict = {}


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


def _cached(key: str, build):
    """`build()`, computed once per process and shared read-only by all threads."""
    table = _tables.get(key)
    if table is None:
        with _lock:
            table = _tables.get(key)
            if table is None:
                table = _tables[key] = build()
    return table


_FORMATS = {"f": (np.float32, np.uint32), "d": (np.float64, np.uint64)}  # value dtype -> its bit patterns


def _key_table(char: str) -> np.ndarray:
    """Per cell of float32 ("f") or float64 ("d") patterns, what to add (wrapping) to a pattern of the cell so
    that `>> low bits` gives the value's bucket (negative cells: the mirrored index `_MIRROR - bucket`).

    A cell meets at most two buckets, split at a limit e. A float32 x is > e iff > s, the largest float32
    <= e; a float64 is compared with e itself. Past the split means (positive cells) low bits of the
    pattern above s's, or (negative cells, whose patterns grow as values fall) below them.
    """
    utype = _FORMATS[char][1]
    table = np.empty(_NUM_CELLS, dtype=utype)
    for start in range(0, _NUM_CELLS, 4096):  # in blocks: the temporaries stay ~0.5 MB
        table[start:start + 4096] = _key_block(char, np.arange(start, start + 4096, dtype=np.uint64))
    table.setflags(write=False)
    return table


def _key_block(char: str, cells: np.ndarray) -> np.ndarray:
    """`_key_table`'s entries for `cells` (uint64)."""
    ftype, utype = _FORMATS[char]
    low_bits = 8 * np.dtype(ftype).itemsize - _CELL_BITS
    limits = default_bucket_limits()
    big = sys.float_info.max
    ends = []
    for offset in (0, (1 << low_bits) - 1):  # a cell's first and last value
        patterns = ((cells << np.uint64(low_bits)) + np.uint64(offset)).astype(utype)
        with np.errstate(invalid="ignore"):
            value = patterns.view(ftype).astype(np.float64)
        ends.append(np.where(np.isnan(value), np.copysign(np.inf, value), value))  # NaN cells: never used
    low = np.clip(np.minimum(*ends), -big, big)
    high = np.clip(np.maximum(*ends), -big, big)
    base = np.searchsorted(limits, low, side="left")
    top = np.searchsorted(limits, high, side="left")
    if (top - base).max() > 1:
        raise AssertionError("histogram cells must meet at most two buckets")
    base = np.minimum(base, len(limits) - 1)
    has_split = top > base
    split = limits[base]
    if char == "f":
        split_bits = float32_at_most(split).view(np.uint32).astype(np.uint64)
    else:
        split_bits = split.view(np.uint64)
    unit = np.uint64(1 << low_bits)
    r = split_bits & (unit - np.uint64(1))
    negative = cells >= _NUM_CELLS // 2
    index = np.where(negative, _MIRROR - base - has_split, base).astype(np.uint64)
    # carry out of the low bits: positive, iff low > r; negative (index - 1 above), iff low >= r
    offset = np.where(has_split, np.where(negative, unit - r, unit - np.uint64(1) - r), np.uint64(0))
    return ((index << np.uint64(low_bits)) + offset - (cells << np.uint64(low_bits))).astype(utype)  # wraps


def counts_and_range(flat: np.ndarray):
    """(counts per default bucket, sum, sum of squares, min, max) of float32/float64 values; when some
    value is NaN or infinite, min or max says so and counts is None.

    From `_FUSE_BYTES` (data beyond the cache), min and max are taken chunk by chunk while each chunk is
    in cache from the counting: one pass over memory instead of three (10M float32 values 6 %, float64
    12 % faster). Unless a sample of the data is non-finite or in one bucket: then min and max come
    first, so that non-finite data is refused before any counting and constant data is not counted.
    """
    if flat.nbytes >= _FUSE_BYTES and flat.size >= _SMALL and _sample_is_spread(flat):
        counts, total, squares, lo, hi = _count_chunks(flat, fuse=True)
        if math.isfinite(lo) and math.isfinite(hi):
            return counts, finite_sum(flat, total), squares, lo, hi
        return None, math.nan, math.nan, lo, hi
    lo, hi = float(flat.min()), float(flat.max())
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return None, math.nan, math.nan, lo, hi
    return float_counts(flat, lo, hi) + (lo, hi)


def _sample_is_spread(flat: np.ndarray) -> bool:
    """Whether an evenly spaced sample of `flat` is finite and meets more than one default bucket."""
    sample = sample_of(flat)
    low, high = float(sample.min()), float(sample.max())
    if not (math.isfinite(low) and math.isfinite(high)):
        return False
    return _bucket(low) != _bucket(high)


def _bucket(value: float) -> int:
    """The default bucket of a float: bisect on the limits as a list, a fifth of a searchsorted call's cost."""
    return bisect.bisect_left(_cached("edges", default_bucket_limits().tolist), value)


def float_counts(flat: np.ndarray, lo: float, hi: float):
    """(counts per default bucket, sum, sum of squares) of finite float32/float64 values with min `lo`, max `hi`."""
    limits = default_bucket_limits()
    first, last = _bucket(lo), _bucket(hi)
    n = flat.size
    if n < _SMALL or first == last:
        if first == last:  # one bucket holds everything
            counts = np.zeros(len(limits), dtype=np.int64)
            counts[first] = n
            if lo == hi:  # constant data: no pass over it at all
                with np.errstate(over="ignore"):
                    return counts, n * lo, n * (lo * lo)
        else:
            counts = np.bincount(np.searchsorted(limits, flat, side="left"), minlength=len(limits))
        return (counts,) + _sums(flat)
    counts, total, squares = _count_chunks(flat, fuse=False)[:3]
    return counts, finite_sum(flat, total), squares


def _count_chunks(flat: np.ndarray, fuse: bool):
    """(counts, raw float64 sum, sum of squares, min, max) of at least `_SMALL` float32/float64 values,
    chunk by chunk; min and max (NaN when `fuse` is False) are taken from the chunks when `fuse`."""
    limits = default_bucket_limits()
    n = flat.size
    char = flat.dtype.char
    size = min(_CHUNK, n)
    buffers = _scratch(char, size)
    plan = sample_plan(flat, limits, _LANES) if n >= _HOT_MIN else NO_PLAN
    counts = np.zeros(len(limits), dtype=np.int64)
    value_counts = np.zeros(len(plan.values), dtype=np.int64)
    keyed = np.zeros(_LANE_STRIDE * plan.lanes, dtype=np.int64)  # by lane and key
    steps = _lane_steps(size, char) if plan.lanes > 1 else None
    table = _cached(char, lambda: _key_table(char))
    compare = plan.hot or len(plan.values)
    spare = buffers.key.view(flat.dtype)  # free until the tables run on what the comparisons leave
    total = squares = 0.0
    lows, highs = [], []
    with np.errstate(over="ignore", invalid="ignore"):  # sums near DBL_MAX
        for start in range(0, n, size):
            part = flat[start:start + size]
            if compare:
                rest = count_by_comparisons(part, plan, value_counts, counts, buffers.marks, buffers.rest, spare)
            else:
                rest = part
            if rest.size:
                _count_keys(rest, table, buffers, keyed, None if steps is None else steps[:rest.size])
            if fuse:  # while `part` is in cache
                lows.append(part.min())
                highs.append(part.max())
            part_total, part_squares = _chunk_sums(part if plan.hot else rest, buffers.wide)  # common values: below
            total += part_total
            squares += part_squares
        if len(plan.values):  # their sums are count * value: float64 products, exact to rounding
            np.add.at(counts, plan.value_buckets, value_counts)
            common, weights = plan.values.astype(np.float64), value_counts.astype(np.float64)
            total += float(np.dot(weights, common))
            squares += float(np.dot(weights, common * common))
    add_keyed(counts, keyed.reshape(plan.lanes, _LANE_STRIDE).sum(axis=0) if plan.lanes > 1 else keyed)
    if not fuse:
        return counts, total, squares, math.nan, math.nan
    return counts, total, squares, float(np.min(lows)), float(np.max(highs))  # NaN if any chunk's is


def add_keyed(counts: np.ndarray, keyed) -> None:
    """Adds counts by key (one lane: bucket b at index b, or `_MIRROR` - b for negative cells) to the
    bucket `counts`; the device kernel of bench/jax_step_overhead.py keys its counts the same way."""
    counts += keyed[:len(counts)]
    counts += keyed[_MIRROR - len(counts) + 1:_MIRROR + 1][::-1]


def _lane_steps(size: int, char: str) -> np.ndarray:
    """(i % _LANES) * _LANE_STRIDE, shifted to a key's index bits, for i < size (at least). Added to the
    keys of a chunk so that neighbouring values of one bucket count into different lanes: `np.add.at`
    slows down several times when they hit one counter at random intervals (ReLU outputs: half are 0)."""
    steps = _tables.get("lanes" + char)
    if steps is None or len(steps) < size:
        utype = _FORMATS[char][1]
        shift = utype(8 * np.dtype(utype).itemsize - _CELL_BITS)
        steps = (np.arange(size, dtype=utype) % utype(_LANES)) * (utype(_LANE_STRIDE) << shift)
        steps.setflags(write=False)
        _tables["lanes" + char] = steps
    return steps


def _add_counts(counts: np.ndarray, index: np.ndarray, weights: np.ndarray | None = None) -> None:
    """counts[i] += 1, or the matching int64 weight, for each i in `index` (intp)."""
    if _FAST_ADD_AT:  # with weights 3x faster than a weighted bincount (which also counts in float64)
        np.add.at(counts, index, 1 if weights is None else weights)
    else:
        counts += np.bincount(index, weights=weights, minlength=len(counts)).astype(np.int64, copy=False)


def _count_keys(part: np.ndarray, table: np.ndarray, buffers, keyed: np.ndarray, lane_steps) -> None:
    """Adds the keyed counts of `part` (at most one chunk) to `keyed`: a shift, a look-up, an add, a shift."""
    m = part.size
    cell, key = buffers.cell[:m], buffers.key[:m]  # the bucket indexes overwrite the cells once looked up
    shifted = cell.view(key.dtype) if key.itemsize == cell.itemsize else cell  # float64: a shift with no cast
    patterns = part.view(key.dtype)
    low_bits = key.dtype.type(8 * key.itemsize - _CELL_BITS)
    np.right_shift(patterns, low_bits, out=shifted, casting="unsafe")
    table.take(cell, out=key, mode="wrap")
    np.add(patterns, key, out=key)  # wraps by design
    if lane_steps is not None:
        np.add(key, lane_steps, out=key)
    np.right_shift(key, low_bits, out=shifted, casting="unsafe")
    _add_counts(keyed, cell)


class _Buffers(NamedTuple):
    cell: np.ndarray  # intp: cells, then bucket indexes
    key: np.ndarray  # the values' pattern type
    wide: np.ndarray  # float64: the same memory as `cell`, used after the counting of a chunk
    rest: np.ndarray  # the values' type: those left to the tables after comparisons
    marks: tuple  # 3 x bool: the comparisons' results


def _scratch(char: str, size: int) -> _Buffers:
    """This thread's buffers for chunks of `size` float32 ("f") or float64 ("d") values.

    Kept between calls (up to `_CHUNK` values each): fresh buffers this big come from mmap and
    cost page faults on every call.
    """
    scratch = getattr(_local, "scratch", None)
    if scratch is None:
        scratch = _local.scratch = {}
    buffers = scratch.get(char)
    if buffers is None or len(buffers.cell) < size:
        cell = np.empty(size, dtype=np.intp)  # one buffer for cells, indexes and widened values: less cache
        marks = tuple(np.empty(size, dtype=np.bool_) for _ in range(3))
        buffers = scratch[char] = _Buffers(cell, np.empty(size, dtype=_FORMATS[char][1]), cell.view(np.float64),
                                           np.empty(size, dtype=_FORMATS[char][0]), marks)
    return buffers


def _sums(flat: np.ndarray):
    """(sum, sum of squares) in float64, chunk by chunk."""
    total = squares = 0.0
    size = min(_CHUNK, flat.size)
    wide = _scratch(flat.dtype.char, size).wide if size > _SMALL else np.empty(size, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, flat.size, size):
            part_total, part_squares = _chunk_sums(flat[start:start + size], wide)
            total += part_total
            squares += part_squares
    return finite_sum(flat, total), squares


def _chunk_sums(part: np.ndarray, wide: np.ndarray):
    """(sum, sum of squares) of at most one chunk in float64; float32 values are widened into `wide` first."""
    if part.dtype != np.float64:
        np.copyto(wide[:part.size], part)
        part = wide[:part.size]
    return float64_sums(part, wide)
