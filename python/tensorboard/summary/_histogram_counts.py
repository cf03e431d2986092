"""Counts values into TensorBoard's default histogram buckets in O(n), exactly, with their sums.

The default buckets: limits ±1e-12 * 1.1**k up to 1e20, then ±DBL_MAX, with 0 in the middle;
bucket i counts values in (limit[i-1], limit[i]], so a value's bucket is
`searchsorted(limits, value, side="left")`. The results here equal that exactly, without
a binary search per value:

* 32/64-bit floats (and wider ints, as float64): a value's float32 bit pattern, shifted right by
  16, names a "cell" (sign, exponent, 7 mantissa bits: under 0.8% wide, while a bucket is 9.5%
  wide), so a cell meets at most two buckets. A 65,536-entry table gives each cell its lower
  bucket and the limit between its two buckets (+inf if it has one); bucket = base + (value >
  limit): two table look-ups, one comparison, then a `bincount`. float64 values find their cell
  through float32 rounding; their cells' ranges are widened by one float32 step so the float64
  comparison stays exact.
* 8/16-bit inputs (bool, int8/16, uint8/16, float16, bfloat16 bit patterns): one `bincount` of
  the bit patterns; buckets, min, max, sum and sum of squares then come from the <= 65,536
  distinct values and their counts.
* When a few buckets hold >= 90% of a 256-value sample (0/1 masks, mostly-zero gradients...),
  their values are counted by two comparisons each; only the others go through the tables.
* When min and max share a bucket there is nothing to count; when they are equal (constant
  data), not even a sum to take.

Work is done in chunks of `_CHUNK` values with per-thread buffers (~1 MB) kept between calls:
every temporary stays small and in cache, and no call pays fresh pages. Sums are float64, taken
without BLAS (its threads stall on a busy machine). The tables (~0.5 MB each for float32 and
float64 input, 0.25-0.75 MB per 16-bit format) are built on first use and shared by all threads.
"""
from __future__ import annotations

import sys
import threading

import numpy as np

__all__ = ["default_bucket_limits", "float_counts", "pattern_counts", "pattern_values", "use_patterns", "pattern_buckets"]

_CELL_SHIFT = 16  # float32 bits dropped per cell
_NUM_CELLS = 1 << (32 - _CELL_SHIFT)
_SMALL = 768  # below this many values, a binary search per value is faster than the tables
_CHUNK = 1 << 15  # values per chunk (tests change it)
_HOT_MIN = 1 << 14  # from this many values, buckets holding much of a sample are counted by comparisons
_HOT_SAMPLE = 256  # values sampled to find such buckets
_HOT_SHARE = 0.9  # ... when they hold this share of the sample (tests change it)
_PATTERN_CHUNK = 1 << 18  # 8/16-bit patterns per bincount (bounds its intp temporary)
_PATTERN_FACTOR = 1  # count by bit pattern from this many values per possible pattern (tests change it)
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


def _cell_tables(wide: bool):
    """(base bucket, limit between the cell's two buckets, +inf if none) per float32 cell.

    `wide`: for float64 values, whose float32 rounding may land one float32 step outside the
    range of the values that round into the cell.
    """
    limits = default_bucket_limits()
    big = sys.float_info.max
    patterns = np.arange(_NUM_CELLS, dtype=np.uint32) << np.uint32(_CELL_SHIFT)
    ends = []
    for offset in (0, (1 << _CELL_SHIFT) - 1):  # a cell's first and last float32
        with np.errstate(invalid="ignore"):
            value = (patterns + np.uint32(offset)).view(np.float32)
        ends.append(np.where(np.isnan(value), np.copysign(np.float32(np.inf), value), value))
    low, high = np.minimum(*ends), np.maximum(*ends)
    if wide:  # (±inf stays ±inf)
        with np.errstate(over="ignore"):
            low = np.nextafter(low, np.float32(-np.inf))
            high = np.nextafter(high, np.float32(np.inf))
    low = np.clip(low.astype(np.float64), -big, big)  # ±inf cells: float64 values beyond float32's range
    high = np.clip(high.astype(np.float64), -big, big)
    base = np.searchsorted(limits, low, side="left")
    top = np.searchsorted(limits, high, side="left")
    if (top - base).max() > 1:
        raise AssertionError("histogram cells must meet at most two buckets")
    split = np.where(top > base, limits[np.minimum(base, len(limits) - 1)], np.inf)
    return np.minimum(base, len(limits) - 1), split


