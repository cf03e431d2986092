"""Group runs for `tensorboard --group_runs REGEX` and `--over KEYS`: beside its members, each group of
runs (names equal once the regex's matches are removed, `stats.grouping`; or runs whose hyperparameters
agree on every key but KEYS, `logdir.grouping`) is served as one more run holding, per scalar tag, the
members' mean at the steps they all have, and `<tag>/lower`, `<tag>/upper` (mean ± std, ddof=1). A
Custom Scalars layout draws each tag as a margin chart. Rebuilt from the members' series after every
reload, so new points show at the next reload."""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from tensorboard.compat.proto import summary_pb2, tensor_pb2, types_pb2
from tensorboard.plugins.custom_scalar import layout_pb2
from tensorboard.plugins.custom_scalar.metadata import CONFIG_SUMMARY_TAG, PLUGIN_NAME
from tensorboard.serving.run_state import RunState
from tensorboard.serving.series import Series, SeriesView
from tensorboard.stats.grouping import group_runs

LAYOUT_TITLE = "Groups: mean ± std"


def group_run_name(group: str) -> str:
    """The group's run: its name, then " (mean)", which sorts just before runs that continue the name."""
    return f"{group} (mean)"


Grouper = Callable[[Sequence[str]], "dict[str, list[str]]"]  # run names -> {group: its runs}


def by_pattern(pattern, wants: Callable[[str], bool] = lambda run: True) -> Grouper:
    """--group_runs: the runs `wants` keeps, grouped by their names once `pattern`'s matches are removed."""
    return lambda names: group_runs([name for name in names if wants(name)], pattern, "--group_runs")


class GroupRuns:
    """Builds the group runs of a set of runs; one per group of two or more runs. A group whose members
    are unchanged since the last build keeps its run (an idle reload rebuilds nothing)."""

    def __init__(self, grouper: Grouper):
        self._grouper = grouper
        self._built: dict[str, tuple[tuple, RunState]] = {}  # group run -> (its members' state, the run)

    def build(self, runs: dict[str, RunState]) -> dict[str, RunState]:
        groups = sorted((group, members) for group, members in self._grouper(list(runs)).items()
                        if len(members) > 1)
        built: dict[str, tuple[tuple, RunState]] = {}
        for group, members in groups:
            name = group_run_name(group)
            states = [runs[member] for member in members]
            mark = tuple(_version(state) for state in states)
            previous = self._built.get(name)
            built[name] = previous if previous is not None and previous[0] == mark else \
                (mark, _group_state(name, states))
        states = [state for _, state in built.values()]
        for state in states:  # the layout goes into the first group run only, once
            with state.lock:
                state.metadata.pop(CONFIG_SUMMARY_TAG, None)
                state.series.pop(CONFIG_SUMMARY_TAG, None)
                state.plugins.pop(PLUGIN_NAME, None)
        if states:
            tags = dict.fromkeys(tag for state in states for tag in state.series
                                 if not tag.endswith(("/lower", "/upper")))
            with states[0].lock:
                _add_layout(states[0], list(tags))
        self._built = built
        return {name: state for name, (_, state) in built.items()}


def _version(state: RunState) -> tuple:
    """What changes when a member's scalars do: the state itself (a run read again is a new one) and
    how many points each series was offered."""
    with state.lock:
        return id(state), tuple((tag, series.seen, series.n) for tag, series in state.series.items())


def _group_state(name: str, members: list[RunState]) -> RunState:
    state = RunState(name, {}, 0)
    columns = []
    for member in members:
        with member.lock:
            columns.append({tag: (meta, member.series[tag].view()) for tag, meta in member.metadata.items()
                            if meta.data_class == summary_pb2.DATA_CLASS_SCALAR and tag in member.series
                            and member.series[tag].numeric})
    walls = [member.first_wall for member in members if member.first_wall is not None]
    state.first_wall = min(walls) if walls else None
    for tag in [tag for tag in columns[0] if all(tag in member for member in columns)]:
        steps, wall, mean, std = _reduce([member[tag][1] for member in columns])
        if not len(steps):
            continue
        meta = columns[0][tag][0]
        for shown, values in ((tag, mean), (f"{tag}/lower", mean - std), (f"{tag}/upper", mean + std)):
            state.metadata[shown] = meta
            series = state.series[shown] = Series(0, True)
            series.add_many(steps, wall, values)
        state.plugins.setdefault(meta.plugin_data.plugin_name, {})[tag] = meta.plugin_data.content
    return state


def _reduce(views: list[SeriesView]):
    """(steps all members have, their latest wall time, mean, std with ddof=1) of members' numeric series."""
    common = views[0].steps
    for view in views[1:]:
        common = np.intersect1d(common, view.steps)
    values = np.empty((len(views), len(common)))
    walls = np.empty((len(views), len(common)))
    for row, view in enumerate(views):
        order = np.argsort(view.steps, kind="stable")
        at = order[np.searchsorted(view.steps, common, sorter=order)]
        values[row], walls[row] = view.values[at], view.walls[at]
    std = values.std(axis=0, ddof=1) if len(views) > 1 else np.full(len(common), np.nan)
    return common, walls.max(axis=0), values.mean(axis=0), std


def _add_layout(state: RunState, tags: list[str]) -> None:
    """A Custom Scalars layout in `state`: a margin chart per tag (mean, lower, upper of every group run)."""
    layout = layout_pb2.Layout()
    category = layout.category.add(title=LAYOUT_TITLE)
    for tag in tags:
        category.chart.add(title=tag).margin.series.add(value=tag, lower=f"{tag}/lower", upper=f"{tag}/upper")
    tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, string_val=[layout.SerializeToString()])
    meta = summary_pb2.SummaryMetadata(data_class=summary_pb2.DATA_CLASS_TENSOR)
    meta.plugin_data.plugin_name = PLUGIN_NAME
    state.metadata[CONFIG_SUMMARY_TAG] = meta
    state.plugins.setdefault(PLUGIN_NAME, {})[CONFIG_SUMMARY_TAG] = b""
    series = state.series[CONFIG_SUMMARY_TAG] = Series(0, False)
    wall = state.first_wall or 0.0
    series.add_many(np.zeros(1, np.int64), np.full(1, wall), blobs=[tensor.SerializeToString()],
                    lengths=np.ones(1, np.int64))
