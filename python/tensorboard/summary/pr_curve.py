"""PR-curve summaries: a float32 tensor [6, num_thresholds] for the pr_curves plugin.

Rows are TP, FP, TN, FN, precision, recall; threshold i is i / (num_thresholds - 1), and a
prediction p counts as positive at threshold i when floor(p * (num_thresholds - 1)) >= i.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from tensorboard.convert import check_numeric, to_numpy
from tensorboard.src import plugin_data_pb2, summary_pb2
from tensorboard.summary._common import check_tag, make_metadata, make_tensor

__all__ = ["pr_curve", "pr_curve_raw"]

_MIN_COUNT = 1e-7  # denominator floor, as upstream, so empty thresholds give 0 not NaN


def _check_thresholds(num_thresholds: Any) -> int:
    if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, (int, np.integer)) or num_thresholds < 1:
        raise ValueError(f"num_thresholds: expected an int >= 1, got {num_thresholds!r}")
    return int(num_thresholds)


def _summary(tag: str, rows: np.ndarray, num_thresholds: int) -> summary_pb2.Summary:
    content = plugin_data_pb2.PrCurvePluginData(version=0, num_thresholds=num_thresholds).SerializeToString()
    metadata = make_metadata("pr_curves", content, data_class=summary_pb2.DATA_CLASS_TENSOR)
    value = summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=make_tensor(rows.astype(np.float32)))
    return summary_pb2.Summary(value=[value])


def pr_curve(tag: str, labels: Any, predictions: Any, num_thresholds: int = 127,
             weights: Any = None) -> summary_pb2.Summary:
    """A PR curve from binary `labels` (bool or 0/1) and `predictions` in [0, 1] (same shape);
    optional `weights` (a scalar or one per example) weight each example's counts."""
    check_tag(tag)
    count = _check_thresholds(num_thresholds)
    truth = check_numeric(to_numpy(labels, "labels"), "labels").reshape(-1)
    scores = check_numeric(to_numpy(predictions, "predictions"), "predictions").reshape(-1).astype(np.float64)
    if truth.shape != scores.shape:
        raise ValueError(f"labels and predictions: expected the same number of values, got {truth.size} labels "
                         f"and {scores.size} predictions")
    if truth.dtype != np.bool_ and not np.isin(truth, (0, 1)).all():
        raise ValueError("labels: expected booleans or 0/1 values")
    if scores.size and not (np.all(scores >= 0) and np.all(scores <= 1)):
        raise ValueError(f"predictions: expected values in [0, 1], got range [{scores.min()}, {scores.max()}]")
    if weights is None:
        weight = np.ones_like(scores)
    else:
        weight = check_numeric(to_numpy(weights, "weights"), "weights").astype(np.float64)
        if weight.size == 1:
            weight = np.full_like(scores, float(weight.reshape(-1)[0]))
        elif weight.size == scores.size:
            weight = weight.reshape(-1)
        else:
            raise ValueError(f"weights: expected a scalar or {scores.size} values, got shape {weight.shape}")
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
    return _summary(tag, np.stack([tp, fp, tn, fn, precision, recall]), count)


def pr_curve_raw(tag: str, true_positive_counts: Any, false_positive_counts: Any, true_negative_counts: Any,
                 false_negative_counts: Any, precision: Any, recall: Any, num_thresholds: Optional[int] = None,
                 weights: Optional[Any] = None) -> summary_pb2.Summary:
    """A PR curve from precomputed per-threshold counts, precision and recall (each of length
    `num_thresholds`, which defaults to their length as tensorboardX takes it). `weights` is
    accepted for API compatibility and unused (the counts are already weighted)."""
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
        rows.append(array.astype(np.float32))
    return _summary(tag, np.stack(rows), count)
