"""`SummaryReader`: tbparse's interface (a tbparse user changes only the import), read with our fast decoder."""
from __future__ import annotations

import os
from typing import Any

from tensorboard.logdir import Selection, is_event_file, list_runs, read_listed
from tensorboard.logdir.experiment import read_listed_experiment, select_experiment
from tensorboard.logdir.fetch import check_bounds
from tensorboard.logdir.kinds import ALL_EVENT_TYPES, ALL_EXTRA_COLUMNS
from tensorboard.reader import _raw, _tbparse_static


class OptionTypeError(TypeError, ValueError):
    """extra_columns or event_types is not a set (a ValueError in tbparse, hence both)."""


class UnknownOptionError(KeyError, ValueError):
    """extra_columns or event_types names something unknown (a KeyError in tbparse, hence both)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class LogPathNotFoundError(FileNotFoundError, ValueError):
    """log_path does not exist (a ValueError in tbparse, hence both)."""


def _copy_on_write(pd) -> bool:
    """Whether pandas copies a frame's data when either of two frames sharing it is changed (always from
    pandas 3): a shallow copy of the cached frame is then as safe to hand out as a deep one."""
    return int(pd.__version__.split(".")[0]) >= 3 or pd.options.mode.copy_on_write is True


def _frame_property(kind: str) -> property:
    """A read-only attribute giving `get_events(kind)`, as tbparse's `reader.scalars` & co."""
    return property(lambda self: self.get_events(kind), doc=f"The {kind} as a DataFrame (tbparse's layout).")


def _checked_set(value, name: str, known) -> set:
    if not isinstance(value, (set, frozenset)):
        raise OptionTypeError(f"{name} must be a set, not {type(value).__name__}")
    if set(value) - known:
        raise UnknownOptionError(f"{name}: unknown {sorted(set(value) - known)}; choose from {sorted(known)}")
    return set(value)


