"""The row order of the frames: `sort_order` equals NumPy's stable lexsort on any integer keys: small ranges
(folded into one key), ranges near int64's ends (where the folded sum wraps) and ranges too wide to fold."""
import numpy as np
import pytest

from tensorboard.reader._frames import sort_order

TOP, BOTTOM = np.iinfo(np.int64).max, np.iinfo(np.int64).min


def _key(rng, kind: str, n: int) -> np.ndarray:
    if kind == "small":
        return rng.integers(-5, 5, n).astype(np.int64)
    if kind == "int32":
        return rng.integers(0, 3, n).astype(np.int32)
    if kind == "top":
        return np.array([TOP - int(x) for x in rng.integers(0, 5, n)], np.int64)
    if kind == "bottom":
        return np.array([BOTTOM + int(x) for x in rng.integers(0, 5, n)], np.int64)
    return rng.integers(-2 ** 62, 2 ** 62, n).astype(np.int64)  # "wide": no folding


@pytest.mark.parametrize("kinds", [("small",), ("int32", "small"), ("small", "int32", "small"), ("top", "int32"),
                                   ("bottom", "top"), ("small", "wide"), ("wide", "int32", "top")])
def test_the_order_is_lexsorts(kinds):
    rng = np.random.default_rng(len(kinds))
    for n in (1, 2, 7, 300):
        keys = [_key(rng, kind, n) for kind in kinds]
        order = sort_order(keys)
        assert (np.arange(n) if order is None else order).tolist() == np.lexsort(keys).tolist()


def test_rows_in_order_already_need_no_order():
    steps = np.tile(np.arange(1000), 3)
    tags = np.repeat(np.arange(3), 1000).astype(np.int32)
    assert sort_order([steps, tags]) is None
    assert sort_order([steps[::-1].copy(), tags]) is not None
    assert sort_order([np.zeros(0, np.int64)]) is None
