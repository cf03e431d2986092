"""Discovered hyperparameters as upstream's HParams plugin reads them: the plugin content (the bytes of
an `HParamsPluginData`, hparams.proto) of a run's `_hparams_/session_start_info` and of the
experiment's `_hparams_/experiment`, exactly as `add_hparams` would have logged them. Encoding only:
the values come from `logdir.hparams_sources`, the metrics from `logdir.metrics`."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Mapping, Sequence

from tensorboard.logdir.config_files import Scalar
from tensorboard.logdir.metrics import MetricChoice

SESSION_START_INFO_TAG = "_hparams_/session_start_info"
EXPERIMENT_TAG = "_hparams_/experiment"
PLUGIN_NAME = "hparams"


def _set_value(target, value: Scalar) -> None:
    """Sets a google.protobuf.Value (a map entry or a list item, in place) to `value`."""
    if isinstance(value, bool):
        target.bool_value = value
    elif isinstance(value, str):
        target.string_value = value
    else:
        try:
            target.number_value = float(value)
        except OverflowError:  # an int beyond float64 (hparams store doubles)
            target.number_value = math.copysign(math.inf, value)


def _data_type(values: Sequence[Scalar]) -> int:
    from tensorboard.src import hparams_pb2

    kinds = set(map(type, values))  # quicker than classifying value by value (10,000 runs' values per key)
    if not kinds <= {bool, int, float, str}:  # a subclass among them: by isinstance
        kinds = {bool if isinstance(v, bool) else str if isinstance(v, str) else float for v in values}
    if kinds == {bool}:
        return hparams_pb2.DATA_TYPE_BOOL
    if kinds and not kinds & {bool, str}:
        return hparams_pb2.DATA_TYPE_FLOAT64
    return hparams_pb2.DATA_TYPE_STRING


def session_start_content(hparams: Mapping[str, Scalar], group_name: str = "",
                          start_time_secs: float = 0.0) -> bytes:
    """The plugin content of a run's `_hparams_/session_start_info` holding `hparams` ({key: value},
    e.g. `{k: h.value for k, h in run_hparams(...)[run].items()}`), as add_hparams writes it."""
    from tensorboard.src import hparams_pb2

    start = hparams_pb2.SessionStartInfo(group_name=group_name, start_time_secs=float(start_time_secs))
    for key, value in hparams.items():
        _set_value(start.hparams[key], value)
    return hparams_pb2.HParamsPluginData(version=0, session_start_info=start).SerializeToString()


def experiment_content(hparams_by_run: Mapping[str, Mapping[str, Scalar]], metrics: Sequence[MetricChoice],
                       time_created_secs: float = 0.0, max_discrete: int = 100) -> bytes:
    """The plugin content of an `_hparams_/experiment`: one HParamInfo per key any run has (its type
    from the values: all bools BOOL, all numbers FLOAT64, else STRING; its distinct values as the
    discrete domain when there are at most `max_discrete`, so the dashboard offers them as filters;
    `differs` when runs disagree) and one MetricInfo per metric (`MetricChoice.display_tag`). A key of
    mixed types is a STRING column (see `string_values_for`)."""
    from tensorboard.src import hparams_pb2

    hparams_by_run = string_values_for(hparams_by_run)
    experiment = hparams_pb2.Experiment(time_created_secs=float(time_created_secs))
    keys = sorted({key for values in hparams_by_run.values() for key in values})
    for key in keys:
        values = [values[key] for values in hparams_by_run.values() if key in values]
        info = experiment.hparam_infos.add(name=key, type=_data_type(values))
        distinct = list(dict.fromkeys(values))
        info.differs = len(distinct) > 1 or len(values) < len(hparams_by_run)
        if len(distinct) <= max_discrete:
            for value in sorted(distinct):
                _set_value(info.domain_discrete.values.add(), value)
    for metric in metrics:
        experiment.metric_infos.add(name=hparams_pb2.MetricName(group="", tag=metric.display_tag))
    return hparams_pb2.HParamsPluginData(version=0, experiment=experiment).SerializeToString()


def string_values_for(hparams_by_run: Mapping[str, Mapping[str, Scalar]]) -> dict[str, dict[str, Scalar]]:
    """{run: {key: value}} with each key of mixed types (a number in one run, text in another) as text
    in every run, so that each key has one type, as the dashboard's columns need."""
    keys = {key for values in hparams_by_run.values() for key in values}
    mixed = set()
    for key in keys:
        values = [values[key] for values in hparams_by_run.values() if key in values]
        if _data_type(values) != _data_type(values[:1]):
            mixed.add(key)
    return {run: {key: (_text(value) if key in mixed else value) for key, value in values.items()}
            for run, values in hparams_by_run.items()}