def _f32_tables():
    """(base bucket as int32, split limit as float32) per cell: for float32 x and float64 limit e,
    x > e iff x > (the largest float32 <= e)."""
    base, split = _cell_tables(wide=False)
    with np.errstate(over="ignore"):
        split32 = split.astype(np.float32)
    split32 = np.where(split32.astype(np.float64) > split, np.nextafter(split32, np.float32(-np.inf)), split32)
    base = base.astype(np.int32)
    base.setflags(write=False)
    split32.setflags(write=False)
    return base, split32


def _f64_tables():
    """(base bucket as int32, split limit as float64) per cell, for float64 values rounded to float32."""
    base, split = _cell_tables(wide=True)
    base = base.astype(np.int32)
    base.setflags(write=False)
    split.setflags(write=False)
    return base, split


def float_counts(flat: np.ndarray, lo: float, hi: float):
    """(counts per default bucket, sum, sum of squares) of finite float32/float64 values with min `lo`, max `hi`."""
    limits = default_bucket_limits()
    first, last = np.searchsorted(limits, [lo, hi], side="left")
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
    f32 = flat.dtype == np.float32
    tables = _cached("f32", _f32_tables) if f32 else _cached("f64", _f64_tables)
    size = min(_CHUNK, n)
    buffers = _scratch(tables[1].dtype.char, size)
    wide, narrow, inside, handled = buffers[5:]
    hot = _hot_buckets(flat, f32) if n >= _HOT_MIN else []
    counts = np.zeros(len(limits), dtype=np.int64)
    total = squares = 0.0
    with np.errstate(over="ignore", invalid="ignore"):  # float64 -> float32 overflow; sums near DBL_MAX
        for start in range(0, n, size):
            part = flat[start:start + size]
            m = part.size
            rest = part
            if hot:  # count the values of the few buckets that hold most of the data by comparisons
                h, t, le = handled[:m], inside[:m], buffers[3][:m]
                h[:] = False
                for bucket, above, at_most in hot:
                    np.greater(part, above, out=t)
                    np.less_equal(part, at_most, out=le)
                    np.logical_and(t, le, out=t)
                    counts[bucket] += np.count_nonzero(t)
                    np.logical_or(h, t, out=h)
                rest = part[~h] if not h.all() else part[:0]
            if rest.size:
                _count_cells(rest, f32, tables, buffers, counts)
            if f32:
                np.copyto(wide[:m], part)
                wide_part = wide[:m]
            else:
                wide_part = part
            total += float(wide_part.sum())
            np.square(wide_part, out=wide[:m])
            squares += float(wide[:m].sum())
    return counts, total, squares


def _count_cells(part: np.ndarray, f32: bool, tables, buffers, counts: np.ndarray) -> None:
    """Adds the default-bucket counts of `part` (at most one chunk) to `counts`, by cell tables."""
    base_table, split_table = tables
    m = part.size
    cell, base, split, above, bucket, _, narrow = (b[:m] for b in buffers[:7])
    if f32:
        np.right_shift(part.view(np.uint32), _CELL_SHIFT, out=cell)
    else:
        np.copyto(narrow, part, casting="unsafe")  # rounds; beyond float32's range -> the ±inf cells
        np.right_shift(narrow.view(np.uint32), _CELL_SHIFT, out=cell)
    base_table.take(cell, out=base, mode="wrap")
    split_table.take(cell, out=split, mode="wrap")
    np.greater(part, split, out=above)
    np.add(base, above, out=bucket)
    counts += np.bincount(bucket, minlength=len(counts))


