"""`StandaloneDataProvider`: upstream TensorBoard's `DataProvider` interface served from our reader's
column stores (see Logdir), answering as upstream's MultiplexerDataProvider answers: run names,
plugin and data-class filtering by each tag's first summary metadata, downsampling, blob keys."""
from __future__ import annotations

import base64
import json

from tensorboard import errors
from tensorboard.compat.proto import summary_pb2
from tensorboard.data import provider
from tensorboard.logdir.payloads import tensor_to_numpy
from tensorboard.serving.series import SeriesView, downsample_indices

_SCALAR = summary_pb2.DATA_CLASS_SCALAR
_TENSOR = summary_pb2.DATA_CLASS_TENSOR
_BLOBS = summary_pb2.DATA_CLASS_BLOB_SEQUENCE
_HPARAMS = "hparams"  # upstream's HParams plugin


def encode_blob_key(experiment_id: str, plugin_name: str, run: str, tag: str, step: int, index: int) -> str:
    """URL-safe base64 (unpadded) of the compact JSON list of the fields, the format upstream's keys have."""
    text = json.dumps((experiment_id, plugin_name, run, tag, step, index), separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode("ascii")).decode("ascii").rstrip("=")


def decode_blob_key(key: str) -> tuple:
    """The fields encode_blob_key packed; NotFoundError for a key it did not make."""
    try:
        fields = json.loads(base64.urlsafe_b64decode(key + "==").decode("ascii"))
        experiment_id, plugin_name, run, tag, step, index = fields
    except (ValueError, TypeError, UnicodeDecodeError):
        raise errors.NotFoundError("blob key %r" % (key,)) from None
    return experiment_id, plugin_name, run, tag, step, index


