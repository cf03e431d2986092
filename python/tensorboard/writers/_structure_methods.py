"""SummaryWriter's methods for structure: graphs, embeddings, hparams and custom-scalar layouts.
The methods use of their writer only what `_host.StructureHost` declares; `HparamsSessions` and
`CustomLayouts` hold add_hparams' and add_custom_scalars' state."""
from __future__ import annotations

import threading
from typing import Any, Callable, Mapping, Sequence

from tensorboard import process
from tensorboard.events import wire
from tensorboard.src import layout_pb2
from tensorboard.values.args import check_float32, check_run_name, check_step, check_tag, pick, require
from tensorboard.writers.file_writer import FileWriter
from tensorboard.writers.positional import states_order


class StructureMethods:
    """add_graph, add_onnx_graph, add_embedding, add_hparams, add_custom_scalars* for SummaryWriter."""

    @states_order
    def add_graph(self, model, input_to_model=None, verbose: bool = False, use_strict_trace: bool | None = None,
                  **kwargs) -> None:
        """Logs a model's graph for the Graphs dashboard (`tensorboard.graph.to_graph_def` converts it).

        Args:
            model: A GraphDef (or its bytes), an MXNet Symbol or hybridized HybridBlock, a
                torch.nn.Module, an ONNX ModelProto or `.onnx` path, or a JAX/Flax function or module.
            input_to_model: Example inputs: torch, JAX and Flax models are traced with them; MXNet's
                add inferred shapes.
            verbose: torch's; accepted and not used.
            use_strict_trace: torch's; True refuses models returning dicts (torch's default). None: not strict.
            **kwargs: Passed to the framework's converter (e.g. Flax linen's `variables=`).

        Raises:
            TypeError: A model no converter takes, or `use_strict_trace` for a model that is not PyTorch.
            ValueError: Bytes that are not a serialized GraphDef.
        """
        if use_strict_trace is not None:
            from tensorboard.graph import framework_of

            if framework_of(model) != "pytorch":
                raise TypeError("use_strict_trace applies to PyTorch models only")
            kwargs["strict"] = pick("use_strict_trace", use_strict_trace, "strict", kwargs.pop("strict", None))
        if isinstance(model, (bytes, bytearray)):  # checked here to name this method's argument
            from tensorboard.graph import parse_graph_def

            parse_graph_def(bytes(model), "model")
        self._file_writer.add_graph(model, input_to_model, **kwargs)

    @states_order
    def add_onnx_graph(self, onnx_model_file) -> None:
        """Logs the graph of an ONNX model, as tensorboardX's add_onnx_graph.

        Args:
            onnx_model_file: A `.onnx` path or an ONNX ModelProto.

        Raises:
            TypeError: Neither a `.onnx` path nor a ModelProto.
        """
        self._file_writer.add_onnx_graph(onnx_model_file)

    @states_order
    def add_embedding(self, mat=None, metadata=None, label_img=None, global_step=None, tag: str = "default",
                      metadata_header: Sequence[str] | None = None, *, embedding=None, labels=None,
                      images=None) -> None:
        """Writes an embedding for the Projector dashboard (torch's and tensorboardX's positional order).

        The files go to `<logdir>/<step:05d>/<tag>/` (`<logdir>/<tag>/` without a step), and the
        run's projector_config.pbtxt lists them.

        Args:
            mat: An (N, D) matrix of numbers, one row per point.
            metadata: N labels, or N rows of columns with `metadata_header`.
            label_img: N thumbnails, NCHW (or NHW).
            global_step: The step; None writes without one (or with `use_metadata`'s step).
            tag: The embedding's name.
            metadata_header: Column names, for labels of two or more columns.
            embedding: MXBoard's keyword for `mat`.
            labels: MXBoard's keyword for `metadata`.
            images: MXBoard's keyword for `label_img`.

        Raises:
            ValueError: A `mat` that is not a non-empty 2-D array, or labels or images that are not one per row.
        """
        embedding = require("mat", pick("mat", mat, "embedding", embedding))
        if isinstance(embedding, str):
            raise TypeError(f"mat: expected a 2-D matrix, got str {embedding!r:.60}")
        labels = pick("metadata", metadata, "labels", labels)
        images = pick("label_img", label_img, "images", images)
        tag = check_tag("default" if tag is None else tag, "tag")
        from tensorboard import projector
        from tensorboard.values.convert import to_numpy

        if global_step is None and self._defaults:
            global_step = self._defaults.get("global_step")
        step = None if global_step is None else check_step(global_step)
        writer = self._file_writer
        projector.write_embedding(writer.storage, self._logdir, to_numpy(embedding, "mat"),
                                  metadata=labels, label_img=images, tag=tag, global_step=step,
                                  metadata_header=metadata_header)

    @states_order
    def add_hparams(self, hparam_dict: Mapping[str, Any], metric_dict: Mapping[str, Any],
                    hparam_domain_discrete: Mapping[str, Sequence] | None = None, run_name: str | None = None,
                    global_step=None, *, name: str | None = None) -> None:
        """Logs one hparams session: its hparams and final metrics, in this writer's own run.

        The HParams dashboard then lists the run as one trial, named by the run. A metric that names
        a scalar tag this writer already logged in its run links to that curve (nothing more is logged
        for it); a metric without a curve is logged as one point in the run. A second session with
        other hparams in this writer's own run goes to a time-stamped sub-run, with a warning. torch's
        positional order; tensorboardX's 3rd positional is its `name` (here a keyword).

        Args:
            hparam_dict: {name: value}, each value a bool, str, int or float.
            metric_dict: {metric tag: final number}.
            hparam_domain_discrete: {name: [allowed values]}, the hparam's domain in the dashboard.
            run_name: Write the session into sub-run `<run>/<run_name>` instead, every metric as one
                point there (tensorboardX's and torch's layout); "." is this writer's own run.
            global_step: The step of the metric points; None is 0 (or `use_metadata`'s step).
            name: tensorboardX's keyword for `run_name`.

        Raises:
            TypeError: Non-dict arguments, or a value that is not a bool, str or number.
            ValueError: A `run_name` that already holds a session with other hparams, or a domain for an
                hparam not in `hparam_dict`.

        Examples:
            >>> writer.add_hparams({"lr": 0.1, "optimizer": "adam"}, {"hparam/accuracy": 0.93})
        """
        from tensorboard import summary
        from tensorboard.values.convert import to_float

        run_name = pick("run_name", run_name, "name", name)
        if hparam_domain_discrete is not None and not isinstance(hparam_domain_discrete, Mapping):
            raise TypeError(f"hparam_domain_discrete: expected a dict {{name: [values]}}, got "
                            f"{type(hparam_domain_discrete).__name__}: {hparam_domain_discrete!r:.60}")
        if not isinstance(hparam_dict, Mapping):
            raise TypeError(f"hparam_dict must be a dict, got {type(hparam_dict).__name__}")
        if not isinstance(metric_dict, Mapping):
            raise TypeError(f"metric_dict must be a dict, got {type(metric_dict).__name__}")
        metrics = {check_tag(k, "metric_dict key"): to_float(v, f"metric_dict[{k!r}]") for k, v in metric_dict.items()}
        experiment, start, end = summary.hparams(hparam_dict, metrics, hparam_domain_discrete=hparam_domain_discrete)
        if run_name == HparamsSessions.OWN_RUN:  # torch users' idiom for "this writer's own run"
            run_name = None
        if run_name is not None:
            check_run_name(run_name, "run_name")
        logged = _session_hparams(start)
        step, wall = self._step_and_time(global_step, None)
        run, held = self._sessions.claim(run_name, logged)
        parts = (experiment, start, end) if hparam_domain_discrete else (start, end)
        try:
            if run == HparamsSessions.OWN_RUN:
                self._write_own_session(parts, metrics, step, wall)
            else:
                self._write_session(run, parts, metrics, step, wall)
        except BaseException:
            if not held:
                self._sessions.release(run)
            raise

    def _write_own_session(self, parts: tuple, metrics: dict, step: int, wall: float) -> None:
        """Writes the session into this writer's run: the summaries, then one point for each metric
        that has no curve in the run (a metric with a curve is read from the curve by the dashboard)."""
        curves = self._scalars.logged(metrics)
        for part in parts:
            self._file_writer.add_summary(part, step, wall)
        for key, number in metrics.items():
            if key not in curves:
                self._file_writer.add_event_bytes(wire.scalar_event(wire.scalar_prefix(key),
                                                                    check_float32(number, "metric", key), step, wall))
        self._scalars.note(metrics)  # a later session's metric links to these points
        self._file_writer.flush()  # on disk when the call returns, as a session in a sub-run is

    def _write_session(self, run_name: str, parts: tuple, metrics: dict, step: int, wall: float) -> None:
        """Writes one hparams session into its run with a writer of its own, closed before returning."""
        # Upstream takes the first experiment summary it finds as the whole experiment; without one it
        # unites every session's hparams and metrics. So an experiment is written only to carry the
        # discrete domains the caller asked for. The session's own writer is closed at the end of the
        # call, as torch and tensorboardX close theirs: it is on disk when the call returns, and a sweep
        # keeps no thread or file per session.
        writer = FileWriter(self._file_writer.storage.join(self._logdir, run_name), **self._options)
        try:
            for part in parts:
                writer.add_summary(part, step, wall)
            for key, number in metrics.items():
                writer.add_event_bytes(wire.scalar_event(wire.scalar_prefix(key),
                                                         check_float32(number, "metric", key), step, wall))
        finally:
            writer.close()
            self._sessions.count_dropped(writer.dropped_events)

    @states_order
    def add_custom_scalars(self, layout) -> None:
        """Logs a layout of charts for the Custom Scalars dashboard.

        The dashboard shows one layout per run, the last logged, so the layout logged is this
        writer's earlier layouts plus this one: a chart with the same category and title is replaced.

        Args:
            layout: {category: {chart title: ["Multiline", [tag regexes]] or ["Margin", [value,
                lower, upper]]}}, or a Layout proto.

        Raises:
            TypeError: A layout not of that form.
            ValueError: A chart kind other than Multiline or Margin, or a Margin chart without three tags.

        Examples:
            >>> writer.add_custom_scalars({"loss": {"train vs val": ["Multiline", ["loss/train", "loss/val"]]}})
        """
        from tensorboard import summary
        from tensorboard.summary.custom_scalars import layout_proto

        self._layouts.log(layout_proto(layout), lambda merged: self._add(summary.custom_scalars(merged), None, None))

    @states_order
    def add_custom_scalars_multilinechart(self, tags: Sequence[str], category: str = "default",
                                          title: str = "untitled") -> None:
        """Adds one multi-line chart to the Custom Scalars layout (see `add_custom_scalars`).

        Args:
            tags: The charted tags (regexes), a list of str.
            category: The chart's category.
            title: The chart's title.
        """
        self.add_custom_scalars({check_tag(category, "category"): {check_tag(title, "title"): [
            "Multiline", _chart_tags(tags)]}})

    @states_order
    def add_custom_scalars_marginchart(self, tags: Sequence[str], category: str = "default",
                                       title: str = "untitled") -> None:
        """Adds one margin chart (a value between lower and upper bounds) to the Custom Scalars layout.

        Args:
            tags: Three tags: [value, lower, upper].
            category: The chart's category.
            title: The chart's title.

        Raises:
            ValueError: Not three tags.
        """
        tags = _chart_tags(tags)
        if len(tags) != 3:
            raise ValueError(f"tags must be [value, lower, upper], got {len(tags)} tags")
        self.add_custom_scalars({check_tag(category, "category"): {check_tag(title, "title"): ["Margin", tags]}})


