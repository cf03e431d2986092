"""What one run holds for serving: per tag its first summary metadata and a sampled Series, filled by
the rules of upstream's plugin EventAccumulator (first metadata per tag wins, reservoir sizes per
plugin, restarts purge by `logdir.purge`'s rules). Events reach it already migrated (data_compat,
dataclass_compat), or as bulk columns of plain scalars."""
from __future__ import annotations

import logging
import threading

import numpy as np

from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.logdir.payloads import (
    DamagedValueError,
    check_plugin_content,
    check_tensor,
    damaged_value_message,
    tensor_to_numpy,
)
from tensorboard.logdir.purge import PLUGIN_ACCUMULATOR, PurgeRules
from tensorboard.serving.series import Series

_SCALAR = summary_pb2.DATA_CLASS_SCALAR
logger = logging.getLogger(__name__)


class RunState:
    """One run: its tags' metadata and series, and the accumulator state the purge rules need."""

    def __init__(self, name: str, size_guidance: dict, default_size: int, purge_orphaned_data: bool = True):
        self.name = name
        self.lock = threading.RLock()
        self._sizes = size_guidance
        self._default_size = default_size
        self._purge = purge_orphaned_data
        self.metadata: dict[str, summary_pb2.SummaryMetadata] = {}  # tag -> first metadata
        self.plugins: dict[str, dict[str, bytes]] = {}  # plugin -> tag -> content (the first)
        self.series: dict[str, Series] = {}
        self.first_wall: float | None = None
        self.damaged: set[tuple[str, str]] = set()  # (file, tag or record) of the damage logged
        self.rules = PurgeRules(self._purge_tags, PLUGIN_ACCUMULATOR)  # restarts, as upstream's server tells them

    def __getstate__(self) -> dict:  # a preload worker sends runs to the server (serving.preload)
        state = dict(self.__dict__)
        del state["lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.lock = threading.RLock()

    # -- the accumulator's bookkeeping -------------------------------------------------------------
    def _new_series(self, tag: str, numeric: bool) -> Series:
        meta = self.metadata.get(tag)
        size = self._default_size if meta is None else self._sizes.get(meta.plugin_data.plugin_name,
                                                                         self._default_size)
        series = self.series[tag] = Series(size, numeric)
        return series

    def _purge_tags(self, step: int, tags) -> None:
        for tag in list(self.series) if tags is None else tags:
            series = self.series.get(tag)
            if series is not None:
                series.purge_from(step)

    # -- events decoded by protobuf (already migrated) -------------------------------------------
    def process_event(self, event: event_pb2.Event, path: str = "") -> None:
        """One migrated Event, handled as upstream's plugin EventAccumulator handles it; a damaged value
        (logdir.payloads.check_tensor) is left out and logged once per file (`path`) and tag."""
        if self.first_wall is None:
            self.first_wall = event.wall_time
        if self._purge:
            self.rules.event(event)
        if not event.HasField("summary"):
            return
        for value in event.summary.value:
            try:
                self._add_value(value, event.step, event.wall_time)
            except DamagedValueError as err:
                tag = value.tag or value.node_name
                self.report_damage((path, tag), damaged_value_message(path or self.name, tag, err))

    def _add_value(self, value, step: int, wall: float) -> None:
        tag = value.tag or value.node_name
        if value.HasField("metadata") and value.tag not in self.metadata:
            plugin = value.metadata.plugin_data
            check_plugin_content(plugin.plugin_name, plugin.content)
            self.metadata[value.tag] = value.metadata
            if plugin.plugin_name:
                self.plugins.setdefault(plugin.plugin_name, {})[value.tag] = plugin.content
        if not value.HasField("tensor"):
            return
        meta = self.metadata.get(tag)
        size = check_tensor(value.tensor, meta.plugin_data.plugin_name if meta is not None else "")
        series = self.series.get(tag)
        if series is None:
            series = self._new_series(tag, meta is not None and meta.data_class == _SCALAR
                                      and size == 1 and _is_float_scalar(value.tensor))
        if series.numeric:
            series.add_many([step], [wall], [_float_of(value.tensor, size)])
        else:
            series.add_many([step], [wall], blobs=[value.tensor.SerializeToString()], lengths=[size])

    def report_damage(self, key: tuple[str, str], line: str) -> None:
        """Logs `line` once per `key` (file, tag or record): a damaged value or record was left out."""
        if key not in self.damaged:
            self.damaged.add(key)
            logger.warning(line)

    # -- plain scalars, column-wise ---------------------------------------------------------------
    def can_take_scalars(self, tag: str) -> bool:
        """True when plain scalar events of `tag` may go through add_scalars (its series holds floats)."""
        series = self.series.get(tag)
        return series.numeric if series is not None else tag not in self.metadata or \
            self.metadata[tag].data_class == _SCALAR

    def add_scalars(self, tag_metadata: dict, tags: list[str], tag_of: np.ndarray, steps: np.ndarray,
                    walls: np.ndarray, values: np.ndarray) -> bool:
        """Plain scalar events in file order (tag index per event); False, having added nothing, when
        their steps would purge (the caller then sends them one by one through process_event)."""
        if not len(steps):
            return True
        if self._purge and not self.rules.purges_none(steps):
            return False
        if self.first_wall is None:
            self.first_wall = float(walls[0])
        for index, tag in enumerate(tags):
            if tag not in self.metadata:
                meta = self.metadata[tag] = tag_metadata[tag]
                self.plugins.setdefault(meta.plugin_data.plugin_name, {})[tag] = meta.plugin_data.content
        if self._purge:
            self.rules.added(int(steps[-1]), float(walls[-1]))
        if len(tags) == 1:
            self._scalar_series(tags[0]).add_many(steps, walls, values)
            return True
        order = np.argsort(tag_of, kind="stable")
        cuts = np.flatnonzero(np.diff(tag_of[order])) + 1
        for group in np.split(order, cuts):
            self._scalar_series(tags[int(tag_of[group[0]])]).add_many(steps[group], walls[group], values[group])
        return True

    def _scalar_series(self, tag: str) -> Series:
        series = self.series.get(tag)
        return series if series is not None else self._new_series(tag, True)


def _float_of(tensor, size: int) -> float:
    """The one number of a numeric series' tensor (checked: its bytes hold `size` elements); DamagedValueError
    when it holds none or many, as a series of floats takes only scalars."""
    if size != 1:
        raise DamagedValueError(f"a scalar holds exactly one number, this one {size}")
    try:
        return float(tensor_to_numpy(tensor).reshape(-1)[0])
    except (ValueError, TypeError, IndexError) as err:
        raise DamagedValueError(f"a scalar that does not decode ({err})") from None


def _is_float_scalar(tensor) -> bool:
    """Scalars whose value reads back as a float (what every scalar summary writes)."""
    from tensorboard.compat.proto import types_pb2

    return tensor.dtype in (types_pb2.DT_FLOAT, types_pb2.DT_DOUBLE, types_pb2.DT_HALF, types_pb2.DT_BFLOAT16)