def _hot_buckets(flat: np.ndarray, f32: bool) -> list:
    """Buckets holding >= 1/8 of an evenly spaced sample, if together >= `_HOT_SHARE` of it: (bucket, above, at_most) each.

    Their values are counted by two comparisons (value > limit[b-1] and value <= limit[b]), much
    cheaper than the tables for data with few distinct values (masks, mostly zeros); the
    comparison thresholds are in the values' own dtype, exact for float32 (see `_f32_tables`).
    """
    limits = default_bucket_limits()
    sample = flat[::max(1, flat.size // _HOT_SAMPLE)]
    hits = np.bincount(np.searchsorted(limits, sample, side="left"), minlength=len(limits))
    hits[0] = 0  # bucket 0 has no lower limit to compare with
    found = np.flatnonzero(hits * 8 >= sample.size)
    if hits[found].sum() < _HOT_SHARE * sample.size:  # the other values would cost a copy and the tables
        return []
    hot = []
    for bucket in found:
        edges = limits[bucket - 1:bucket + 1]
        if f32:
            with np.errstate(over="ignore"):
                edges32 = edges.astype(np.float32)
            edges32 = np.where(edges32.astype(np.float64) > edges, np.nextafter(edges32, np.float32(-np.inf)), edges32)
            hot.append((int(bucket), edges32[0], edges32[1]))
        else:
            hot.append((int(bucket), edges[0], edges[1]))
    return hot


def _scratch(split_dtype: str, size: int):
    """This thread's buffers for chunks of `size` values: (cell, base, split, above, bucket, wide, narrow,
    inside, handled).

    Kept between calls (up to `_CHUNK` values each): fresh buffers this big come from mmap and
    cost page faults on every call.
    """
    scratch = getattr(_local, "scratch", None)
    if scratch is None:
        scratch = _local.scratch = {}
    buffers = scratch.get(split_dtype)
    if buffers is None or len(buffers[0]) < size:
        dtypes = (np.intp, np.int32, split_dtype, np.bool_, np.intp, np.float64, np.float32, np.bool_, np.bool_)
        buffers = scratch[split_dtype] = tuple(np.empty(size, dtype=dtype) for dtype in dtypes)
    return buffers


def _sums(flat: np.ndarray):
    """(sum, sum of squares) in float64, chunk by chunk (no BLAS: its threads stall on a busy machine)."""
    total = squares = 0.0
    size = min(_CHUNK, flat.size)
    wide = _scratch("f", size)[5] if size > _SMALL else np.empty(size, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        for start in range(0, flat.size, size):
            part = flat[start:start + size]
            w = wide[:part.size]
            np.copyto(w, part, casting="unsafe")
            total += float(w.sum())
            np.square(w, out=w)
            squares += float(w.sum())
    return total, squares


def pattern_values(fmt: str) -> np.ndarray:
    """The value of every bit pattern of `fmt` (a 1-2 byte NumPy dtype string, or "bfloat16"), as float32.

    float32 holds every such value exactly (bool, int8/16, uint8/16, float16, bfloat16).
    """
    def build():
        if fmt == "bfloat16":
            values = (np.arange(1 << 16, dtype=np.uint32) << np.uint32(16)).view(np.float32)
        else:
            dtype = np.dtype(fmt)
            values = np.arange(1 << (8 * dtype.itemsize), dtype=f"u{dtype.itemsize}").view(dtype)
            with np.errstate(invalid="ignore"):  # NaN patterns
                values = values.astype(np.float32)
        values.setflags(write=False)
        return values
    return _cached("values:" + fmt, build)


def use_patterns(size: int, fmt: str) -> bool:
    """Whether counting `size` values by bit pattern beats converting them to float32 (fixed cost ~ patterns)."""
    return size >= _PATTERN_FACTOR * (1 << (16 if fmt == "bfloat16" else 8 * np.dtype(fmt).itemsize))


def pattern_counts(bits: np.ndarray, fmt: str):
    """(present patterns, their counts) of 8/16-bit input given as unsigned bit patterns of `fmt`."""
    counts = np.zeros(len(pattern_values(fmt)), dtype=np.int64)
    for start in range(0, bits.size, _PATTERN_CHUNK):
        counts += np.bincount(bits[start:start + _PATTERN_CHUNK], minlength=len(counts))
    present = np.flatnonzero(counts)
    return present, counts[present]


def pattern_buckets(fmt: str) -> np.ndarray:
    """The default bucket of every bit pattern of `fmt` (NaN patterns: the last bucket; never used)."""
    def build():
        limits = default_bucket_limits()
        with np.errstate(invalid="ignore"):  # signalling NaN patterns
            values = pattern_values(fmt).astype(np.float64)
        buckets = np.minimum(np.searchsorted(limits, values, side="left"), len(limits) - 1)
        buckets.setflags(write=False)
        return buckets
    return _cached("buckets:" + fmt, build)