class StandaloneDataProvider(provider.DataProvider):
    """Upstream's data provider interface over a Logdir (runs named and filled as upstream's loader does)."""

    def __init__(self, logdir, data_location: str, hparams=None):
        """`logdir`: a tensorboard.serving.served_logdir.Logdir; `data_location`: the --logdir text, shown as is;
        `hparams`: a serving.served_hparams.ServedHParams (the runs' discovered hparams, --where), or None."""
        self._logdir = logdir
        self._location = data_location
        self._hparams = hparams

    def _runs(self) -> dict:
        """The runs served (those --where keeps, and the group runs, made of those), a snapshot."""
        runs = self._logdir.runs()
        if self._hparams is None:
            return runs
        groups = self._logdir.group_runs()
        return {name: run for name, run in runs.items() if name in groups or self._hparams.wants(name)}

    def __str__(self) -> str:
        return "StandaloneDataProvider(logdir=%r)" % self._location

    # -- experiment, plugins, runs ------------------------------------------------------------------
    def experiment_metadata(self, ctx=None, *, experiment_id):
        return provider.ExperimentMetadata(data_location=self._location)

    def list_plugins(self, ctx=None, *, experiment_id):
        names = set()
        for run in self._runs().values():
            with run.lock:
                names.update(run.plugins)
        if self._hparams is not None and self._hparams.replaces_hparams():
            names.add(_HPARAMS)
        return names

    def list_runs(self, ctx=None, *, experiment_id):
        return [provider.Run(run_id=name, run_name=name, start_time=run.first_wall)
                for name, run in self._runs().items()]

    # -- the index of (run, tag) -> metadata ----------------------------------------------------------
    def _index(self, plugin_name: str, run_tag_filter, data_class) -> dict:
        runs = tags = None
        if run_tag_filter is not None:
            runs, tags = run_tag_filter.runs, run_tag_filter.tags
        result: dict = {}
        for name, run in self._runs().items():
            if runs is not None and name not in runs:
                continue
            with run.lock:
                items = list(run.metadata.items())
            if plugin_name == _HPARAMS and data_class == _TENSOR:
                items = self._hparams_items(name, items)
            for tag, meta in items:
                if tags is not None and tag not in tags:
                    continue
                if meta.data_class != data_class or meta.plugin_data.plugin_name != plugin_name:
                    continue
                result.setdefault(name, {})[tag] = meta
        return result

    def _hparams_items(self, run: str, items: list) -> list:
        """A run's hparams tags as served: its own, or those of the discovered hparams in their place."""
        served = None if self._hparams is None else self._hparams.contents(run)
        if served is None:
            return items if self._hparams is None or not self._hparams.replaces_hparams() else \
                [(tag, meta) for tag, meta in items if meta.plugin_data.plugin_name != _HPARAMS]
        kept = [(tag, meta) for tag, meta in items if meta.plugin_data.plugin_name != _HPARAMS]
        return kept + [(tag, _tensor_metadata(_HPARAMS, content)) for tag, content in served.items()]

    def _views(self, index: dict):
        """(run name, tag, metadata, SeriesView or None) for every indexed series."""
        runs = self._runs()
        for name, tag_to_meta in index.items():
            run = runs[name]
            for tag, meta in tag_to_meta.items():
                with run.lock:
                    series = run.series.get(tag)
                    columns = None if series is None else series.view()
                yield name, tag, meta, columns

    def _list(self, make, index: dict, with_length: bool = False) -> dict:
        result: dict = {}
        runs = self._runs()
        for name, tag_to_meta in index.items():
            run, listed = runs[name], result.setdefault(name, {})
            for tag, meta in tag_to_meta.items():
                with run.lock:
                    series = run.series.get(tag)
                    max_step, max_wall, longest = (None, None, None) if series is None else series.extent()
                extra = {"max_length": longest} if with_length else {}
                listed[tag] = make(max_step=max_step, max_wall_time=max_wall,
                                   plugin_content=meta.plugin_data.content, description=meta.summary_description,
                                   display_name=meta.display_name, **extra)
        return result

    # -- scalars ------------------------------------------------------------------------------------
    def list_scalars(self, ctx=None, *, experiment_id, plugin_name, run_tag_filter=None):
        return self._list(provider.ScalarTimeSeries, self._index(plugin_name, run_tag_filter, _SCALAR))

    def read_scalars(self, ctx=None, *, experiment_id, plugin_name, downsample=None, run_tag_filter=None):
        _check_downsample(downsample)
        index = self._index(plugin_name, run_tag_filter, _SCALAR)
        result: dict = {name: {} for name in index}
        for name, tag, _, columns in self._views(index):
            result[name][tag] = _scalar_data(columns, downsample_indices(_count(columns), downsample))
        return result

    def read_last_scalars(self, ctx=None, *, experiment_id, plugin_name, run_tag_filter=None):
        result: dict = {}
        for name, tag, _, columns in self._views(self._index(plugin_name, run_tag_filter, _SCALAR)):
            count = _count(columns)
            if count:
                result.setdefault(name, {})[tag] = _scalar_data(columns, [count - 1])[0]
        if self._hparams is not None and run_tag_filter is not None and run_tag_filter.tags:
            self._add_best_values(result, run_tag_filter)
        return result

    def _add_best_values(self, result: dict, run_tag_filter) -> None:
        """The best-value metrics (`val/loss (min)`) the HParams dashboard asks for, from the served points."""
        for name, run in self._runs().items():
            if run_tag_filter.runs is not None and name not in run_tag_filter.runs:
                continue
            for tag in run_tag_filter.tags:
                best = self._hparams.best_value(run, tag)
                if best is not None:
                    step, wall, value = best
                    result.setdefault(name, {})[tag] = provider.ScalarDatum(step=step, wall_time=wall, value=value)

    # -- tensors ------------------------------------------------------------------------------------
    def list_tensors(self, ctx=None, *, experiment_id, plugin_name, run_tag_filter=None):
        return self._list(provider.TensorTimeSeries, self._index(plugin_name, run_tag_filter, _TENSOR))

    def read_tensors(self, ctx=None, *, experiment_id, plugin_name, downsample=None, run_tag_filter=None):
        _check_downsample(downsample)
        index = self._index(plugin_name, run_tag_filter, _TENSOR)
        result: dict = {name: {} for name in index}
        for name, tag, _, columns in self._views(index):
            data = []
            for i in downsample_indices(_count(columns), downsample):
                data.append(provider.TensorDatum(step=int(columns.steps[i]), wall_time=float(columns.walls[i]),
                                                 numpy=tensor_to_numpy(columns.tensor(i))))
            result[name][tag] = data
        return result

    # -- blob sequences -----------------------------------------------------------------------------
    def list_blob_sequences(self, ctx=None, *, experiment_id, plugin_name, run_tag_filter=None):
        return self._list(provider.BlobSequenceTimeSeries, self._index(plugin_name, run_tag_filter, _BLOBS),
                          with_length=True)

    def read_blob_sequences(self, ctx=None, *, experiment_id, plugin_name, downsample=None, run_tag_filter=None):
        _check_downsample(downsample)
        index = self._index(plugin_name, run_tag_filter, _BLOBS)
        result: dict = {name: {} for name in index}
        for name, tag, _, columns in self._views(index):
            first_at: dict = {}  # step -> its first point (in reservoir order), as upstream keeps it
            for i, step in enumerate(columns.steps.tolist() if columns is not None else []):
                first_at.setdefault(step, i)
            points = [first_at[s] for s in sorted(first_at)]
            data = []
            for k in downsample_indices(len(points), downsample):
                i = points[k]
                step = int(columns.steps[i])
                keys = tuple(provider.BlobReference(encode_blob_key(experiment_id, plugin_name, name, tag, step, j))
                             for j in range(int(columns.lengths[i])))
                data.append(provider.BlobSequenceDatum(wall_time=float(columns.walls[i]), step=step, values=keys))
            result[name][tag] = data
        return result

    def read_blob(self, ctx=None, *, blob_key):
        _, _, name, tag, step, index = decode_blob_key(blob_key)
        run = self._runs().get(name)
        if run is None:
            raise errors.NotFoundError("no run %r" % (name,))
        with run.lock:
            meta = run.metadata.get(tag)
            series = run.series.get(tag)
            columns = None if series is None else series.view()
        if meta is None or meta.data_class != _BLOBS or columns is None:
            raise errors.NotFoundError(blob_key)
        matches = (columns.steps == step).nonzero()[0]
        if not len(matches):
            raise errors.NotFoundError("%s: no such step %r" % (blob_key, step))
        return tensor_to_numpy(columns.tensor(int(matches[0])))[index]


def _tensor_metadata(plugin_name: str, content: bytes):
    """The SummaryMetadata of a tensor series of `plugin_name` holding `content`."""
    meta = summary_pb2.SummaryMetadata(data_class=_TENSOR)
    meta.plugin_data.plugin_name = plugin_name
    meta.plugin_data.content = content
    return meta


def _check_downsample(downsample) -> None:
    if downsample is None:
        raise TypeError("`downsample` required but not given")
    if not isinstance(downsample, int):
        raise TypeError("`downsample` must be an int, but got %r: %r" % (type(downsample), downsample))


def _count(columns: SeriesView | None) -> int:
    return 0 if columns is None else len(columns)


def _scalar_data(columns: SeriesView, picked: list[int]) -> list:
    if not picked:
        return []
    steps, walls = columns.steps, columns.walls
    if columns.numeric:
        return [provider.ScalarDatum(step=s, wall_time=w, value=v) for s, w, v in
                zip(steps[picked].tolist(), walls[picked].tolist(), columns.values[picked].tolist())]
    return [provider.ScalarDatum(step=int(steps[i]), wall_time=float(walls[i]),
                                 value=tensor_to_numpy(columns.tensor(i)).item()) for i in picked]
