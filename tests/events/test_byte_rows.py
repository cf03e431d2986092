"""byte_rows: the bytes at each offset as rows, as a gather through one index per byte gives them."""
import numpy as np
import pytest

from tensorboard.events.byte_rows import byte_rows


def test_rows_equal_a_gather():
    data = np.random.default_rng(3).integers(0, 256, size=1000, dtype=np.uint8)
    starts = np.array([0, 5, 5, 992, 17, 400])
    for width in (1, 4, 8, 12):
        starts_in = starts[starts + width <= len(data)]
        rows = byte_rows(data, starts_in, width)
        assert rows.flags.c_contiguous and rows.dtype == np.uint8
        assert np.array_equal(rows, data[starts_in[:, None] + np.arange(width)])
    assert byte_rows(data, starts, 8).view("<u8").shape == (6, 1)


def test_empty_and_out_of_range():
    data = np.arange(10, dtype=np.uint8)
    assert byte_rows(data, [], 12).shape == (0, 12)
    assert byte_rows(data[:0], np.zeros(0, np.int64), 4).shape == (0, 4)
    with pytest.raises(IndexError):
        byte_rows(data, [8], 4)  # the row would run past the end
    with pytest.raises(IndexError):
        byte_rows(data[:3], [0], 4)
