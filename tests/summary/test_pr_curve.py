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