class SummaryReader:
    """Reads every event file below `log_path` into pandas DataFrames in tbparse's layouts.

    tbparse's interface: a tbparse user changes only the import. Properties `scalars`, `tensors`,
    `histograms`, `images`, `audio`, `text`, `hparams` are DataFrames; `children`, `raw_tags`,
    `raw_events` and the static helpers are tbparse's too. The filters are `tensorboard export`'s;
    runs they leave out are not fetched.

    Args:
        log_path: A directory or one event file; local, file:// or an fsspec URL.
        pivot: Wide form: one column per tag, rows merged per step (tbparse's `pivot`).
        extra_columns: A set of further columns: "dir_name", "file_name", "wall_time", and the
            kinds' own ("min", "max", "num", "width", "sample_rate", ...).
        event_types: A set of the kinds to read (default all): "scalars", "tensors", "histograms",
            "images", "audio", "text", "hparams".
        storage_options: fsspec options for a remote path (e.g. {"endpoint_url": ...} for S3).
        skip_damaged: Keep a damaged file's events before the damage (with a DamagedFileWarning)
            instead of raising CorruptEventFileError.
        runs: A regex searched in run names (directories relative to `log_path`, "." for the top).
        tags: A regex searched in tag names.
        steps: (lo, hi): keep steps lo..hi, both included; None for an open end.
        concurrency: Object-store files fetched at once (default 64; 256 through obstore).
        max_bytes: Object-store bytes in flight (default 256 MiB).
        exclude: A regex; the runs it matches are left out.
        where: A query over hyperparameters, `tensorboard export --where`'s: `'lr < 0.01 and
            optimizer == "adam"'` (see `tensorboard.logdir.query`); the runs it leaves out are dropped.
        over: Hyperparameter keys (a list, or comma-separated) a configuration's runs differ in, e.g.
            "seed": `groups` then holds the runs of each configuration.
        hparams_file: A further configuration file (JSON, YAML or TOML) to read hyperparameters from,
            looked for in each run's directory and its parents up to `log_path`.

    Raises:
        FileNotFoundError: `log_path` does not exist (a ValueError too, as in tbparse).
        TypeError: `extra_columns` or `event_types` is not a set (a ValueError too), or a bad `steps`.
        KeyError: `extra_columns` or `event_types` names something unknown (a ValueError too).
        ValueError: An invalid regex, step range, query, `concurrency` or `max_bytes`, or a `where`
            or `over` key no run has.
        CorruptEventFileError: A record that fails its CRC check, unless `skip_damaged`.

    Examples:
        >>> from tensorboard.reader import SummaryReader
        >>> frame = SummaryReader("runs", extra_columns={"dir_name"}).scalars
    """

    def __init__(self, log_path: str | os.PathLike, *, pivot: bool = False, extra_columns: set | None = None,
                 event_types: set | None = None, storage_options: dict | None = None,
                 skip_damaged: bool = False, runs: str | None = None, tags: str | None = None,
                 steps: tuple[int | None, int | None] | None = None, concurrency: int | None = None,
                 max_bytes: int | None = None, exclude: str | None = None, where: str | None = None,
                 over: str | list[str] | None = None, hparams_file: str | None = None):
        extra = _checked_set(set() if extra_columns is None else extra_columns, "extra_columns", ALL_EXTRA_COLUMNS)
        types = _checked_set(set(ALL_EVENT_TYPES) if event_types is None else event_types, "event_types",
                             ALL_EVENT_TYPES)
        self._selection = Selection.of(runs, tags, steps, types, exclude=exclude, where=where, over=over,
                                       hparams_file=hparams_file)
        check_bounds(concurrency, max_bytes)
        self._fetch_options = {"concurrency": concurrency, "max_bytes": max_bytes}
        self._log_path = os.fspath(log_path)
        self._pivot = bool(pivot)
        self._extra_columns = extra
        self._event_types = types
        self._storage_options = storage_options
        self._skip_damaged = skip_damaged
        try:  # one listing serves the existence check, the directory check and the reading
            listing = list_runs(self._log_path, storage_options, concurrency=concurrency)
        except FileNotFoundError as err:
            raise LogPathNotFoundError(f"File or directory not found: {self._log_path}") from err
        self._storage, self._is_dir = listing.storage, listing.is_dir
        self._local = self._storage.canonical(self._log_path)
        self._listing = listing.only(self._selection.wants_run)
        self._experiment = None
        if self._selection.needs_hparams:
            self._experiment = read_listed_experiment(self._listing, self._selection, skip_damaged,
                                                      **self._fetch_options)
            self._runs = self._experiment.runs
        else:
            self._runs = list(read_listed(self._listing, skip_damaged, selection=self._selection,
                                          **self._fetch_options))
        self._frames: dict = {}
        self._children: dict[str, SummaryReader] | None = None

    @classmethod
    def _empty(cls, log_path: str, parent: "SummaryReader") -> "SummaryReader":
        """A child for a file that is not an event file: no events (tbparse's child of such a file)."""
        child = cls.__new__(cls)
        child.__dict__.update(parent.__dict__, _log_path=log_path, _local=log_path, _is_dir=False, _runs=[],
                              _frames={}, _children=None)
        return child

    @property
    def log_path(self) -> str:
        """The directory or event file read, as given."""
        return self._log_path

    def get_events(self, event_type: str):
        """The DataFrame of one event type (computed once, then cached; each call returns a copy).

        Args:
            event_type: "scalars", "tensors", "histograms", "images", "audio", "text" or "hparams".

        Returns:
            A pandas DataFrame, as the property of that name.

        Raises:
            ValueError: An unknown event type, or one left out by `event_types`.
        """
        if event_type not in ALL_EVENT_TYPES:
            raise ValueError(f"Unknown event_type: {event_type!r}; choose from {sorted(ALL_EVENT_TYPES)}")
        if event_type not in self._event_types:
            raise ValueError(f"event_type {event_type!r} was not asked for in event_types={sorted(self._event_types)}")
        if event_type not in self._frames:
            from tensorboard.reader._frames import build_frame

            self._frames[event_type] = build_frame(self._runs, event_type, self._pivot, self._extra_columns)
        import pandas as pd

        return self._frames[event_type].copy(deep=not _copy_on_write(pd))

    scalars = _frame_property("scalars")
    tensors = _frame_property("tensors")
    histograms = _frame_property("histograms")
    images = _frame_property("images")
    audio = _frame_property("audio")
    text = _frame_property("text")
    hparams = _frame_property("hparams")

    def _discovered(self) -> dict:
        """{run: {key: HParam}} of the runs read, from every source (computed once)."""
        if self._experiment is None:
            self._experiment = select_experiment(self._listing, self._runs, Selection())
        return self._experiment.hparams

    @property
    def hparams_table(self):
        """One row per run with hyperparameters (from add_hparams, hparams.yaml, .hydra/config.yaml,
        params.json, key=value directory names, `hparams_file`): `run` (as export names it, "." for
        the top), its hyperparameters, then each metric's final value (the last point of its curve:
        the metrics the experiment names, else the scalar tags the runs share).

        Call it for best values: `reader.hparams_table(metrics={"val/loss": "min", "val/acc": "max"})`
        gives one column per metric ("val/loss (min)", ...): "last", "min" or "max" of each tag."""
        from tensorboard.logdir.hparams import hparams_frame
        from tensorboard.reader._hparams_table import callable_table

        discovered = self._discovered()
        return callable_table(hparams_frame(self._runs, discovered), lambda metrics=None: self._table(metrics))

    def _table(self, metrics):
        from tensorboard.logdir.hparams import hparams_frame
        from tensorboard.logdir.metrics import parse_metrics

        return hparams_frame(self._runs, self._discovered(), parse_metrics(metrics, "metrics") if metrics else None)

    @property
    def hparams_sources(self):
        """Every run's hyperparameters with where each came from: a DataFrame of `run`, `name`, `value`,
        `source` ("hparams_file", "add_hparams", "lightning", "ray_tune", "hydra", "hydra_overrides" or
        "path", highest precedence first) and `origin` (the file, the path segment or the run)."""
        import pandas as pd

        rows = [(run, name, h.value, h.source, h.origin) for run, values in self._discovered().items()
                for name, h in values.items()]
        if not rows:  # as every property with nothing to show: empty, without columns
            return pd.DataFrame()
        return pd.DataFrame(rows, columns=["run", "name", "value", "source", "origin"])

    @property
    def groups(self) -> dict[str, list[str]]:
        """{group: its runs} of `over` (runs that agree on every other hyperparameter; the group named
        after the keys varying between groups, e.g. "lr=0.01,optimizer=adam"); {} without `over`."""
        grouping = self._experiment.grouping if self._experiment is not None else None
        return {} if grouping is None else {group.name: list(group.runs) for group in grouping.groups}

    @property
    def metadata(self) -> dict[str, dict[str, Any]]:
        """{run: its metadata} for each run that holds some (tensorboard.system writes it): flat fields
        `command`, `git.commit`, `git.dirty`, `host`, `python`, `versions.<library>`, `start_time`. Run
        names as `hparams_table` gives them; a resumed run gives its latest process's."""
        from tensorboard.logdir.run_metadata import metadata_by_run

        return metadata_by_run(self._runs)

    @property
    def tags(self) -> dict[str, list[str]]:
        """{event type: tag names} for every event type ([] for types not asked for), as tbparse lists
        them: the stored names (text tags keep their '/text_summary'), in the order first seen, run
        after run; hyperparameters by name (tbparse lists them in its protobuf map's order)."""
        return self.get_tags()

    def get_tags(self, event_type: str | None = None) -> list[str] | dict[str, list[str]]:
        """The tag names of one event type, or of all (as `tags`).

        Args:
            event_type: An event type; None for all of them.

        Returns:
            A list of tag names, or {event type: tag names} for None.

        Raises:
            ValueError: An unknown event type.
        """
        if event_type is not None and event_type not in ALL_EVENT_TYPES:
            raise ValueError(f"Unknown event_type: {event_type}")
        from tensorboard.reader._frames import run_tags

        kinds = _raw.EVENT_TYPES_ORDER if event_type is None else (event_type,)
        tags = {kind: list(dict.fromkeys(tag for run in self._runs for tag in run_tags(run, kind)))
                if kind in self._event_types else [] for kind in kinds}
        return tags if event_type is None else tags[event_type]

    @property
    def children(self) -> dict[str, "SummaryReader"]:
        """{name: SummaryReader} for each entry of a directory log_path (sorted; a file has none), read
        with the same options: the tree of directories and files tbparse builds. Read on first use. The
        tag and step filters carry over; `runs` does not (run names are relative to each child)."""
        if self._children is None:
            self._children = {}
            if self._is_dir:
                for name in self._storage.listdir(self._local):
                    self._children[name] = self._child(self._storage.join(self._local, name))
        return dict(self._children)

    def _child(self, path: str) -> "SummaryReader":
        if not self._storage.isdir(path) and not is_event_file(path):
            return SummaryReader._empty(path, self)
        return SummaryReader(path, pivot=self._pivot, extra_columns=self._extra_columns,
                             event_types=self._event_types, storage_options=self._storage_options,
                             skip_damaged=self._skip_damaged, tags=self._selection.tags,
                             steps=self._selection.steps, **self._fetch_options)

    def __getitem__(self, child_idx: str) -> "SummaryReader":
        """`reader[name]`: the child reader of that directory entry."""
        return self.children[child_idx]

    # -- one event file's raw events, as upstream's EventAccumulator holds them (tbparse's raw API) ----

    def _event_file(self) -> str:
        if self._is_dir:
            raise ValueError(f"Not an event file: {self._log_path}")
        return self._local

    @property
    def raw_tags(self) -> dict[str, Any]:
        """{raw event type: tags} of an event file log_path (ValueError for a directory)."""
        return self.get_raw_tags()

    def get_raw_tags(self, event_type: str | None = None, event_acc=None) -> Any:
        """An event file's raw tags, as upstream's EventAccumulator lists them (tbparse's raw API).

        Args:
            event_type: One raw type ('scalars', ..., 'graph', 'meta_graph', 'run_metadata',
                'hparams', 'text'); None for all of them.
            event_acc: An already loaded EventAccumulator to use.

        Returns:
            The tags of that type, or {raw event type: tags} for None.

        Raises:
            ValueError: An unknown event type, or a `log_path` that is a directory.
        """
        if event_type is not None and event_type not in _raw.RAW_EVENT_TYPES:
            raise ValueError(f"Unknown event_type: {event_type}")
        path = self._event_file()
        return _raw.raw_tags(event_acc if event_acc is not None else _raw.load_accumulator(path), event_type)

    @property
    def raw_events(self) -> dict[str, dict[str, list]]:
        """{event type: {tag: [events]}} of an event file log_path: upstream's EventAccumulator events."""
        return self.get_raw_events()

    def get_raw_events(self, event_type: str | None = None, tag: str | None = None, event_acc=None) -> Any:
        """An event file's raw events, upstream's EventAccumulator's (tbparse's raw API).

        Args:
            event_type: One raw type; None for all of them.
            tag: One tag of that type; None for all of them.
            event_acc: An already loaded EventAccumulator to use.

        Returns:
            The events of one tag (a list), of one type ({tag: list}), or of all types.

        Raises:
            ValueError: A `log_path` that is a directory.
        """
        path = self._event_file()
        return _raw.raw_events(event_acc if event_acc is not None else _raw.load_accumulator(path), event_type, tag)

    # -- tbparse's static helpers ------------------------------------------------------------------------

    tensor_to_histogram = staticmethod(_tbparse_static.tensor_to_histogram)
    buckets_to_histogram_dict = staticmethod(_tbparse_static.buckets_to_histogram_dict)
    tensor_to_image = staticmethod(_tbparse_static.tensor_to_image)
    tensor_to_audio = staticmethod(_tbparse_static.tensor_to_audio)
    histogram_to_cdf = staticmethod(_tbparse_static.histogram_to_cdf)
    histogram_to_pdf = staticmethod(_tbparse_static.histogram_to_pdf)
    histogram_to_bins = staticmethod(_tbparse_static.histogram_to_bins)

    def __repr__(self) -> str:
        return f"SummaryReader(log_path='{self._log_path}')"
