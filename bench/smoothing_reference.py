"""TensorBoard's scalar chart smoothing as a plain loop, one point at a time, as the web UI computes it:
the reference `tensorboard.reader.smooth` is checked against (tests/stats/test_smoothing.py) and timed
against (bench/reduce.py)."""
from __future__ import annotations

import math


def plain_smoothing(values, weight: float) -> list:
    """The smoothed series of `values` (floats) with `weight`, point by point."""
    constant = all(v == values[0] for v in values)
    last, count, out = 0.0, 0, []
    for value in values:
        if constant or not math.isfinite(value):
            out.append(value)
            continue
        last = last * weight + (1 - weight) * value
        count += 1
        out.append(last / (1 - weight ** count) if weight != 1 else last)
    return out
