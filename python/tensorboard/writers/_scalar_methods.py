"""SummaryWriter's scalar methods: add_scalar (the hot path, hand-encoded), add_scalars, and
tensorboardX's export_scalars_to_json; `RunScalars` records the scalar tags of the main run.
The methods use of their writer only what `_host.ScalarHost` declares."""
from __future__ import annotations

import json
import math
import os
from time import time as _now
from typing import Any, Iterable, Mapping

from tensorboard.events import wire
from tensorboard.src import summary_pb2
from tensorboard.values import background
from tensorboard.values import deferred as _deferred
from tensorboard.values.args import check_float32, check_run_name, check_step, check_tag, check_walltime, pick, require
from tensorboard.writers.positional import add_order_note, states_order


class RunScalars:
    """The scalar tags a SummaryWriter logged into its main run (add_hparams links a metric that names
    one to its curve instead of logging a point), and add_scalars' record for export_scalars_to_json."""

    __slots__ = ("prefixes", "_others", "exported")

    def __init__(self) -> None:
        self.prefixes: dict[str, bytes] = {}  # plain add_scalar: tag -> its events' wire prefix (the hot path's)
        self._others: set[str] = set()  # tags of scalars logged otherwise: summaries, device values, metrics
        self.exported: dict[str, list] = {}  # run directory -> [[wall_time, step, value], ...] since the last export

    def note(self, tags: Iterable[str]) -> None:
        """Records `tags` as scalar tags of the main run."""
        self._others.update(tags)

    def note_summary(self, summary) -> None:
        """Records the scalar tags of a logged Summary proto (ours or upstream's) or its bytes: values
        with a simple_value or the scalars plugin's metadata, as readers list a run's scalars."""
        if isinstance(summary, (bytes, bytearray, memoryview)):
            summary = summary_pb2.Summary.FromString(bytes(summary))
        self._others.update(value.tag for value in summary.value if value.WhichOneof("value") == "simple_value"
                            or value.metadata.plugin_data.plugin_name == "scalars")

    def logged(self, tags: Iterable[str]) -> set[str]:
        """Which of `tags` are scalar tags of the main run."""
        return {tag for tag in tags if tag in self.prefixes or tag in self._others}


def _unnamed_cause(tag, new_style, double_precision, display_name, summary_description) -> TypeError | None:
    """The argument of add_scalar that made a check fail before its own (a list tag in the tag cache's
    look-up, an array flag in a truth test), as a TypeError naming it; None if all have their types."""
    if not isinstance(tag, str):
        return TypeError(f"tag: expected str, got {type(tag).__name__}: {tag!r:.80}")
    for name, flag in (("new_style", new_style), ("double_precision", double_precision)):
        if not isinstance(flag, (bool, int)):
            return TypeError(f"{name}: expected a bool, got {type(flag).__name__}: {flag!r:.60}")
    for name, text in (("display_name", display_name), ("summary_description", summary_description)):
        if text is not None and not isinstance(text, str):
            return TypeError(f"{name}: expected a str or None, got {type(text).__name__}: {text!r:.60}")
    return None


def _check_one_number(value: Any, kind: str, name: str) -> None:
    """A framework value for a scalar must hold one real number; its shape and dtype are known
    without waiting for it."""
    shape = _deferred.shape_of(value)
    if math.prod(shape) != 1:
        raise TypeError(f"{name}: expected a single number, got an array of shape {shape}")
    dtype = _deferred.nonnumeric_dtype(value, kind)
    if dtype is not None:
        raise TypeError(f"{name}: expected a real number, got dtype {dtype}")


_ADD_SCALAR_PARAMS = frozenset({"tag", "scalar_value", "global_step", "walltime", "new_style", "double_precision",
                                "value", "display_name", "summary_description"})


