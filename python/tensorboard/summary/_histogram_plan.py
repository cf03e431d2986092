"""Counts the values and buckets that hold most of a histogram's data by comparisons, before the tables.

A 256-value sample of the data picks the plan (`sample_plan`):

* common values: values that are each >= 1/8 of the sample, together >= `VALUE_SHARE` of it (0/1
  masks, ReLU outputs' zeros, padding). One equality test and one count each; their sums are
  count * value, so only the other values need the tables and the float64 sums.
* else hot buckets: buckets that are each >= 1/8 of the sample, together >= `HOT_SHARE` of it
  (mostly-tiny gradients, narrow noise around a constant). Two comparisons per bucket; the sums
  still need every value.
* and lanes: when one bucket still holds >= `LANE_SHARE` of what goes through the tables, the tables'
  counters are split into lanes (random hits on one counter slow `np.add.at` several times).

The values left over are copied out for the tables (`copy_kept`), word by word when they are few.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Plan", "sample_of", "sample_plan", "count_by_comparisons", "copy_kept", "float32_at_most", "NO_PLAN"]

SAMPLE = 256  # values sampled
VALUE_SHARE = 0.375  # common values pay for their own pass from about a quarter of the data
HOT_SHARE = 0.9  # hot buckets cost two passes each and save no sums: only for most of the data
LANE_SHARE = 0.125
_EACH = 0.125  # a common value or hot bucket holds at least this share of the sample
SPARSE_KEPT = (1 / 64, 0.1)  # shares of kept values that `copy_kept` copies word by word
_GROUP = 8  # values per word of a bool mask


class Plan(NamedTuple):
    values: np.ndarray  # common values (the data's dtype), counted by equality
    value_buckets: np.ndarray  # their default buckets
    hot: list  # (bucket, above, at_most): hot buckets counted by above < x <= at_most
    lanes: int  # lanes of counters for the values left to the tables


NO_PLAN = Plan(np.zeros(0), np.zeros(0, np.intp), [], 1)


def float32_at_most(limits: np.ndarray) -> np.ndarray:
    """The largest float32 <= each float64 limit: for float32 x, x > limit iff x > that float32."""
    with np.errstate(over="ignore"):
        rounded = limits.astype(np.float32)
    return np.where(rounded.astype(np.float64) > limits, np.nextafter(rounded, np.float32(-np.inf)), rounded)


def sample_of(flat: np.ndarray) -> np.ndarray:
    """An evenly spaced sample of about `SAMPLE` values of `flat` (a view)."""
    return flat[::max(1, flat.size // SAMPLE)]


def sample_plan(flat: np.ndarray, limits: np.ndarray, lanes: int) -> Plan:
    """The plan for finite float32/float64 `flat` from an evenly spaced sample; `lanes`: how many if any."""
    sample = sample_of(flat)
    hits = np.bincount(np.searchsorted(limits, sample, side="left"), minlength=len(limits))
    top = hits.max()
    if top < min(_EACH, LANE_SHARE) * sample.size:  # spread-out data (the usual case): nothing to plan
        return NO_PLAN
    distinct, freq = np.unique(sample, return_counts=True)  # 0.0 and -0.0 are one value (one bucket, sum 0)
    common = freq >= _EACH * sample.size
    taken = freq[common].sum()
    if taken >= VALUE_SHARE * sample.size:
        values = distinct[common]
        buckets = np.searchsorted(limits, values.astype(np.float64), side="left")
        np.subtract.at(hits, buckets, freq[common])  # what the sample leaves to the tables
        rest = sample.size - taken
        return Plan(values, buckets, [], lanes if rest and hits.max() >= LANE_SHARE * rest else 1)
    hits[0] = 0  # bucket 0 has no lower limit to compare with
    found = np.flatnonzero(hits >= _EACH * sample.size)
    if hits[found].sum() < HOT_SHARE * sample.size:  # the other values would cost a copy and the tables
        return NO_PLAN._replace(lanes=lanes if top >= LANE_SHARE * sample.size else 1)
    hot = []
    for bucket in found:
        edges = limits[bucket - 1:bucket + 1]
        if flat.dtype == np.float32:
            edges = float32_at_most(edges)
        hot.append((int(bucket), edges[0], edges[1]))
    return NO_PLAN._replace(hot=hot)


def count_by_comparisons(part: np.ndarray, plan: Plan, value_counts: np.ndarray, counts: np.ndarray,
                         marks: tuple, rest: np.ndarray, spare: np.ndarray) -> np.ndarray:
    """Counts `part`'s values of `plan`'s common values (into `value_counts`) or hot buckets (into
    `counts`); returns the values left to the tables (in `rest`, as long as `part`, when some were
    taken). `marks` (three bool arrays) and `spare` (of `part`'s dtype), at least as long as `part`,
    are overwritten."""
    taken_mask, this, second = (mark[:part.size] for mark in marks)
    taken = 0
    tests = [(i, value, None) for i, value in enumerate(plan.values)] + plan.hot
    for n, (slot, first, at_most) in enumerate(tests):
        mask = taken_mask if n == 0 else this
        if at_most is None:  # a common value
            np.equal(part, first, out=mask)
        else:  # a hot bucket: first < x <= at_most
            np.greater(part, first, out=mask)
            np.logical_and(mask, np.less_equal(part, at_most, out=second), out=mask)
        found = np.count_nonzero(mask)
        (value_counts if at_most is None else counts)[slot] += found
        taken += found
        if n:
            np.logical_or(taken_mask, this, out=taken_mask)
    if taken == 0:
        return part
    if taken == part.size:
        return part[:0]
    np.logical_not(taken_mask, out=taken_mask)
    return copy_kept(part, taken_mask, part.size - taken, rest, spare, this)


def copy_kept(part: np.ndarray, keep: np.ndarray, kept: int, out: np.ndarray, spare: np.ndarray,
              flags: np.ndarray) -> np.ndarray:
    """`part[keep]` (`kept` values, in order) in `out`; `spare` (`part`'s dtype) and `flags` (bool), as
    long as `part`, are overwritten.

    `compress` finds the kept values with NumPy's `nonzero`, which scans a mask that is at most 10 %
    True hit by hit (one memchr per hit): on a random mask that costs ~2x its branch-free scan of a
    denser one. So for such shares the 8-value groups holding a hit (>= 11.8 % of the groups) and then
    the hits within them (>= 12.5 % of their values) are found instead, both by the branch-free scan.
    """
    size = part.size
    if size < _GROUP or not SPARSE_KEPT[0] * size <= kept <= SPARSE_KEPT[1] * size:
        return np.compress(keep, part, out=out[:kept])
    whole = size - size % _GROUP
    words = keep[:whole].view(np.uint64)
    groups = np.flatnonzero(np.not_equal(words, 0, out=flags[:words.size]))
    rows = spare[:groups.size * _GROUP].reshape(-1, _GROUP)
    part[:whole].reshape(-1, _GROUP).take(groups, axis=0, out=rows, mode="clip")  # "clip": not buffered
    head = kept - int(np.count_nonzero(keep[whole:]))
    np.compress(words.take(groups).view(np.bool_), rows.reshape(-1), out=out[:head])
    np.compress(keep[whole:], part[whole:], out=out[head:kept])
    return out[:kept]
