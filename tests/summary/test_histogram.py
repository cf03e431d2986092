"""summary.histogram: TensorBoard's default buckets computed fast, and exactly."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from tensorboard import summary
from tensorboard.summary.histogram import default_bucket_limits, histogram_proto

LIMITS = default_bucket_limits()


def brute_force(values):
    """(limits, counts) by binary search: bucket i holds (limit[i-1], limit[i]], empty runs collapsed."""
    counts = np.bincount(np.searchsorted(LIMITS, np.asarray(values, np.float64), side="left"),
                         minlength=len(LIMITS))
    filled = np.flatnonzero(counts)
    limits, counts = LIMITS[filled[0]:filled[-1] + 1], counts[filled[0]:filled[-1] + 1]
    keep = (counts != 0) | np.append(counts[1:] != 0, True)
    return limits[keep].tolist(), counts[keep].tolist()


def test_default_limits_are_tensorboards():
    positive = LIMITS[len(LIMITS) // 2 + 1:]
    assert LIMITS[len(LIMITS) // 2] == 0.0
    assert positive[0] == 1e-12 and positive[-1] == np.finfo(np.float64).max
    assert positive[-2] < 1e20 <= positive[-2] * 1.1
    np.testing.assert_allclose(positive[1:-1] / positive[:-2], 1.1, rtol=1e-12)
    np.testing.assert_array_equal(LIMITS[:len(LIMITS) // 2], -positive[::-1])


def test_summary_shape_and_stats():
    values = np.array([[1.0, 2.0], [2.0, -3.5]], dtype=np.float32)
    (value,) = summary.histogram("w", values).value
    histo = value.histo
    assert value.tag == "w"
    assert (histo.min, histo.max, histo.num, histo.sum, histo.sum_squares) == (-3.5, 2.0, 4, 1.5, 21.25)
    assert (list(histo.bucket_limit), list(histo.bucket)) == brute_force(values.reshape(-1))


def test_values_on_bucket_edges_and_zero():
    edges = LIMITS[1:-1]
    values = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf), [0.0, -0.0, 5e-324]])
    for dtype in (np.float64, np.float32):
        histo = histogram_proto(values.astype(dtype))
        assert (list(histo.bucket_limit), list(histo.bucket)) == brute_force(values.astype(dtype))


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(st.sampled_from([np.float32, np.float64, np.int8, np.int32, np.int64, np.uint16, np.bool_]),
                  hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=40),
                  elements={"allow_nan": False, "allow_infinity": False}))
def test_matches_brute_force_for_any_finite_values(values):
    histo = histogram_proto(values)
    flat = values.reshape(-1).astype(np.float64)
    assert (list(histo.bucket_limit), list(histo.bucket)) == brute_force(flat)
    assert histo.num == flat.size and histo.min == flat.min() and histo.max == flat.max()
    if np.abs(flat).max() < 1e150:  # beyond, the float64 sums overflow (for us and NumPy alike)
        assert histo.sum == pytest.approx(flat.sum(), rel=1e-9, abs=1e-300)
        assert histo.sum_squares == pytest.approx(np.dot(flat, flat), rel=1e-9)


def test_large_float32_input_agrees_with_brute_force():
    values = np.random.default_rng(3).standard_normal(300_000).astype(np.float32) * 10.0 ** np.arange(-3, 3).repeat(
        50_000).astype(np.float32)
    histo = histogram_proto(values)
    assert (list(histo.bucket_limit), list(histo.bucket)) == brute_force(values)


def test_numpy_bins():
    values = np.arange(10.0)
    histo = histogram_proto(values, bins=[0, 5, 10])
    assert list(histo.bucket) == [5, 5] and list(histo.bucket_limit) == [5.0, 10.0]
    histo = histogram_proto(values, bins="auto")
    counts, edges = np.histogram(values, bins="auto")
    assert list(histo.bucket) == counts.tolist() and list(histo.bucket_limit) == edges[1:].tolist()


def test_max_bins_merges_neighbours():
    values = np.arange(100.0)
    histo = histogram_proto(values, bins=10, max_bins=3)
    assert list(histo.bucket) == [40, 40, 20]
    assert list(histo.bucket_limit) == [39.6, 79.2, 99.0]
    assert sum(histogram_proto(np.random.default_rng(0).standard_normal(1000), max_bins=7).bucket) == 1000


@pytest.mark.parametrize("values,error,match", [
    (np.array([]), ValueError, "^values: cannot make a histogram of an empty array"),
    (np.array([1.0, np.nan, np.inf]), ValueError, "^values: 2 of 3 values are NaN or infinite"),
    (np.array(["a"]), TypeError, "^values: expected numeric"),
    (None, TypeError, "^values: "),
])
def test_bad_values(values, error, match):
    with pytest.raises(error, match=match):
        summary.histogram("h", values)


def test_bad_bins_and_max_bins():
    with pytest.raises(ValueError, match="^bins: "):
        summary.histogram("h", [1, 2], bins="nonsense")
    with pytest.raises(ValueError, match="^max_bins: "):
        summary.histogram("h", [1, 2], max_bins=0)
    with pytest.raises(TypeError, match="^tag: "):
        summary.histogram(3, [1, 2])
