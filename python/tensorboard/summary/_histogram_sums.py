"""Float64 sum and sum of squares of histogram values, chunk by chunk, fast and without BLAS threads.

Sums are BLAS dots over rows of `_ROW` values: OpenBLAS computes a dot of up to 10,000 values on
the calling thread (its threads stall on a busy machine), and a dot is several times faster than
squaring and summing. NumPy < 2 (no `vecdot`) sums without BLAS. A running sum that overflows
is taken again at a smaller scale, so the logged sum is ±inf only when the sum itself is.
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["float64_sums", "finite_sum"]

_ROW = 8192  # values per BLAS dot (<= 10,000: OpenBLAS's threshold for threads)
_ONES = np.ones(_ROW)
_ONES.setflags(write=False)
_VECDOT = getattr(np, "vecdot", None)  # NumPy >= 2.0


def float64_sums(values: np.ndarray, spare: np.ndarray):
    """(sum, sum of squares) of float64 `values` (at most one chunk); `spare` (as long, float64) may be overwritten."""
    if _VECDOT is None:
        total = float(values.sum())
        np.square(values, out=spare[:values.size])
        return total, float(spare[:values.size].sum())
    rows = values.size // _ROW
    tail = values[rows * _ROW:]
    total = float(np.dot(tail, _ONES[:tail.size]))
    squares = float(np.dot(tail, tail))
    if rows:
        body = values[:rows * _ROW].reshape(rows, _ROW)
        total += float(_VECDOT(body, _ONES).sum())
        squares += float(_VECDOT(body, body).sum())
    return total, squares


def finite_sum(flat: np.ndarray, total: float) -> float:
    """`total`, the float64 sum of finite `flat`, or if a running sum overflowed (inf, or NaN from inf - inf),
    the sum again at a 2**-k scale (exact): ±inf only when the sum itself is beyond float64's range."""
    if math.isfinite(total):
        return total
    shift = flat.size.bit_length() + 1  # |a running sum| <= size * DBL_MAX < 2**shift * DBL_MAX
    with np.errstate(over="ignore"):
        scaled = np.ldexp(flat.astype(np.float64), -shift).sum()
        return float(np.ldexp(scaled, shift))
