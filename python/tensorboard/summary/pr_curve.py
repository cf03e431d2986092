"""PR-curve summaries: a float32 tensor [6, num_thresholds] for the pr_curves plugin.

Rows are TP, FP, TN, FN, precision, recall; threshold i is i / (num_thresholds - 1), and a
prediction p counts as positive at threshold i when floor(p * (num_thresholds - 1)) >= i.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

import numpy as np

from tensorboard.src import plugin_data_pb2, summary_pb2
from tensorboard.summary._common import check_tag, make_metadata, make_tensor
from tensorboard.values.convert import check_numeric, to_numpy

__all__ = ["pr_curve", "pr_curve_raw", "check_pr_curve_args"]

_FLOAT32_MAX = float(np.finfo(np.float32).max)
_MIN_COUNT = 1e-7  # denominator floor, as upstream, so empty thresholds give 0 not NaN


MAX_THRESHOLDS = 1 << 16  # 65,536 thresholds: a 1.5 MB tensor (upstream's default is 127)


def _check_thresholds(num_thresholds: Any) -> int:
    if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, (int, np.integer)):
        raise TypeError(f"num_thresholds: expected an int, got {type(num_thresholds).__name__} {num_thresholds!r:.40}")
    if not 1 <= num_thresholds <= MAX_THRESHOLDS:
        raise ValueError(f"num_thresholds: expected an int in [1, {MAX_THRESHOLDS}], got {num_thresholds}")
    return int(num_thresholds)


def _check_curve(rows: np.ndarray, total: float) -> None:
    """The invariant of every PR curve made from data, O(thresholds): finite, non-negative counts whose
    TP + FP at threshold 0 (everything predicted positive) is the total weight; precision and recall in [0, 1]."""
    counts, ratios = rows[:4], rows[4:]
    if not (np.isfinite(rows).all() and counts.min() >= 0 and ratios.max() <= 1):
        raise RuntimeError("internal error: a PR curve with negative or non-finite counts")
    if abs(float(counts[0, 0] + counts[1, 0]) - total) > 1e-9 * (total if total > 1 else 1.0):
        raise RuntimeError(f"internal error: PR curve counts add up to {counts[0, 0] + counts[1, 0]}, not {total}")


def check_pr_curve_args(labels_shape: Sequence[int], predictions_shape: Sequence[int],
                        weights_shape: Optional[Sequence[int]], num_thresholds: Any) -> int:
    """The number of thresholds, once the arguments' shapes fit together; raises naming the argument."""
    count = _check_thresholds(num_thresholds)
    labels, predictions = math.prod(labels_shape), math.prod(predictions_shape)
    if labels != predictions:
        raise ValueError(f"labels and predictions: expected the same number of values, got {labels} labels "
                         f"and {predictions} predictions")
    if weights_shape is not None and math.prod(weights_shape) not in (1, predictions):
        raise ValueError(f"weights: expected a scalar or {predictions} values, got shape {tuple(weights_shape)}")
    return count


def _summary(tag: str, rows: np.ndarray, num_thresholds: int) -> summary_pb2.Summary:
    content = plugin_data_pb2.PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    metadata = make_metadata("pr_curves", content, data_class=summary_pb2.DATA_CLASS_TENSOR)
    value = summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=make_tensor(rows.astype(np.float32)))
    return summary_pb2.Summary(value=[value])


