"""What one run holds once read: column stores per kind, filled the way upstream's EventAccumulator
fills its reservoirs (first metadata per tag wins; restarts purge by `logdir.purge`'s rules)."""
from __future__ import annotations

import bisect
import warnings
from array import array
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple

from tensorboard.logdir.payloads import (
    DamagedValueError,
    DamagedValueWarning,
    check_plugin_content,
    check_tensor,
    damaged_value_message,
)
from tensorboard.logdir.purge import EVENT_ACCUMULATOR, PurgeRules
from tensorboard.src import event_pb2

if TYPE_CHECKING:
    import numpy as np

SESSION_START_TAG = "_hparams_/session_start_info"  # the hparams plugin's tag of a run's hyperparameters


class HistogramRow(NamedTuple):
    """One HistogramProto as a run keeps it."""

    min: float
    max: float
    num: float
    sum: float
    sum_squares: float
    limits: Any  # float64 array: each bucket's right edge
    counts: Any  # float64 array: each bucket's count


class ImageRow(NamedTuple):
    """One Summary.Image as a run keeps it."""

    width: int
    height: int
    encoded: bytes  # PNG, GIF, ... as logged


class AudioRow(NamedTuple):
    """One Summary.Audio as a run keeps it."""

    content_type: str
    length_frames: int
    sample_rate: float
    encoded: bytes  # WAV as logged


class KindStore:
    """Rows of one kind in one run: parallel columns (tag id, step, wall time, file id, value)."""

    def __init__(self, numeric: bool = False):
        self.tag_ids: dict[str, int] = {}
        self.tag_names: list[str] = []
        self.tags = array("i")
        self.steps = array("q")
        self.walls = array("d")
        self.files = array("i")
        self.values: Any = array("d") if numeric else []
        # tag id (None: all tags) -> (rows, step): the first `rows` rows hold none of the tag's rows at `step` or later
        self._clean: dict[int | None, tuple[int, int]] = {}

    def tag_id(self, tag: str) -> int:
        tid = self.tag_ids.get(tag)
        if tid is None:
            tid = self.tag_ids[tag] = len(self.tag_names)
            self.tag_names.append(tag)
        return tid

    def add(self, tag: str, step: int, wall: float, file_id: int, value: Any) -> None:
        self.tags.append(self.tag_id(tag))
        self.steps.append(step)
        self.walls.append(wall)
        self.files.append(file_id)
        self.values.append(value)

    def __len__(self) -> int:
        return len(self.steps)

    def rows_by_tag(self) -> dict[str, np.ndarray]:
        """{tag: its row indices in step order} (stable: rows of one step keep their logged order); tags
        without rows left out."""
        import numpy as np

        if not len(self.steps):
            return {}
        tags = np.frombuffer(self.tags, np.int32)
        steps = np.frombuffer(self.steps, np.int64)
        out = {}
        for tid, tag in enumerate(self.tag_names):
            rows = np.flatnonzero(tags == tid)
            if len(rows):
                out[tag] = rows[np.argsort(steps[rows], kind="stable")]
        return out

    def purge(self, step: int, tags: set[str] | None = None) -> None:
        """Drops rows at `step` or later (only of `tags` when given), as upstream's reservoirs do.

        After a restart in a file without a version 2 header every later event purges again (the
        most recent step stays the old, higher one). So each purge records, per tag (None: all
        tags), how many leading rows it left below its step; a later purge at a step no lower
        scans only the rows added since, and reading stays linear.
        """
        ids = None if tags is None else {self.tag_ids[t] for t in tags if t in self.tag_ids}
        if ids is not None and not ids:
            return
        start = min(self._clean_rows(key, step) for key in ([None] if ids is None else ids))
        steps, tags_column = self.steps, self.tags
        drop = [i for i in range(start, len(steps)) if steps[i] >= step and (ids is None or tags_column[i] in ids)]
        if drop:
            dropped = set(drop)
            keep = [i for i in range(len(steps)) if i not in dropped]
            for name in ("tags", "steps", "walls", "files", "values"):  # in place: decoders hold bound appenders
                column = getattr(self, name)
                picked = [column[i] for i in keep]
                column[:] = array(column.typecode, picked) if isinstance(column, array) else picked
            for key, (rows, below) in self._clean.items():  # clean prefixes lose the dropped rows they held
                self._clean[key] = (rows - bisect.bisect_left(drop, rows), below)
        for key in [None] if ids is None else ids:
            self._clean[key] = (len(steps), step)

    def _clean_rows(self, key, step: int) -> int:
        """How many leading rows are known to hold no row of tag `key` (None: any tag) at `step` or later."""
        rows = 0
        for entry in (self._clean.get(key), self._clean.get(None)):
            if entry is not None and step >= entry[1]:
                rows = max(rows, entry[0])
        return rows


KINDS = ("scalars", "histograms", "images", "audio", "tensors")


def _lazy_store(numeric: bool = False) -> cached_property:
    """A run's store of one kind, made when first asked for (then an attribute of the run like any other)."""
    return cached_property(lambda run: KindStore(numeric))


