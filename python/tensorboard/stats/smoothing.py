"""TensorBoard's smoothing, as its scalar charts draw it: an exponential moving average debiased by
1 - weight^n, where n counts the finite points so far. Non-finite points are passed through and
skipped; a constant series is left as it is. Vectorised: the moving average of a block of points is
one matrix product, and the carries between blocks are the same recurrence one level up."""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

_BLOCK = 64  # points per block: a 64 x 64 matrix product per block, log_64(n) levels of carries


def smooth(values: "Sequence[float] | np.ndarray", weight: float) -> np.ndarray:
    """The series TensorBoard draws for `values` at smoothing `weight` (clamped to [0, 1]).

    Args:
        values: a 1-D sequence of numbers (NaN and ±inf are passed through unchanged).
        weight: the smoothing slider's value; 0 leaves the series as it is.

    Returns:
        A float64 array as long as `values`.

    Raises:
        ValueError: `values` is not 1-D, or `weight` is not a number.
    """
    if isinstance(weight, bool) or not isinstance(weight, (int, float, np.number)) or math.isnan(weight):
        raise ValueError(f"weight must be a number in [0, 1], not {weight!r}")
    w = min(max(float(weight), 0.0), 1.0)
    series = np.array(values, dtype=np.float64)
    if series.ndim != 1:
        raise ValueError(f"values must be one series (1-D), got shape {series.shape}")
    if not len(series) or bool(np.all(series == series[0])):
        return series
    finite = np.isfinite(series)
    every = bool(finite.all())  # the usual case: no mask to gather and scatter through
    points = series if every else series[finite]
    if w == 1.0:  # the average never moves from 0 and there is no bias to divide out
        smoothed = np.zeros(len(points))
    else:
        smoothed = moving_average(points, w)
        smoothed /= 1.0 - powers(w, len(points))
    if every:
        return smoothed
    series[finite] = smoothed
    return series


def powers(w: float, n: int) -> np.ndarray:
    """w^1 ... w^n, as the products of two small tables of powers (np.power on every point is slow)."""
    blocks = -(-n // _BLOCK)
    low = w ** np.arange(1, _BLOCK + 1, dtype=np.float64)
    high = (w ** _BLOCK) ** np.arange(blocks, dtype=np.float64)
    return np.multiply.outer(high, low).ravel()[:n]


def moving_average(points: np.ndarray, w: float) -> np.ndarray:
    """m[i] = w * m[i-1] + (1 - w) * points[i], m[-1] = 0, for 0 <= w < 1."""
    n = len(points)
    if n == 0 or w == 0.0:
        return points.astype(np.float64, copy=True)
    blocks = -(-n // _BLOCK)
    padded = np.zeros(blocks * _BLOCK)
    padded[:n] = points
    lag = np.arange(_BLOCK)[:, None] - np.arange(_BLOCK)[None, :]
    decay = np.where(lag >= 0, (1.0 - w) * w ** np.maximum(lag, 0), 0.0)  # decay[j, k]: point k's share at j
    grid = np.empty((blocks, _BLOCK + 1))  # each block's points, then the average it starts from
    grid[:, :_BLOCK] = padded.reshape(blocks, _BLOCK)
    grid[:, _BLOCK] = 0.0
    if blocks > 1:
        # a block's average from 0 at its end (u), and the carry c[b+1] = W c[b] + u[b], W = w^64
        ends = grid[:-1, :_BLOCK] @ decay[-1]
        carry_weight = w ** _BLOCK
        grid[1:, _BLOCK] = moving_average(ends / (1.0 - carry_weight), carry_weight) if carry_weight < 1.0 \
            else np.cumsum(ends)
    kernel = np.vstack([decay.T, w ** np.arange(1, _BLOCK + 1)])  # the points' shares, then the carry's
    return (grid @ kernel).ravel()[:n]


def smoothed_column(frame, weight: float, by: tuple[str, ...] = ("run", "tag"), value: str = "value") -> np.ndarray:
    """`smooth` of `frame[value]` within each group of rows `by` names, in the frame's row order."""
    values = frame[value].to_numpy(np.float64)
    out = np.empty(len(values))
    for rows in frame.groupby(list(by), sort=False).indices.values():
        out[rows] = smooth(values[rows], weight)
    return out