def _text(value: Scalar) -> str:
    return ("true" if value else "false") if isinstance(value, bool) else str(value)


@dataclass
class ServedHParams:
    """What a server hands upstream's HParams plugin for a logdir's runs, as if every run had called
    add_hparams: the experiment's plugin content (serve it as the `_hparams_/experiment` tag of one run,
    e.g. the first), each run's session start content (its `_hparams_/session_start_info` tag, in place
    of any the run logged: these hold every source's values), the metrics named, and each run's metric
    values by display tag (a best value, `val/loss (min)`, is served as a scalar of that tag: one
    point at the run's last step, as the plugin reads a metric's last point)."""

    experiment: bytes
    session_starts: dict[str, bytes]
    metrics: list[MetricChoice]
    metric_values: dict[str, dict[str, float | None]]


def served_hparams(listing, runs, hparams_file: str | None = None, hparams_metrics=None,
                   warn=None, groups: Mapping[str, str] | None = None, cache=None) -> ServedHParams:
    """`ServedHParams` of decoded `runs` (RunData) of `listing`; `hparams_metrics`: the
    `--hparams_metrics 'val/loss=min,val/acc=max'` text (or {tag: aggregation}); None: every scalar tag
    the runs share, then those an add_hparams experiment names, each as its last value. Runs without any
    hyperparameter get no session. `groups` ({run: group name}, e.g. `Grouping.group_of()` of `--over`)
    become the sessions' group names, which the dashboard aggregates by. `cache`: a
    `hparams_sources.ConfigCache` kept between reloads (unchanged files are not read again)."""
    from tensorboard.logdir.hparams_sources import discover_hparams, plain_hparams, run_hparams
    from tensorboard.logdir.metrics import metric_values, parse_metrics, shared_scalar_tags

    runs = list(runs)
    options = {} if warn is None else {"warn": warn}
    discovered = discover_hparams(listing, hparams_file, cache=cache, **options)
    merged = run_hparams(listing, runs, hparams_file, discovered=discovered, **options)
    values = {run: found for run, found in plain_hparams(merged).items() if found}
    if hparams_metrics is None:
        named = [tag for run in runs for tag in _named_metrics(run)]
        choices = [MetricChoice(tag) for tag in dict.fromkeys(shared_scalar_tags(runs) + named)]
    else:
        choices = parse_metrics(hparams_metrics, "--hparams_metrics")
    typed = string_values_for(values)
    return ServedHParams(experiment_content(typed, choices),
                         {run: session_start_content(found, (groups or {}).get(run, ""))
                          for run, found in typed.items()}, choices,
                         {run.name: metric_values(run, choices) for run in runs if run.name in values})


def _named_metrics(run) -> list[str]:
    """The metric tags an `_hparams_/experiment` logged in `run` names (those of its own run)."""
    from tensorboard.logdir.hparams import decode_plugin_data

    content = run.plugin_content.get(PLUGIN_NAME, {}).get(EXPERIMENT_TAG)
    if content is None:
        return []
    infos = decode_plugin_data(content).experiment.metric_infos
    return [info.name.tag for info in infos if info.name.group in ("", ".")]
