"""summary.histogram: TensorBoard's default buckets computed fast, and exactly."""
import importlib
import re
import warnings

import numpy as np
import pytest
from bounds import squares_are_within_bound, sum_is_within_bound
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from upstream import upstream_read

import tensorboard
from tensorboard import summary
from tensorboard.summary.histogram import default_bucket_limits, histogram_proto, histogram_raw_proto

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
        # any summation order is within the stated bounds (terms may cancel: int64 extremes)
        assert sum_is_within_bound(histo.sum, flat)
        assert squares_are_within_bound(histo.sum_squares, flat)


def test_large_float32_input_agrees_with_brute_force():
    values = np.random.default_rng(3).standard_normal(300_000).astype(np.float32) * 10.0 ** np.arange(-3, 3).repeat(
        50_000).astype(np.float32)
    histo = histogram_proto(values)
    assert (list(histo.bucket_limit), list(histo.bucket)) == brute_force(values)


histogram_module = importlib.import_module("tensorboard.summary._histogram_counts")  # chunking and thresholds


def _hard_values(size, dtype):
    """`size` values over many decades, both signs, with exact bucket edges and their neighbours mixed in."""
    rng = np.random.default_rng(size)
    values = rng.standard_normal(size) * 10.0 ** rng.integers(-14, 22, size)
    edges = LIMITS[1:-1]
    special = np.concatenate([edges, np.nextafter(edges, np.inf), np.nextafter(edges, -np.inf), [0.0, -0.0, 5e-324]])
    where = rng.choice(size, min(size, len(special)), replace=False)
    values[where] = special[:len(where)]
    if np.dtype(dtype).kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(values, info.min / 2, info.max / 2).astype(dtype)  # halved: float64(int64 max) overflows
    with np.errstate(over="ignore"):
        values = values.astype(dtype)
    return np.where(np.isfinite(values), values, 1.0).astype(dtype)