def pr_curve(tag: str, labels: Any, predictions: Any, num_thresholds: int = 127,
             weights: Any = None) -> summary_pb2.Summary:
    """A precision-recall curve from binary labels and predicted scores.

    Args:
        tag: The curve's name, a non-empty str.
        labels: Bools or 0/1, one per prediction.
        predictions: Scores in [0, 1], as many as `labels`.
        num_thresholds: Thresholds of the curve, an int in [1, 65536].
        weights: A scalar, or one weight per example (finite, non-negative), weighting its counts.

    Returns:
        A Summary proto with one [6, num_thresholds] float32 tensor.

    Raises:
        TypeError: A `num_thresholds` that is not an int, or non-numeric values.
        ValueError: Labels other than 0/1, predictions outside [0, 1], mismatched lengths, or bad weights.
    """
    check_tag(tag)
    _check_thresholds(num_thresholds)
    truth = check_numeric(to_numpy(labels, "labels"), "labels")
    scores = check_numeric(to_numpy(predictions, "predictions"), "predictions")
    weight = None if weights is None else check_numeric(to_numpy(weights, "weights"), "weights")
    count = check_pr_curve_args(truth.shape, scores.shape, None if weight is None else weight.shape, num_thresholds)
    truth, scores = truth.reshape(-1), scores.reshape(-1).astype(np.float64)
    if truth.dtype != np.bool_ and not np.isin(truth, (0, 1)).all():
        raise ValueError("labels: expected booleans or 0/1 values")
    if scores.size and not (np.all(scores >= 0) and np.all(scores <= 1)):
        raise ValueError(f"predictions: expected values in [0, 1], got range [{scores.min()}, {scores.max()}]")
    if weight is None:
        weight = np.ones_like(scores)
    elif weight.size == 1:
        weight = np.full_like(scores, float(weight.reshape(-1)[0]))
    else:
        weight = weight.reshape(-1).astype(np.float64)
    if weight.size and not (np.isfinite(weight).all() and weight.min() >= 0):
        got = "NaN" if np.isnan(weight).any() else f"range [{weight.min()}, {weight.max()}]"
        raise ValueError(f"weights: expected finite, non-negative weights, got {got}")
    positive = truth.astype(np.float64)
    bucket = np.floor(scores * (count - 1)).astype(np.intp)  # one threshold: every prediction is at or above 0
    tp_per_bucket = np.bincount(bucket, weights=positive * weight, minlength=count)
    fp_per_bucket = np.bincount(bucket, weights=(1.0 - positive) * weight, minlength=count)
    tp = np.cumsum(tp_per_bucket[::-1])[::-1]  # predicted positive at threshold i: bucket >= i
    fp = np.cumsum(fp_per_bucket[::-1])[::-1]
    tn = fp[0] - fp
    fn = tp[0] - tp
    precision = tp / np.maximum(_MIN_COUNT, tp + fp)
    recall = tp / np.maximum(_MIN_COUNT, tp + fn)
    rows = np.stack([tp, fp, tn, fn, precision, recall])
    total = float(weight.sum())
    if not total <= _FLOAT32_MAX:  # the counts are float32
        raise ValueError(f"weights: they add up to {total:g}, beyond the float32 counts a PR curve holds")
    _check_curve(rows, total)
    return _summary(tag, rows, count)


def pr_curve_raw(tag: str, true_positive_counts: Any, false_positive_counts: Any, true_negative_counts: Any,
                 false_negative_counts: Any, precision: Any, recall: Any, num_thresholds: Optional[int] = None,
                 weights: Optional[Any] = None) -> summary_pb2.Summary:
    """A precision-recall curve from precomputed per-threshold counts, precision and recall.

    Args:
        tag: The curve's name, a non-empty str.
        true_positive_counts: True positives at each threshold (non-negative).
        false_positive_counts: False positives at each threshold.
        true_negative_counts: True negatives at each threshold.
        false_negative_counts: False negatives at each threshold.
        precision: Precision at each threshold.
        recall: Recall at each threshold.
        num_thresholds: Each series' length; None: the length of `true_positive_counts`, as
            tensorboardX takes it.
        weights: Accepted for tensorboardX's signature and not used (the counts are weighted already).

    Returns:
        A Summary proto with one [6, num_thresholds] float32 tensor.

    Raises:
        ValueError: A series of another length, negative counts, or values beyond float32's range.
    """
    del weights
    check_tag(tag)
    if num_thresholds is None:
        num_thresholds = int(np.size(to_numpy(true_positive_counts, "true_positive_counts")))
    count = _check_thresholds(num_thresholds)
    rows = []
    for name, series in (("true_positive_counts", true_positive_counts),
                         ("false_positive_counts", false_positive_counts),
                         ("true_negative_counts", true_negative_counts),
                         ("false_negative_counts", false_negative_counts),
                         ("precision", precision), ("recall", recall)):
        array = check_numeric(to_numpy(series, name), name).reshape(-1)
        if array.size != count:
            raise ValueError(f"{name}: expected num_thresholds={count} values, got {array.size}")
        if name.endswith("_counts") and array.size and not (array >= 0).all():  # NaN fails too
            raise ValueError(f"{name}: expected non-negative counts, got range [{array.min()}, {array.max()}]")
        with np.errstate(over="ignore"):
            narrow = array.astype(np.float32)
        if np.isinf(narrow).sum() > np.isinf(array).sum():
            raise ValueError(f"{name}: values beyond float32's range (largest magnitude {np.abs(array).max():g})")
        rows.append(narrow)
    return _summary(tag, np.stack(rows), count)
