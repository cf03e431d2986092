"""`tensorboard.reader.smooth` against a line-by-line transcription of the UI's smoothing (the debiased
exponential moving average of TensorBoard's scalar charts), on hostile series and every kind of weight."""
import math

import numpy as np
import pytest
from upstream import REPO
from waiting import module_from_file

from tensorboard.reader import smooth

REFERENCE = module_from_file("smoothing_reference", REPO / "bench" / "smoothing_reference.py")
WEIGHTS = (0.0, 0.6, 0.9, 0.999, 1.0)


def ui_smoothing(values, weight):
    """TensorBoard's scalar chart smoothing, one point at a time, as the web UI computes it."""
    return REFERENCE.plain_smoothing([float(v) for v in values], weight)


# How far our smoothing may be from the reference loop, in units of 2**-53 times the smoothing of the magnitudes
# |x| at the same point: a block's moving average is a matrix product of up to 64 terms (gamma_64), the carries
# between blocks a short recurrence, and the reference's own loop rounds a few times a point. Measured: at most 3.4.
# Relative to the value itself no bound holds where the average cancels towards 0 (BLAS kernels add in other orders).
ROUNDINGS = 160


def assert_within_rounding(got, want, values, weight):
    """|got - want| <= ROUNDINGS * 2**-53 * (the UI's smoothing of |values|), wherever `want` is finite."""
    finite = np.isfinite(want)
    magnitudes = np.array(ui_smoothing(np.abs(np.asarray(values, dtype=np.float64)), weight), dtype=np.float64)
    error = np.abs(got[finite] - want[finite])
    bound = ROUNDINGS * 2.0 ** -53 * magnitudes[finite]
    assert (error <= bound).all(), float(np.max(error / np.maximum(bound, 1e-300)))


def hostile_series():
    rng = np.random.default_rng(7)
    noisy = rng.standard_normal(5000) * 3 + 1
    noisy[rng.random(5000) < 0.03] = np.nan
    noisy[rng.random(5000) < 0.01] = np.inf
    noisy[rng.random(5000) < 0.01] = -np.inf
    return {
        "nan first and last": [math.nan, 1.0, 2.0, math.nan, 4.0, math.nan],
        "infinities": [math.inf, 1.0, -math.inf, 3.0, math.inf, 5.0],
        "constant": [2.5] * 100,
        "constant infinity": [math.inf] * 3,
        "single point": [42.0],
        "huge values": [1e30, -1e30, 3e30, 1e30, 2e30, -5e29],
        "all non-finite": [math.nan, math.inf, -math.inf],
        "empty": [],
        "noisy, long": noisy.tolist(),
        "steps across blocks": np.arange(200, dtype=float).tolist(),
    }


@pytest.mark.parametrize("weight", WEIGHTS)
@pytest.mark.parametrize("name", list(hostile_series()))
def test_equals_the_ui_on_hostile_series(name, weight):
    values = hostile_series()[name]
    got = smooth(values, weight)
    want = np.array(ui_smoothing(values, weight), dtype=np.float64)
    assert got.dtype == np.float64 and got.shape == (len(values),)
    same_kind = np.isnan(got) == np.isnan(want)
    assert same_kind.all()
    finite = np.isfinite(want)
    assert np.array_equal(got[~finite], want[~finite], equal_nan=True)  # passed through as they are
    assert_within_rounding(got, want, values, weight)


def test_the_weight_is_clamped_to_0_and_1():
    values = [1.0, 5.0, 2.0, 8.0]
    assert smooth(values, -3).tolist() == smooth(values, 0).tolist() == values
    assert smooth(values, 7).tolist() == smooth(values, 1).tolist()


def test_a_million_points_match_in_float64():
    values = np.random.default_rng(1).standard_normal(1_000_000).cumsum()
    for weight in (0.6, 0.999):
        want = np.array(ui_smoothing(values[:20000], weight))
        assert_within_rounding(smooth(values, weight)[:20000], want, values[:20000], weight)


@pytest.mark.parametrize("bad", [None, "0.5", math.nan, True])
def test_a_weight_that_is_no_number_is_refused(bad):
    with pytest.raises(ValueError, match="weight must be a number"):
        smooth([1.0, 2.0], bad)


def test_values_must_be_one_series():
    with pytest.raises(ValueError, match=r"values must be one series \(1-D\), got shape \(2, 2\)"):
        smooth([[1.0, 2.0], [3.0, 4.0]], 0.5)