@pytest.mark.parametrize("chunk", [histogram_module._CHUNK, 5000])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int16, np.int64])
def test_chunked_counts_equal_unchunked(monkeypatch, chunk, dtype):
    """Sizes just below, at and above one and several chunks: same buckets as one chunk and as brute force."""
    small = histogram_module._SMALL
    multiples = [m for m in (1, 3) if m * chunk >= small] or [-(-small // chunk)]  # one chunk, one between two
    for size in sorted({m * chunk + d for m in multiples for d in (-1, 0, 1)}):
        values = _hard_values(size, dtype)
        monkeypatch.setattr(histogram_module, "_CHUNK", chunk)
        chunked = histogram_proto(values)
        monkeypatch.setattr(histogram_module, "_CHUNK", 1 << 40)  # the whole input is one chunk
        whole = histogram_proto(values)
        expected = brute_force(values.astype(np.float64))
        assert (list(chunked.bucket_limit), list(chunked.bucket)) == expected
        assert (list(whole.bucket_limit), list(whole.bucket)) == expected
        assert (chunked.min, chunked.max, chunked.num) == (whole.min, whole.max, whole.num) == (
            float(values.min()), float(values.max()), float(size))
        for histo in (chunked, whole):  # two orders of the same additions: each within the stated bounds
            assert sum_is_within_bound(histo.sum, values)
            assert squares_are_within_bound(histo.sum_squares, values)


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
    for edges in ([5], np.array([5.0]), []):  # NumPy takes these and counts nothing
        with pytest.raises(ValueError, match="^bins: a sequence of edges needs at least two .*got "
                                               + re.escape(str(np.asarray(edges).tolist())) + "$"):
            summary.histogram("h", [1, 2], bins=edges)
    with pytest.raises(ValueError, match="^max_bins: "):
        summary.histogram("h", [1, 2], max_bins=0)
    with pytest.raises(TypeError, match="^tag: "):
        summary.histogram(3, [1, 2])


@pytest.mark.parametrize("values,what", [(np.array([1e300, 1.0]), "sum of squares"),
                                         (np.array([1.7e308, 1.7e308]), "sum")])
def test_sums_beyond_float64_are_logged_as_inf_with_a_warning(values, what):
    with pytest.warns(UserWarning, match=f"^values: the {what} of the values is beyond float64's range"):
        histo = histogram_proto(values)
    assert (histo.min, histo.max, histo.num) == (values.min(), values.max(), 2.0)
    assert np.isinf(histo.sum_squares) and sum(histo.bucket) == 2


@pytest.mark.parametrize("values,expected", [([1.7e308, 1.7e308, -1.7e308, -1.7e308] * 1000, 0.0),
                                             ([1.7e308, 1.7e308, -1.7e308], 1.7e308),
                                             ([-1.7e308, -1.7e308, 1.0, 1.7e308], -1.7e308 + 1.0)])
def test_a_sum_within_float64_is_logged_even_when_running_sums_overflow(values, expected):
    """Running sums of huge values may overflow (inf, or NaN from inf - inf) where the sum itself fits:
    the sum is then taken again at a smaller scale, and only the sum of squares is logged as inf."""
    with pytest.warns(UserWarning, match="^values: the sum of squares of the values is beyond") as caught:
        histo = histogram_proto(np.array(values))
    assert histo.sum == expected and len(caught) == 1


def test_finite_sums_warn_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        histogram_proto(np.array([1e150, -1e150, 3.0]))


RAW = dict(min=-1.0, max=2.0, num=3, sum=1.5, sum_squares=5.25, bucket_limits=[0.0, 1.0, 2.0],
           bucket_counts=[1, 1, 1])


def test_raw_histogram_keeps_what_it_is_given(tmp_path):
    torch = pytest.importorskip("torch")

    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_histogram_raw("raw", **dict(RAW, bucket_limits=np.array(RAW["bucket_limits"]),
                                              bucket_counts=torch.tensor([1, 1, 1]), num=np.int64(3)), global_step=4)
    ((step, histo),) = upstream_read(tmp_path)["runs"]["."]["histograms"]["raw"]
    assert step == 4 and (histo["min"], histo["max"], histo["num"], histo["sum"], histo["sum_squares"]) == (
        -1.0, 2.0, 3.0, 1.5, 5.25)
    assert list(histo["bucket_limit"]) == [0.0, 1.0, 2.0] and list(histo["bucket"]) == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("change", [
    dict(bucket_limits=[0.0, 0.0, 2.0], bucket_counts=[1, 0, 2]),  # linspace edges over constant data
    dict(min=np.finfo(np.float64).max, max=-np.finfo(np.float64).max, num=0, sum=0.0, sum_squares=0.0,
         bucket_counts=[0, 0, 0]),  # TensorFlow's empty histogram
    dict(bucket_limits=[0.0, 1.0, np.finfo(np.float64).max]),
])
def test_raw_histograms_tensorboard_can_draw_are_kept(tmp_path, change):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.add_histogram_raw("raw", **dict(RAW, **change), global_step=1)
    ((step, histo),) = upstream_read(tmp_path)["runs"]["."]["histograms"]["raw"]
    expected = dict(RAW, **change)
    assert step == 1 and list(histo["bucket_limit"]) == expected["bucket_limits"]
    assert list(histo["bucket"]) == expected["bucket_counts"] and histo["min"] == expected["min"]


@pytest.mark.parametrize("change,match", [
    (dict(min=np.nan), "^min: expected a number, got NaN"),
    (dict(min=3.0), "^min and max: min 3.0 is above max 2.0"),
    (dict(num=-1), "^num: expected a non-negative number"),
    (dict(sum_squares=-1.0), "^sum_squares: expected a non-negative number"),
    (dict(bucket_limits=[10.0, 5.0, 1.0]), "^bucket_limits: expected non-decreasing right edges"),
    (dict(bucket_limits=[0.0, np.nan, 2.0]), "^bucket_limits: expected non-decreasing right edges without NaN"),
    (dict(bucket_counts=[1, -1, 1]), r"^bucket_counts: expected finite, non-negative counts, got range \[-1.0, 1.0\]"),
    (dict(bucket_counts=[1, np.inf, 1]), "^bucket_counts: expected finite"),
    (dict(bucket_counts=[1, 1]), "^bucket_limits and bucket_counts: expected the same, non-zero length, got 3 and 2"),
    (dict(bucket_limits=[], bucket_counts=[]), "^bucket_limits and bucket_counts: .* got 0 and 0"),
])
def test_raw_histogram_refuses_what_cannot_be_drawn(tmp_path, change, match):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        with pytest.raises(ValueError, match=match):
            writer.add_histogram_raw("raw", **dict(RAW, **change), global_step=0)


@pytest.mark.parametrize("bins,match", [
    ([0.0, float("nan"), 2.0], r"^bins: edges must be finite"),
    ([0.0, float("inf")], r"^bins: edges must be finite"),
    ([0.0, 1.0, 1.0, 2.0], r"^bins: edges must be strictly increasing, got 1.0 then 1.0"),
    (10**9, r"^bins: a bucket count must be in \[1, 65536\], got 1000000000"),
    (0, r"^bins: a bucket count must be in"),
    (list(range(70_000)), r"^bins: at most 65537 edges"),
    ("nonsense", r"^bins: expected 'tensorflow', 'default', one of NumPy's rules"),
])
def test_bins_are_checked_before_anything_is_allocated(bins, match):
    with pytest.raises(ValueError, match=match):
        histogram_proto(np.arange(10.0), bins=bins)


def test_bins_of_the_wrong_type_raise_type_error_naming_bins():
    for bins in (True, 2.5, b"auto", None):
        with pytest.raises(TypeError, match="^bins: "):
            histogram_proto(np.arange(10.0), bins=bins)


@pytest.mark.parametrize("values", [np.arange(10.0), np.arange(10, dtype=np.int8),
                                    np.arange(10.0, dtype=np.float16).repeat(40_000)])
def test_values_outside_explicit_edges_are_refused_not_dropped(values):
    """NumPy (and so tensorboardX and torch) counts such values in no bucket while num counts them all."""
    with pytest.raises(ValueError, match=r"^values: \d+ of \d+ values lie outside bins' range \[2.0, 6.0\]"):
        histogram_proto(values, bins=[2.0, 4.0, 6.0])
    histo = histogram_proto(values, bins=[0.0, 4.0, 9.0])  # the edges are included: everything counted
    assert sum(histo.bucket) == histo.num == values.size


def test_a_rule_that_would_make_too_many_buckets_is_refused():
    values = np.concatenate([np.zeros(1000), np.linspace(0, 1e-9, 1000), [1e12]])
    with pytest.raises(ValueError, match=r"^bins: rule 'fd' makes \d+ buckets for these values, more than 65536"):
        histogram_proto(values, bins="fd")


def test_raw_counts_must_add_up_to_num():
    with pytest.raises(ValueError, match=r"^bucket_counts and num: the counts add up to 3.0, num is 4.0"):
        histogram_raw_proto(**dict(RAW, num=4))


@pytest.mark.parametrize("values,bins", [(np.random.default_rng(1).standard_normal(300_000), "tensorflow"),
                                         (np.random.default_rng(2).integers(0, 3, 100_000, np.uint8), "tensorflow"),
                                         (np.random.default_rng(3).standard_normal(5000).astype(np.float16), 7),
                                         (np.random.default_rng(4).standard_normal(100_000).astype(np.float32),
                                          "auto")])
def test_every_written_histogram_counts_add_up_to_num(values, bins):
    histo = histogram_proto(values, bins=bins, max_bins=50)
    assert min(histo.bucket) >= 0 and sum(histo.bucket) == histo.num == values.size
    assert all(a < b for a, b in zip(histo.bucket_limit, histo.bucket_limit[1:]))


def test_the_written_histogram_check_catches_bad_counts():
    from tensorboard.summary.histogram import _check_written

    with pytest.raises(RuntimeError, match="do not add up to 10"):
        _check_written(np.array([1.0, 2.0]), np.array([17, -7]), 10)
    with pytest.raises(RuntimeError, match="do not add up to 10"):
        _check_written(np.array([4.0, 6.0]), np.array([3, 2]), 10)