def _chart_tags(tags) -> list:
    """A chart's tags: a list or tuple of tag strings."""
    if not isinstance(tags, (list, tuple)):
        raise TypeError(f"tags: expected a list of tag strings, got {type(tags).__name__}: {tags!r:.60}")
    return [check_tag(tag, "tags") for tag in tags]


class HparamsSessions:
    """add_hparams' sessions of one writer: the hparams each run holds (the dashboard keeps a run's first,
    so another session's hparams there would be paired with the wrong metrics), and the events dropped
    by the writers of the sessions in sub-runs, each closed at the end of its call."""

    OWN_RUN = "."  # the writer's own run: run_name None, or "." (torch users' way to name it)

    def __init__(self) -> None:
        self._runs: dict[str, dict[str, bytes]] = {}
        self._lock = threading.Lock()
        self.dropped = 0
        process.track(self, HparamsSessions._fresh_lock)

    def claim(self, run_name: str | None, logged: dict[str, bytes]) -> tuple[str, bool]:
        """(the run a session with hparams `logged` goes to, whether that run held them already). Taken
        at once, so a concurrent call sees it; `release` frees it if the session could not be written.

        The writer's own run (run_name None) takes one set of hparams; another set there goes to a
        time-stamped sub-run, with a warning (tensorboardX's layout). Another set under a run_name raises.
        """
        own = run_name is None
        with self._lock:
            if own and self._runs.get(self.OWN_RUN, logged) != logged:  # a second trial on one writer
                own, run_name = False, _fresh_run_name(self._runs)
                import warnings

                warnings.warn("add_hparams: this writer's run already holds a session with other hparams, so this "
                              "session goes to a time-stamped sub-run (tensorboardX's layout); use one "
                              "SummaryWriter per trial for one run per trial, or pass run_name=",
                              stacklevel=4)  # add_hparams' caller (past this method, add_hparams and states_order)
            run = self.OWN_RUN if own else run_name
            earlier = self._runs.get(run)
            if earlier is not None and earlier != logged:
                where = "this writer's run" if own else f"run_name {run!r}"
                raise ValueError(f"{where} already holds a session with other hparams; the dashboard keeps a run's "
                                 f"first hparams, so this session's metrics would show beside them: log each "
                                 f"session with its own SummaryWriter (or give each its own run_name)")
            self._runs[run] = logged
        return run, earlier is not None

    def release(self, run: str) -> None:
        """Frees `run` after its first session could not be written."""
        with self._lock:
            self._runs.pop(run, None)

    def count_dropped(self, count: int) -> None:
        """Adds the events a session's closed writer dropped (on_error="warn") to `dropped`."""
        with self._lock:
            self.dropped += count

    def _fresh_lock(self) -> None:
        self._lock = threading.Lock()  # in a forked child: a thread of the parent may have held it