class RunData:
    """Everything read from one run directory (its event files in name order, one accumulator).

    Each kind's store is made when first asked for: most runs hold one or two kinds, and a sweep's
    thousands of runs then carry no empty stores (each a handful of objects for the garbage collector).
    """

    scalars = _lazy_store(numeric=True)
    histograms = _lazy_store()  # values: HistogramRow
    images = _lazy_store()      # values: ImageRow
    audio = _lazy_store()       # values: AudioRow
    tensors = _lazy_store()     # values: TensorProto

    def __init__(self, name: str):
        self.name = name
        self.files: list[str] = []
        self.plugin_content: dict[str, dict[str, bytes]] = {}  # plugin -> tag -> content (first seen)
        self.session_starts: dict[int, bytes] = {}  # file id -> its first hparams session start info
        self.metadata_tags: set[str] = set()
        self.tag_plugins: dict[str, str] = {}  # tag -> its plugin's name (first metadata)
        self.damaged: set[tuple[int, str]] = set()  # (file id, tag) of the damaged values reported
        self.rules = PurgeRules(self.purge, EVENT_ACCUMULATOR)  # restarts, as EventAccumulator tells them
        self.scalar_keys: dict[bytes, int] = {}  # raw 'tag + simple_value key' bytes -> scalar tag id
        self.histo_keys: dict[bytes, str] = {}   # raw 'tag + histo key' bytes -> tag

    def holds(self, kind: str) -> bool:
        """Whether `kind`'s store was made (a store never asked for holds no rows)."""
        return kind in self.__dict__

    def drop(self, kind: str) -> None:
        """Empties `kind`'s store: a new empty one is made when next asked for."""
        self.__dict__.pop(kind, None)

    def stores(self) -> list[KindStore]:
        """The stores made so far (the others hold no rows)."""
        return [getattr(self, kind) for kind in KINDS if self.holds(kind)]

    def purge(self, step: int, tags: set[str] | None = None) -> None:
        """Drops later rows of scalars, histograms, images and audio; tensors (text, tensor scalars,
        PR curves) are kept, as EventAccumulator (and so tbparse) keeps them."""
        for kind in ("scalars", "histograms", "images", "audio"):
            if self.holds(kind):
                getattr(self, kind).purge(step, tags)

    def process_event(self, event: event_pb2.Event, file_id: int) -> None:
        """One decoded Event, handled as upstream's EventAccumulator handles it."""
        self.rules.event(event)
        has_summary = event.HasField("summary")
        if not has_summary:
            return
        step, wall = event.step, event.wall_time
        for value in event.summary.value:
            try:
                self._process_value(value, step, wall, file_id)
            except DamagedValueError as err:
                self._report_damage(value.tag or value.node_name, err, file_id)

    def _process_value(self, value, step: int, wall: float, file_id: int) -> None:
        if value.HasField("metadata"):
            plugin = value.metadata.plugin_data
            first = value.tag not in self.metadata_tags
            session_start = value.tag == SESSION_START_TAG and plugin.plugin_name == "hparams"
            if first or session_start:  # content that is kept: decoded once, here
                check_plugin_content(plugin.plugin_name, plugin.content)
            if first:
                self.metadata_tags.add(value.tag)
                if plugin.plugin_name:
                    self.plugin_content.setdefault(plugin.plugin_name, {})[value.tag] = plugin.content
                    self.tag_plugins[value.tag] = plugin.plugin_name
            if session_start:
                self.session_starts.setdefault(file_id, plugin.content)  # tbparse: one per file
        kind = value.WhichOneof("value")
        if kind == "tensor":
            check_tensor(value.tensor, self.tag_plugins.get(value.tag or value.node_name, ""))
            self.tensors.add(value.tag or value.node_name, step, wall, file_id, value.tensor)
        elif kind == "simple_value":
            self.scalars.add(value.tag, step, wall, file_id, value.simple_value)
        elif kind == "histo":
            h = value.histo
            self.histograms.add(value.tag, step, wall, file_id, histo_row(
                h.min, h.max, h.num, h.sum, h.sum_squares, h.bucket_limit, h.bucket))
        elif kind == "image":
            im = value.image
            self.images.add(value.tag, step, wall, file_id, ImageRow(im.width, im.height, im.encoded_image_string))
        elif kind == "audio":
            au = value.audio
            self.audio.add(value.tag, step, wall, file_id,
                           AudioRow(au.content_type, au.length_frames, au.sample_rate, au.encoded_audio_string))

    def _report_damage(self, tag: str, err: DamagedValueError, file_id: int) -> None:
        """Warns once per file and tag that a damaged value was left out."""
        if (file_id, tag) not in self.damaged:
            self.damaged.add((file_id, tag))
            path = self.files[file_id] if 0 <= file_id < len(self.files) else self.name
            warnings.warn(damaged_value_message(path, tag, err), DamagedValueWarning, stacklevel=2)



def histo_row(lo, hi, num, total, squares, limits, counts) -> HistogramRow:
    import numpy as np

    return HistogramRow(lo, hi, num, total, squares, np.asarray(limits, dtype=np.float64),
                        np.asarray(counts, dtype=np.float64))
