"""summary.hparams: experiment / session start / session end in the hparams plugin's format."""
import warnings

import numpy as np
import pytest

from tensorboard import summary
from tensorboard.src import hparams_pb2


def parse(proto):
    (value,) = proto.value
    assert value.metadata.plugin_data.plugin_name == "hparams"
    return value.tag, hparams_pb2.HParamsPluginData.FromString(value.metadata.plugin_data.content)


def test_three_summaries():
    experiment, start, end = summary.hparams({"lr": np.float32(0.5), "name": "x", "flag": False, "n": 2},
                                             {"loss": 1.0, "acc": 0.0}, start_time_secs=123.0)
    tag, data = parse(experiment)
    assert tag == "_hparams_/experiment" and data.version == 0
    types = {info.name: info.type for info in data.experiment.hparam_infos}
    assert types == {"lr": hparams_pb2.DATA_TYPE_FLOAT64, "name": hparams_pb2.DATA_TYPE_STRING,
                     "flag": hparams_pb2.DATA_TYPE_BOOL, "n": hparams_pb2.DATA_TYPE_FLOAT64}
    assert [m.name.tag for m in data.experiment.metric_infos] == ["loss", "acc"]
    assert data.experiment.time_created_secs == 123.0
    tag, data = parse(start)
    assert tag == "_hparams_/session_start_info" and data.session_start_info.start_time_secs == 123.0
    assert data.session_start_info.hparams["lr"].number_value == 0.5
    assert data.session_start_info.hparams["flag"].WhichOneof("kind") == "bool_value"
    tag, data = parse(end)
    assert tag == "_hparams_/session_end_info" and data.session_end_info.status == hparams_pb2.STATUS_SUCCESS


def test_discrete_domains():
    experiment, _, _ = summary.hparams({"opt": "sgd", "bs": 32}, {}, hparam_domain_discrete={"opt": ["sgd", "adam"],
                                                                                            "bs": [16, 32]})
    infos = {info.name: info for info in parse(experiment)[1].experiment.hparam_infos}
    assert [v.string_value for v in infos["opt"].domain_discrete.values] == ["sgd", "adam"]
    assert [v.number_value for v in infos["bs"].domain_discrete.values] == [16, 32]


@pytest.mark.parametrize("args,kwargs,error,match", [
    (({"a": [1]}, {}), {}, TypeError, r"^hparam_dict\['a'\]: expected bool, str, int or float"),
    (({"a": None}, {}), {}, TypeError, r"^hparam_dict\['a'\]"),
    (({1: 1}, {}), {}, TypeError, "^hparam_dict: keys"),
    (({"a": 1}, {2: 1}), {}, TypeError, "^metric_dict: keys"),
    (({"a": 1}, {}), {"hparam_domain_discrete": {"b": [1]}}, ValueError, r"^hparam_domain_discrete\['b'\]"),
    (({"a": 1}, {}), {"hparam_domain_discrete": {"a": ["x"]}}, TypeError, r"^hparam_domain_discrete\['a'\]\[0\]"),
    (([1], {}), {}, TypeError, "^hparam_dict: "),
    (({"a": 10**400}, {}), {}, ValueError, r"^hparam_dict\['a'\]: 1000.* is beyond float64's range"),
])
def test_errors_name_the_key(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        summary.hparams(*args, **kwargs)


@pytest.mark.parametrize("value,logged", [(2**53 + 1, 2.0**53), (np.int64(2**53 + 1), 2.0**53),
                                          (2**64 + 1, 2.0**64), (np.longdouble(10) ** 400, np.inf)])
def test_numbers_a_double_cannot_hold_warn_naming_the_key(value, logged):
    with pytest.warns(UserWarning, match=r"^hparam_dict\['seed'\]: .* is not a float64 \(hparams store doubles\); "
                                         r"logged as "):
        experiment, start, _ = summary.hparams({"seed": value}, {})
    assert parse(start)[1].session_start_info.hparams["seed"].number_value == logged


def test_exact_numbers_warn_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, start, _ = summary.hparams({"a": 2**53, "b": np.float32(0.1), "c": np.inf, "d": np.int64(-7), "e": 1.5}, {})
    values = parse(start)[1].session_start_info.hparams
    assert [values[k].number_value for k in "abcde"] == [2.0**53, float(np.float32(0.1)), np.inf, -7.0, 1.5]