class CustomLayouts:
    """add_custom_scalars' layouts of one writer, merged: the dashboard shows a run's last layout only,
    so each one logged holds the earlier ones (a chart of the same category and title is replaced)."""

    def __init__(self) -> None:
        self._layout: layout_pb2.Layout | None = None
        self._lock = threading.Lock()
        process.track(self, CustomLayouts._fresh_lock)

    def log(self, new: layout_pb2.Layout, write: Callable[[layout_pb2.Layout], None]) -> None:
        """Merges `new` into the layouts so far and passes the result to `write`, one call at a time
        (so the layout written last holds every one merged before it)."""
        from tensorboard.summary.custom_scalars import merge_layouts

        with self._lock:
            self._layout = merge_layouts(self._layout, new)
            write(self._layout)

    def _fresh_lock(self) -> None:
        self._lock = threading.Lock()  # in a forked child: a thread of the parent may have held it


def _fresh_run_name(taken: dict) -> str:
    """A time-stamp sub-run name this writer has not used (tensorboardX's name for a session's run)."""
    import time

    name = f"{time.time():.6f}"
    while name in taken:
        name += "_"
    return name


def _session_hparams(start) -> dict[str, bytes]:
    """The hparams a session-start summary holds, comparable between calls (its start time left out)."""
    from tensorboard.src import hparams_pb2

    info = hparams_pb2.HParamsPluginData.FromString(start.value[0].metadata.plugin_data.content).session_start_info
    return {name: value.SerializeToString(deterministic=True) for name, value in info.hparams.items()}
