"""Histograms of 8/16-bit input (bool, int8/16, uint8/16, float16, bfloat16), counted by bit pattern.

The bit patterns are counted with `np.add.at` into this thread's counters (1.1 MB for 16-bit
formats, kept between calls); buckets, min, max, sum and sum of squares then come from the
<= 65,536 distinct values and their counts, with per-pattern tables built once per process.
"""
from __future__ import annotations

import threading

import numpy as np

from tensorboard.summary._histogram_counts import _add_counts, _cached, default_bucket_limits

__all__ = ["pattern_values", "use_patterns", "pattern_counts", "bucket_counts", "pattern_buckets"]

_PATTERN_CHUNK = 1 << 16  # 8/16-bit patterns per intp copy (a 0.5 MB buffer per thread)
_PATTERN_FACTOR = 1  # count by bit pattern from this many values per possible pattern (tests change it)
_local = threading.local()


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
    """Whether counting `size` values by bit pattern beats converting them to float32 (fixed cost ~ patterns).

    Measured crossovers: ~256 values for 8-bit formats, ~32k for 16-bit ones (float16 normal values:
    20k 98 vs 88 us as float32, 40k 122 vs 134 us).
    """
    wide = fmt == "bfloat16" or np.dtype(fmt).itemsize == 2
    return size >= _PATTERN_FACTOR * (1 << 15 if wide else 1 << 8)


def pattern_counts(bits: np.ndarray, fmt: str):
    """(present patterns, their counts) of 8/16-bit input given as unsigned bit patterns of `fmt`.

    The counters (0.5 MB for 16-bit formats) and the intp copy of each chunk are this thread's,
    kept between calls; present patterns are found on a bool mask, whose scan is branch-free
    (`flatnonzero` of the int64 counters themselves took 4x as long: 98 vs 24 us for 65,536).
    """
    counts, index, mask = _pattern_scratch(len(pattern_values(fmt)))
    counts.fill(0)
    for start in range(0, bits.size, _PATTERN_CHUNK):
        part = bits[start:start + _PATTERN_CHUNK]
        np.copyto(index[:part.size], part)  # add.at's fast path takes intp indexes only
        _add_counts(counts, index[:part.size])
    present = np.flatnonzero(np.not_equal(counts, 0, out=mask))
    return present, counts[present]


def bucket_counts(present: np.ndarray, counts: np.ndarray, fmt: str) -> np.ndarray:
    """Default-bucket counts of patterns `present` of `fmt` seen `counts` times (int64)."""
    total = np.zeros(len(default_bucket_limits()), dtype=np.int64)
    _add_counts(total, pattern_buckets(fmt)[present], counts)
    return total


def _pattern_scratch(patterns: int):
    """This thread's (counters, intp chunk, bool mask) for counting `patterns` possible bit patterns."""
    scratch = getattr(_local, "patterns", None)
    if scratch is None:
        scratch = _local.patterns = {}
    buffers = scratch.get(patterns)
    if buffers is None or len(buffers[1]) < _PATTERN_CHUNK:
        buffers = scratch[patterns] = (np.empty(patterns, dtype=np.int64), np.empty(_PATTERN_CHUNK, dtype=np.intp),
                                       np.empty(patterns, dtype=np.bool_))
    return buffers


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