class ScalarMethods:
    """add_scalar / add_scalars / export_scalars_to_json for SummaryWriter."""

    def add_scalar(self, tag: str, scalar_value=None, global_step=None, walltime=None, new_style: bool = False,
                   double_precision: bool = False, *, value=None, display_name: str | None = None,
                   summary_description: str | None = None) -> None:
        """Logs one number at a step: a point of the curve `tag`.

        torch's positional order; tensorboardX's 5th and 6th, `display_name` and
        `summary_description`, are keywords here. A finite value beyond float32's range is
        logged as ±inf with a warning unless `double_precision`.

        Args:
            tag: The curve's name, a non-empty str ("train/loss").
            scalar_value: A real number: Python, NumPy, or a one-element tensor of any framework.
                MXBoard's named scalars, a dict {name: number} or a pair (name, number), log
                each name in sub-run `<logdir>/<tag>/<name>`, as `add_scalars` does.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            new_style: Log a float32 tensor for the scalars plugin instead of the legacy `simple_value`.
            double_precision: Log a float64 tensor (implies `new_style`; torch ignores it without).
            value: MXBoard's keyword for `scalar_value`.
            display_name: The name the dashboard shows for the tag (tensorboardX's).
            summary_description: The tag's description (tensorboardX's).

        Raises:
            TypeError: A tag that is not a str, a value that is not one real number, a missing
                value, or both `scalar_value` and `value`.
            ValueError: An empty tag, or a step outside int64.

        Examples:
            >>> writer.add_scalar("train/loss", 0.25, global_step=10)
        """
        try:  # not a decorator: this is the hot path, and a try costs nothing until it catches
            if value is None:
                value = scalar_value
            elif scalar_value is not None:
                pick("scalar_value", scalar_value, "value", value)  # raises: both given
            if self._defaults:
                global_step, walltime = self._step_and_time(global_step, walltime)
            if type(value) is float and not (display_name or summary_description or new_style or double_precision):
                number = value  # the hot path: no conversion needed
            else:
                number = self._scalar_number(tag, value, global_step, walltime, display_name, summary_description,
                                             new_style, double_precision)
                if number is None:  # logged another way (deferred, named scalars, a tensor summary)
                    return
            tag_bytes = self._scalars.prefixes.get(tag)
            if tag_bytes is None:
                tag_bytes = self._scalars.prefixes.setdefault(check_tag(tag), wire.scalar_prefix(tag))
            step = global_step if type(global_step) is int else check_step(global_step)
            wall = _now() if walltime is None else check_walltime(walltime)
            try:
                event = wire.scalar_event(tag_bytes, number, step, wall)
            except OverflowError:
                event = wire.scalar_event(tag_bytes, check_float32(number, "value", tag), step, wall)
            self._file_writer.add_event_bytes(event)
        except (TypeError, ValueError) as err:
            named = _unnamed_cause(tag, new_style, double_precision, display_name, summary_description)
            if named is not None:  # an unhashable tag or an array flag fails before its own check
                add_order_note(named, self, "add_scalar", _ADD_SCALAR_PARAMS)
                raise named from None
            add_order_note(err, self, "add_scalar", _ADD_SCALAR_PARAMS)
            raise

    def _scalar_number(self, tag: str, value, global_step, walltime, display_name, summary_description,
                       new_style, double_precision) -> float | None:
        """add_scalar's value off the hot path: the number to log as a plain scalar, or None when it was
        logged another way (a device value converted later, MXBoard's named scalars, a tensor summary)."""
        if not (isinstance(new_style, int) and isinstance(double_precision, int)):  # tensorboardX's 5th, 6th
            raise TypeError("new_style, double_precision: expected bool")  # named precisely by _unnamed_cause
        if _deferred.framework_of(value) is not None:  # before the ABC check below: its first run
            self._add_scalar_later(tag, value, global_step, walltime, display_name, summary_description, new_style,
                                   double_precision)  # for a new type walks every registered Mapping (ms)
            return None
        if isinstance(value, Mapping):
            self.add_scalars(tag, value, global_step, walltime)
            return None
        if isinstance(value, (tuple, list)) and len(value) == 2:
            if not isinstance(value[0], str):
                raise ValueError(f"value: a tuple or list is MXBoard's named scalar (name, number), got {value!r:.80}")
            self.add_scalars(tag, {value[0]: value[1]}, global_step, walltime)
            return None
        from tensorboard.values.convert import to_float

        check_tag(tag)
        number = to_float(require("value", value), "value")
        if not (display_name or summary_description or new_style or double_precision):
            return number
        from tensorboard import summary

        self._add(summary.scalar(tag, number, display_name=display_name, description=summary_description,
                                 new_style=new_style, double_precision=double_precision), global_step, walltime)
        self._scalars.note((tag,))
        return None

    def _add_scalar_later(self, tag: str, value, global_step, walltime, display_name, summary_description,
                          new_style: bool, double_precision: bool) -> None:
        """add_scalar of a JAX/MXNet/device value: checked now (tag, one element), converted in the background."""
        from tensorboard import summary

        with background.caller_busy():  # the encoder keeps off the GIL meanwhile (see _add_later)
            check_tag(tag)
            kind = _deferred.framework_of(value)
            _check_one_number(value, kind, "value")
        self._add_later(tag, (value,), (kind,), global_step, walltime,
                        lambda array: summary.scalar(tag, array, display_name, summary_description,
                                                     new_style=new_style, double_precision=double_precision))
        self._scalars.note((tag,))

    @states_order
    def add_scalars(self, main_tag: str, tag_scalar_dict: Mapping[str, Any] | None = None, global_step=None,
                    walltime=None, *, value: Mapping[str, Any] | None = None) -> None:
        """Logs several curves into one chart: key k goes to sub-run `<logdir>/<main_tag>/<k>`, under tag
        `main_tag` (tensorboardX's and MXBoard's layout; torch names the sub-run `<main_tag>_<k>`).

        Args:
            main_tag: The chart's name, also the sub-runs' parent directory.
            tag_scalar_dict: A non-empty dict {name: number}; each name is a sub-run.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            value: MXBoard's keyword for `tag_scalar_dict`.

        Raises:
            TypeError: An empty or non-dict `tag_scalar_dict`, or a value that is not one real number.
            ValueError: A `main_tag` or key that is empty or would name a directory outside the logdir.

        Examples:
            >>> writer.add_scalars("loss", {"train": 0.25, "val": 0.31}, global_step=10)
        """
        check_run_name(main_tag, "main_tag")
        scalars = pick("tag_scalar_dict", tag_scalar_dict, "value", value)
        if not isinstance(scalars, Mapping) or not scalars:
            raise TypeError(f"tag_scalar_dict must be a non-empty dict of name -> number, got {scalars!r:.80}")
        from tensorboard.values.convert import to_float

        checked: dict[str, tuple[Any, str | None]] = {}  # key -> (number, None), or (value, its framework)
        for key, number in scalars.items():
            check_run_name(key, "tag_scalar_dict key")
            name = f"tag_scalar_dict[{key!r}]"
            kind = _deferred.framework_of(number)
            if kind is None:
                checked[key] = (to_float(number, name), None)
            else:  # JAX/MXNet/device values: logged without waiting
                _check_one_number(number, kind, name)
                checked[key] = (number, kind)
        step, wall = self._step_and_time(global_step, walltime)
        tag_bytes = wire.scalar_prefix(main_tag)
        for key, (number, kind) in checked.items():
            writer = self._sub_writer(f"{main_tag}/{key}")
            if kind is None:
                writer.add_event_bytes(wire.scalar_event(tag_bytes, check_float32(number, "value", main_tag), step,
                                                         wall))
                entry = [wall, step, number]
            else:
                entry = [wall, step, None]  # filled in when the value is converted
                self._add_later(main_tag, (number,), (kind,), step, wall, _ExportedScalar(main_tag, entry),
                                writer=writer)
            self._scalars.exported.setdefault(writer.get_logdir(), []).append(entry)

    def export_scalars_to_json(self, path: str | os.PathLike) -> None:
        """Writes the scalars `add_scalars` (and dict/pair `add_scalar`) logged since the last export to
        `path` as JSON, {"<run dir>": [[wall_time, step, value], ...]}, then forgets them (tensorboardX's format).

        Args:
            path: The JSON file to write (replaced if it exists).
        """
        scalars = self._scalars
        if any(entry[2] is None for entries in scalars.exported.values() for entry in entries):
            self.flush()  # values add_scalars took without waiting: their numbers come with their conversion
        log, scalars.exported = scalars.exported, {}
        log = {run: [entry for entry in entries if entry[2] is not None] for run, entries in log.items()}
        with open(os.fspath(path), "w", encoding="utf-8") as out:
            json.dump(log, out)  # NaN/inf as JavaScript's NaN/Infinity, as tensorboardX writes them


class _ExportedScalar:
    """Makes a deferred add_scalars value's summary, and fills in its export_scalars_to_json entry."""

    __slots__ = ("tag", "entry")

    def __init__(self, tag: str, entry: list):
        self.tag = tag
        self.entry = entry

    def __call__(self, array) -> Any:
        from tensorboard import summary
        from tensorboard.values.convert import to_float

        number = to_float(array, "value")
        self.entry[2] = number
        return summary.scalar(self.tag, number)
