"""Error bounds for float64 sums taken in an order that depends on the host, as docs/guarantees.md states them.

A histogram's `sum` and `sum_squares` are summed by BLAS dots and NumPy reductions, whose order of additions
depends on the CPU's kernel (OpenBLAS picks an AVX-512, AVX2 or SSE kernel at run time). Any order of the same
float64 additions is within the classic bound of the exact value (Higham, "Accuracy and Stability of Numerical
Algorithms", 2nd ed., eq. 4.4: |error| <= gamma(n - 1) * sum|v|, gamma(k) = k*u / (1 - k*u), u = 2**-53), so
tests check that bound against `math.fsum`, the exactly rounded sum, and never a value one kernel happens to give.
"""
from __future__ import annotations

import math

import numpy as np

UNIT_ROUNDOFF = 2.0 ** -53
# A sum that overflowed is taken again at a power-of-two scale (summary/_histogram_sums.finite_sum), exact but
# for values that fall below float64's normal range there: a term of at most this much.
UNDERFLOW = 1e-300


def gamma(k: int) -> float:
    """Higham's gamma_k = k*u / (1 - k*u): the relative bound of k roundings in a row."""
    return k * UNIT_ROUNDOFF / (1.0 - k * UNIT_ROUNDOFF)


def _widened(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).reshape(-1)


def sum_error_bound(values) -> float:
    """How far a float64 sum of `values` in any order may be from the exact sum: n roundings (a product by a
    count may round once, then n - 1 additions) of the magnitudes summed."""
    wide = _widened(values)
    return gamma(wide.size) * math.fsum(np.abs(wide)) + UNDERFLOW


def squares_error_bound(values) -> float:
    """The same for the sum of squares: a square (and a product by a count) rounds twice, then n - 1 additions."""
    wide = _widened(values)
    return gamma(wide.size + 1) * math.fsum(wide * wide) + UNDERFLOW


def sum_is_within_bound(got: float, values) -> bool:
    """`got` is within sum_error_bound of the exactly rounded sum of `values` (as float64)."""
    return abs(got - math.fsum(_widened(values))) <= sum_error_bound(values)


def squares_are_within_bound(got: float, values) -> bool:
    """`got` is within squares_error_bound of the exactly rounded sum of squares of `values` (as float64)."""
    wide = _widened(values)
    return abs(got - math.fsum(wide * wide)) <= squares_error_bound(values)
