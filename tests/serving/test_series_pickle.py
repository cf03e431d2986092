"""A Series sent by a preload worker (pickled) is the series it was: the same kept points, and, fed the same
points after, the same reservoir draws as a series that never travelled."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

from tensorboard.serving.series import Series


def _fed(series: Series, lo: int, hi: int) -> Series:
    steps = np.arange(lo, hi, dtype=np.int64)
    if series.numeric:
        series.add_many(steps, steps * 0.5, values=steps * 2.0)
    else:
        series.add_many(steps, steps * 0.5, blobs=[b"%d" % s for s in steps], lengths=np.ones(hi - lo, np.int64))
    return series


def _same(a: Series, b: Series) -> None:
    va, vb = a.view(), b.view()
    assert (a.n, a.seen, a.capacity, a.numeric) == (b.n, b.seen, b.capacity, b.numeric)
    assert np.array_equal(va.steps, vb.steps) and np.array_equal(va.walls, vb.walls)
    if a.numeric:
        assert np.array_equal(va.values, vb.values)
    else:
        assert va.blobs == vb.blobs and np.array_equal(va.lengths, vb.lengths)
    assert a.extent() == b.extent()


@pytest.mark.parametrize("numeric", [True, False])
@pytest.mark.parametrize("capacity, first", [(10, 0), (10, 4), (10, 10), (10, 37), (0, 100), (1000, 1500)])
def test_a_travelled_series_goes_on_as_the_one_that_stayed(numeric, capacity, first):
    stayed = _fed(Series(capacity, numeric), 0, first)
    travelled = pickle.loads(pickle.dumps(_fed(Series(capacity, numeric), 0, first), protocol=pickle.HIGHEST_PROTOCOL))
    _same(travelled, stayed)
    for lo, hi in ((first, first + 3), (first + 3, first + 200)):  # in place (reservoir draws), then growing
        _same(_fed(travelled, lo, hi), _fed(stayed, lo, hi))
    travelled.purge_from(first // 2)
    stayed.purge_from(first // 2)
    _same(travelled, stayed)
