"""Bounding a series for the page: evenly spread indices that keep the first and last point, and a
histogram's percentiles as TensorBoard's distributions dashboard computes them."""
from __future__ import annotations

import numpy as np

# basis points of TensorBoard's distribution view: min, -1.5, -1, -0.5 sigma, median, +0.5, +1, +1.5 sigma, max
PERCENTILE_BPS = (0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000)


def even_indices(n: int, k: int) -> np.ndarray:
    """At most `k` sorted indices into a series of `n` points: all of them when n <= k, else k evenly
    spread ones including 0 and n - 1. `k` must be at least 2."""
    if k < 2:
        raise ValueError(f"max_points must be at least 2 (the first and the last point), got {k}")
    if n <= k:
        return np.arange(n, dtype=np.int64)
    # with a stride >= 1, floor(x + 0.5) never maps two positions to one index
    return np.floor(np.linspace(0.0, n - 1, k) + 0.5).astype(np.int64)


def _buckets(lo: float, hi: float, limits: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """(left, right, count) rows of a HistogramProto as TensorBoard migrates it: empty buckets at
    both ends dropped, `min` the first left edge, `max` the last right edge, float32."""
    counts = np.asarray(counts, dtype=np.float64)
    filled = np.flatnonzero(counts > 0)
    if filled.size == 0:
        return np.zeros((0, 3), np.float32)
    start, end = int(filled[0]), int(filled[-1])
    inner = list(np.asarray(limits, dtype=np.float64)[start:end])
    return np.array([[lo] + inner, inner + [hi], counts[start:end + 1]], dtype=np.float32).transpose()


def histogram_percentiles(lo: float, hi: float, limits: np.ndarray, counts: np.ndarray) -> list[float]:
    """The values at PERCENTILE_BPS of one histogram, as TensorBoard's distribution charts compute
    them: cumulative weights over the buckets, interpolated linearly inside a bucket."""
    buckets = _buckets(lo, hi, limits, counts)
    if not buckets.size:
        return [0.0] * len(PERCENTILE_BPS)
    low, high = buckets[0][0], buckets[-1][1]
    rights = buckets[:, 1]
    weights = (buckets[:, 2] * PERCENTILE_BPS[-1] / (buckets[:, 2].sum() or 1.0)).cumsum()
    out: list[float] = []
    for bp in PERCENTILE_BPS:
        i = int(np.searchsorted(weights, bp, side="right"))
        value = None
        while i < len(weights):
            cum, prev = weights[i], (weights[i - 1] if i > 0 else 0.0)
            if cum == prev:
                i += 1
                continue
            left = low if (i == 0 or not prev) else max(rights[i - 1], low)
            right = min(rights[i], high)
            value = left + (bp - prev) * float(right - left) / (cum - prev)
            break
        if value is None:  # past the last weight: every later point is the maximum
            out.extend(float(high) for _ in PERCENTILE_BPS[len(out):])
            break
        out.append(float(value))
    return out
