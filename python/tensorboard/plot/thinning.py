"""Fewer points to draw, the same picture: a line of n points keeps, in each of about k/4 stretches of
its index range (split as the report splits a series, `report.downsample.even_indices`), the first
point and the lowest and highest values, plus its last point. Every extremum a stretch holds is
drawn, so a spike is never thinned away, and an unthinned series is kept as it is."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from tensorboard.report.downsample import even_indices


def extrema_indices(columns: Sequence[np.ndarray], max_points: int) -> np.ndarray:
    """Sorted indices to keep of series that share an index (a mean and its band's edges): every one
    of them when n <= max_points, else each stretch's first point, the last point, and the argmin and
    argmax of every column in each stretch (NaN is never an extremum).

    Args:
        columns: 1-D float arrays of one length n.
        max_points: About how many points to keep (at least 4); more columns keep a little more.

    Returns:
        An int64 array of indices into the columns, ascending, without repeats.
    """
    n = len(columns[0]) if columns else 0
    if n <= max_points:
        return np.arange(n, dtype=np.int64)
    stretches = max(1, max_points // (2 * len(columns) + 1))
    starts = even_indices(n, stretches + 1)[:-1]
    keep = [starts, np.asarray([n - 1])]
    for column in columns:
        keep += [_first_where(column, starts, np.fmin), _first_where(column, starts, np.fmax)]
    return np.unique(np.concatenate(keep)).astype(np.int64)


def _first_where(column: np.ndarray, starts: np.ndarray, pick) -> np.ndarray:
    """The index of the first point in each stretch equal to the stretch's `pick` (fmin or fmax)."""
    best = pick.reduceat(column, starts)
    lengths = np.diff(np.append(starts, len(column)))
    stretch = np.repeat(np.arange(len(starts)), lengths)
    hits = np.flatnonzero(column == best[stretch])  # a stretch of NaN only has no hit
    _, first = np.unique(stretch[hits], return_index=True)
    return hits[first]
