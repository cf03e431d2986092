"""Hyperparameter summaries for the hparams plugin: experiment, session start and session end.

One call describes one session (a run): its hparam values and which scalar tags are metrics.
The writer logs the three summaries (and the metric scalars) into that run's directory.
"""
from __future__ import annotations

import math
import numbers
import time
import warnings
from typing import Any, Mapping, Optional, Sequence, Tuple

import numpy as np

from tensorboard.src import hparams_pb2, summary_pb2, types_pb2
from tensorboard.src.pool import message_class
from tensorboard.summary._common import check_optional_text, check_tag, make_metadata, make_shape

# google.protobuf.Value as registered in our descriptor pool (hparams.proto's map values).
ProtoValue = message_class("google.protobuf.Value")

__all__ = ["hparams", "EXPERIMENT_TAG", "SESSION_START_INFO_TAG", "SESSION_END_INFO_TAG"]

EXPERIMENT_TAG = "_hparams_/experiment"
SESSION_START_INFO_TAG = "_hparams_/session_start_info"
SESSION_END_INFO_TAG = "_hparams_/session_end_info"


def _plain(value: Any, where: str):
    """An hparam value as bool, str or float; TypeError naming `where` otherwise."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        return check_optional_text(value, where)  # a protobuf string: valid Unicode
    if isinstance(value, numbers.Real):
        try:
            with np.errstate(over="ignore"):  # np.longdouble beyond float64
                number = float(value)
        except OverflowError:  # a Python int beyond float64
            raise ValueError(f"{where}: {value!r:.60} is beyond float64's range (hparams store doubles)") from None
        if isinstance(value, numbers.Integral):
            changed = int(number) != value
        else:
            changed = math.isinf(number) and not _infinite(value)
        if changed:
            warnings.warn(f"{where}: {value!r:.60} is not a float64 (hparams store doubles); logged as {number!r}",
                          stacklevel=4)
        return number
    raise TypeError(f"{where}: expected bool, str, int or float, got {type(value).__name__} {value!r:.40}")


def _infinite(value: numbers.Real) -> bool:
    try:
        return value in (math.inf, -math.inf)
    except (TypeError, ValueError):  # pragma: no cover - exotic number types
        return False


def _proto_value(value) -> ProtoValue:
    if isinstance(value, bool):
        return ProtoValue(bool_value=value)
    if isinstance(value, str):
        return ProtoValue(string_value=value)
    return ProtoValue(number_value=value)


def _data_type(value) -> int:
    if isinstance(value, bool):
        return hparams_pb2.DATA_TYPE_BOOL
    if isinstance(value, str):
        return hparams_pb2.DATA_TYPE_STRING
    return hparams_pb2.DATA_TYPE_FLOAT64


def _summary(tag: str, data: hparams_pb2.HParamsPluginData) -> summary_pb2.Summary:
    data.version = 0
    metadata = make_metadata("hparams", data.SerializeToString(), data_class=summary_pb2.DATA_CLASS_TENSOR)
    empty = summary_pb2.Summary.Value(tag=tag, metadata=metadata)
    empty.tensor.dtype = types_pb2.DT_FLOAT
    empty.tensor.tensor_shape.CopyFrom(make_shape([0]))
    return summary_pb2.Summary(value=[empty])


def hparams(hparam_dict: Mapping[str, Any], metric_dict: Mapping[str, Any],
            hparam_domain_discrete: Optional[Mapping[str, Sequence[Any]]] = None, *,
            group_name: str = "", start_time_secs: Optional[float] = None
            ) -> Tuple[summary_pb2.Summary, summary_pb2.Summary, summary_pb2.Summary]:
    """The three summaries of one hparams session, which the writer logs into the session's run.

    Args:
        hparam_dict: {name: value}, each value a bool, str, int or float (NumPy scalars too).
        metric_dict: {metric tag: value}; only the keys are used here: each becomes a metric the
            plugin reads as that scalar tag of the session's run.
        hparam_domain_discrete: {name: [possible values]} for some hparams (shown as filters).
        group_name: The session group's name.
        start_time_secs: The session's start time; None: now.

    Returns:
        (experiment, session_start_info, session_end_info) Summary protos.

    Raises:
        TypeError: Non-dict arguments, keys that are not str, or values of another type.
        ValueError: A domain for a key not in `hparam_dict`.
    """
    if not isinstance(hparam_dict, Mapping):
        raise TypeError(f"hparam_dict: expected a dict, got {type(hparam_dict).__name__}")
    if not isinstance(metric_dict, Mapping):
        raise TypeError(f"metric_dict: expected a dict, got {type(metric_dict).__name__}")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, Mapping):
        raise TypeError(f"hparam_domain_discrete: expected a dict, got {type(domains).__name__}")
    values = {}
    for key, value in hparam_dict.items():
        if not isinstance(key, str) or not key:
            raise TypeError(f"hparam_dict: keys must be non-empty str, got {key!r}")
        check_tag(key, "hparam_dict key")
        values[key] = _plain(value, f"hparam_dict[{key!r}]")
    for key in metric_dict:
        if not isinstance(key, str) or not key:
            raise TypeError(f"metric_dict: keys must be non-empty str, got {key!r}")
        check_tag(key, "metric_dict key")
    for key in domains:
        if key not in values:
            raise ValueError(f"hparam_domain_discrete[{key!r}]: no such key in hparam_dict")

    now = time.time() if start_time_secs is None else float(start_time_secs)
    experiment = hparams_pb2.Experiment(time_created_secs=now)
    for key, value in values.items():
        info = experiment.hparam_infos.add(name=key, type=_data_type(value))
        if key in domains:
            domain = domains[key]
            if isinstance(domain, (str, bytes)) or not isinstance(domain, Sequence) or not domain:
                raise TypeError(f"hparam_domain_discrete[{key!r}]: expected a non-empty list of values")
            for index, item in enumerate(domain):
                item = _plain(item, f"hparam_domain_discrete[{key!r}][{index}]")
                if _data_type(item) != info.type:
                    raise TypeError(f"hparam_domain_discrete[{key!r}][{index}]: {item!r} is not of the same "
                                    f"type as hparam_dict[{key!r}] = {value!r}")
                info.domain_discrete.values.append(_proto_value(item))
    for key in metric_dict:
        experiment.metric_infos.add(name=hparams_pb2.MetricName(tag=key))

    start = hparams_pb2.SessionStartInfo(group_name=group_name, start_time_secs=now)
    for key, value in values.items():
        start.hparams[key].CopyFrom(_proto_value(value))
    end = hparams_pb2.SessionEndInfo(status=hparams_pb2.STATUS_SUCCESS, end_time_secs=time.time())
    return (_summary(EXPERIMENT_TAG, hparams_pb2.HParamsPluginData(experiment=experiment)),
            _summary(SESSION_START_INFO_TAG, hparams_pb2.HParamsPluginData(session_start_info=start)),
            _summary(SESSION_END_INFO_TAG, hparams_pb2.HParamsPluginData(session_end_info=end)))
