"""`SummaryReader`: tbparse's interface (a tbparse user changes only the import), read with our fast decoder."""
from __future__ import annotations

import os

from tensorboard.reader._kinds import ALL_EVENT_TYPES, ALL_EXTRA_COLUMNS
from tensorboard.reader._runs import read_runs


def _frame_property(kind: str) -> property:
    """A read-only attribute giving `get_events(kind)`, as tbparse's `reader.scalars` & co."""
    return property(lambda self: self.get_events(kind), doc=f"The {kind} as a DataFrame (tbparse's layout).")


class SummaryReader:
    """Reads every event file below `log_path` (a directory or one file; local or fsspec URL).

    Properties `scalars`, `tensors`, `histograms`, `images`, `audio`, `text`, `hparams` are pandas
    DataFrames in tbparse's layouts. `skip_damaged=True` keeps a damaged file's events before the
    damage (with a DamagedFileWarning) instead of raising CorruptEventFileError.
    """

    def __init__(self, log_path: str | os.PathLike, *, pivot: bool = False, extra_columns: set | None = None,
                 event_types: set | None = None, storage_options: dict | None = None,
                 skip_damaged: bool = False):
        extra = set() if extra_columns is None else extra_columns
        if not isinstance(extra, set):
            raise TypeError(f"extra_columns must be a set, not {type(extra).__name__}")
        if extra - ALL_EXTRA_COLUMNS:
            raise ValueError(f"extra_columns: unknown {sorted(extra - ALL_EXTRA_COLUMNS)}; "
                             f"choose from {sorted(ALL_EXTRA_COLUMNS)}")
        types = set(ALL_EVENT_TYPES) if event_types is None else event_types
        if not isinstance(types, set):
            raise TypeError(f"event_types must be a set, not {type(types).__name__}")
        if types - ALL_EVENT_TYPES:
            raise ValueError(f"event_types: unknown {sorted(types - ALL_EVENT_TYPES)}; "
                             f"choose from {sorted(ALL_EVENT_TYPES)}")
        self._log_path = os.fspath(log_path)
        self._pivot = bool(pivot)
        self._extra_columns = set(extra)
        self._event_types = set(types)
        self._runs = read_runs(self._log_path, storage_options, skip_damaged=skip_damaged)
        self._frames: dict = {}

    @property
    def log_path(self) -> str:
        return self._log_path

    def get_events(self, event_type: str):
        """The DataFrame of one event type (computed once, then cached)."""
        if event_type not in ALL_EVENT_TYPES:
            raise ValueError(f"Unknown event_type: {event_type!r}; choose from {sorted(ALL_EVENT_TYPES)}")
        if event_type not in self._event_types:
            raise ValueError(f"event_type {event_type!r} was not asked for in event_types={sorted(self._event_types)}")
        if event_type not in self._frames:
            from tensorboard.reader._frames import build_frame

            self._frames[event_type] = build_frame(self._runs, event_type, self._pivot, self._extra_columns)
        return self._frames[event_type].copy()

    scalars = _frame_property("scalars")
    tensors = _frame_property("tensors")
    histograms = _frame_property("histograms")
    images = _frame_property("images")
    audio = _frame_property("audio")
    text = _frame_property("text")
    hparams = _frame_property("hparams")

    @property
    def tags(self) -> dict[str, list[str]]:
        """{event type: tag names} as tbparse lists them: the stored names (text tags keep their
        '/text_summary'), in the order first seen, run after run; hyperparameters by name (tbparse
        lists them in its protobuf map's order)."""
        from tensorboard.reader._frames import run_tags

        return {kind: list(dict.fromkeys(tag for run in self._runs for tag in run_tags(run, kind)))
                for kind in sorted(self._event_types)}

    def __repr__(self) -> str:
        return f"SummaryReader(log_path={self._log_path!r})"
