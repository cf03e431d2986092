"""summary.pr_curve / pr_curve_raw: the [6, num_thresholds] float32 layout."""
import numpy as np
import pytest

from tensorboard import summary
from tensorboard.src import plugin_data_pb2, types_pb2


def rows(proto):
    (value,) = proto.value
    assert value.tensor.dtype == types_pb2.DT_FLOAT and value.metadata.plugin_data.plugin_name == "pr_curves"
    shape = [d.size for d in value.tensor.tensor_shape.dim]
    meta = plugin_data_pb2.PrCurvePluginData.FromString(value.metadata.plugin_data.content)
    assert shape == [6, meta.num_thresholds]
    return np.frombuffer(value.tensor.tensor_content, "<f4").reshape(shape)


def test_counts_by_threshold():
    labels = [True, False, True, False]
    predictions = [0.9, 0.8, 0.3, 0.1]
    tp, fp, tn, fn, precision, recall = rows(summary.pr_curve("pr", labels, predictions, num_thresholds=3))
    # thresholds 0, 0.5, 1: positive when floor(p * 2) >= i
    assert tp.tolist() == [2, 1, 0] and fp.tolist() == [2, 1, 0]
    assert tn.tolist() == [0, 1, 2] and fn.tolist() == [0, 1, 2]
    np.testing.assert_allclose(precision, [0.5, 0.5, 0.0])
    np.testing.assert_allclose(recall, [1.0, 0.5, 0.0])


def test_weights():
    tp, fp, *_ = rows(summary.pr_curve("pr", [1, 0], [1.0, 1.0], num_thresholds=2, weights=[3.0, 0.5]))
    assert tp.tolist() == [3.0, 3.0] and fp.tolist() == [0.5, 0.5]
    tp, *_ = rows(summary.pr_curve("pr", [1, 1], [0.2, 1.0], num_thresholds=2, weights=2))
    assert tp.tolist() == [4.0, 2.0]


def test_raw():
    data = [np.arange(4) * (i + 1) for i in range(6)]
    np.testing.assert_array_equal(rows(summary.pr_curve_raw("r", *data, num_thresholds=4)), np.stack(data))


@pytest.mark.parametrize("kwargs,match", [
    (dict(labels=[1, 0], predictions=[0.5]), "^labels and predictions: "),
    (dict(labels=[1, 2], predictions=[0.5, 0.5]), "^labels: "),
    (dict(labels=[1, 0], predictions=[0.5, 1.5]), "^predictions: "),
    (dict(labels=[1, 0], predictions=[0.5, 0.5], num_thresholds=0), "^num_thresholds: "),
    (dict(labels=[1, 0], predictions=[0.5, 0.5], weights=[1, 2, 3]), "^weights: "),
    # weights that would write negative counts, recalls below 0 or NaN curves
    (dict(labels=[1, 0], predictions=[0.5, 0.5], weights=[-1.0, 2.0]),
     r"^weights: expected finite, non-negative weights, got range \[-1.0, 2.0\]$"),
    (dict(labels=[1, 0], predictions=[0.5, 0.5], weights=[np.nan, 2.0]), "^weights: .* got NaN$"),
    (dict(labels=[1, 0], predictions=[0.5, 0.5], weights=[np.inf, 2.0]), "^weights: expected finite"),
    (dict(labels=[1, 0], predictions=[0.5, 0.5], weights=-2), "^weights: expected finite, non-negative"),
])
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        summary.pr_curve("pr", **kwargs)


def test_raw_errors():
    with pytest.raises(ValueError, match="^precision: expected num_thresholds=2 values, got 3"):
        summary.pr_curve_raw("r", [1, 1], [1, 1], [1, 1], [1, 1], [1, 2, 3], [1, 1], num_thresholds=2)
    with pytest.raises(ValueError, match="^true_negative_counts: values beyond float32's range"):
        summary.pr_curve_raw("r", [1, 1], [1, 1], [1e300, 1], [1, 1], [1, 1], [1, 1], num_thresholds=2)
    # zero weights, and infinities the caller passed, stay as they are
    assert rows(summary.pr_curve("pr", [1, 0], [0.5, 0.5], num_thresholds=2, weights=[0.0, 1.0]))[0].tolist() == [0, 0]
    assert np.isinf(rows(summary.pr_curve_raw("r", [np.inf, 1], [1, 1], [1, 1], [1, 1], [1, 1], [1, 1],
                                              num_thresholds=2))[0, 0])


def test_num_thresholds_is_bounded_before_anything_is_allocated():
    with pytest.raises(ValueError, match=r"^num_thresholds: expected an int in \[1, 65536\], got 1000000000$"):
        summary.pr_curve("pr", [1, 0], [0.5, 0.5], num_thresholds=10**9)
    with pytest.raises(ValueError, match=r"^num_thresholds: expected an int in \[1, 65536\]"):
        summary.pr_curve_raw("r", [1], [1], [1], [1], [1], [1], num_thresholds=10**9)
    with pytest.raises(TypeError, match="^num_thresholds: expected an int, got float"):
        summary.pr_curve("pr", [1, 0], [0.5, 0.5], num_thresholds=12.0)


def test_counts_are_never_negative_and_add_up():
    with pytest.raises(ValueError, match=r"^false_positive_counts: expected non-negative counts, got range \[-1, 1\]"):
        summary.pr_curve_raw("r", [1, 1], [-1, 1], [1, 1], [1, 1], [1, 1], [1, 1], num_thresholds=2)
    with pytest.raises(ValueError, match="^true_positive_counts: expected non-negative counts"):
        summary.pr_curve_raw("r", [np.nan, 1], [1, 1], [1, 1], [1, 1], [1, 1], [1, 1], num_thresholds=2)
    with pytest.raises(ValueError, match="^weights: they add up to inf"):
        summary.pr_curve("pr", [1, 0], [0.5, 0.5], num_thresholds=2, weights=[1e308, 1e308])
    rng = np.random.default_rng(0)
    labels, scores, weights = rng.integers(0, 2, 1000), rng.random(1000), rng.random(1000)
    tp, fp, tn, fn, *_ = rows(summary.pr_curve("pr", labels, scores, num_thresholds=33, weights=weights))
    assert min(tp.min(), fp.min(), tn.min(), fn.min()) >= 0
    np.testing.assert_allclose(tp + fn, (labels * weights).sum(), rtol=1e-6)
    np.testing.assert_allclose(fp + tn, ((1 - labels) * weights).sum(), rtol=1e-6)


def test_the_curve_check_catches_bad_counts():
    from tensorboard.summary.pr_curve import _check_curve

    good = np.array([[2, 1], [2, 0], [0, 2], [0, 1], [0.5, 1], [1, 0.5]], np.float64)
    _check_curve(good, 4.0)
    with pytest.raises(RuntimeError, match="add up to 4.0, not 5.0"):
        _check_curve(good, 5.0)
    with pytest.raises(RuntimeError, match="negative"):
        _check_curve(good - np.eye(6, 2) * 3, 4.0)
