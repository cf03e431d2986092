"""The two user-facing writers.

`FileWriter` is the low-level API of seed 002: it takes Summary protos (or their bytes)
and Events. `SummaryWriter` is the high-level API of MXBoard and tensorboardX: one
`add_*` method per data type, converting framework values and encoding summaries
before handing serialized events to a FileWriter.
"""
from __future__ import annotations

import inspect
import os
import threading
from time import time as _now
import weakref
from typing import Any, Mapping, Sequence

from tensorboard import wire
from tensorboard._args import check_step, check_tag, check_walltime, pick, require
from tensorboard.event_file import EventFileWriter
from tensorboard.src import event_pb2, graph_pb2, summary_pb2
from tensorboard.src._pool import is_message
from tensorboard.storage import storage_for

_live_file_writers: "weakref.WeakSet[FileWriter]" = weakref.WeakSet()


class FileWriter:
    """Writes Summary protos and Events to a new event file in `logdir`, asynchronously.

    fsync: fsync the file on every flush (power-loss durability, slower).
    on_error: "raise" (default) raises an I/O error at the next add/flush/close; "warn" warns once,
        drops and counts what cannot be written and retries (see tensorboard.event_file).
    max_file_bytes: roll over to a new event file at this size (default: 16 MiB on object stores).
    storage_options: fsspec options for a remote logdir URL (e.g. {"endpoint_url": ...} for S3).
    """

    def __init__(self, logdir: str | os.PathLike, max_queue: int = 10, flush_secs: float = 120,
                 filename_suffix: str = "", *, fsync: bool = False, max_pending_bytes: int | None = None,
                 on_error: str = "raise", max_file_bytes: int | None = None,
                 storage_options: Mapping[str, Any] | None = None):
        if logdir is None:
            raise TypeError("logdir must be a path or URL, got None")
        self._logdir = os.fspath(logdir)
        self._options = dict(max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix,
                             fsync=fsync, on_error=on_error, max_file_bytes=max_file_bytes)
        if max_pending_bytes is not None:
            self._options["max_pending_bytes"] = max_pending_bytes
        self._storage = storage_for(self._logdir, **dict(storage_options or {}))
        self._lock = threading.Lock()
        self._dropped_before = 0  # dropped by event files already closed
        self._writer: EventFileWriter | None = self._open()
        _live_file_writers.add(self)

    def _open(self) -> EventFileWriter:
        return EventFileWriter(self._logdir, storage=self._storage, **self._options)

    @property
    def storage(self):
        """The storage layer of this writer's logdir (local files or fsspec)."""
        return self._storage

    @property
    def dropped_events(self) -> int:
        """Events on_error="warn" could not write and dropped, over every file of this writer (0 with "raise")."""
        writer = self._writer
        return self._dropped_before + (writer.dropped_events if writer is not None else 0)

    def get_logdir(self) -> str:
        """The directory (or URL) this writer writes to."""
        return self._logdir

    @property
    def path(self) -> str:
        """The current event file."""
        return self._event_writer().path

    def _event_writer(self) -> EventFileWriter:
        writer = self._writer
        if writer is None:
            with self._lock:
                if self._writer is None:
                    self._writer = self._open()
                writer = self._writer
        return writer

    # -- adding ------------------------------------------------------------------------------------

    def add_event_bytes(self, event_bytes: bytes) -> None:
        """Queues an already serialized Event."""
        writer = self._writer
        if writer is None:
            writer = self._event_writer()
        writer.write(event_bytes)

    def add_event(self, event: event_pb2.Event) -> None:
        """Queues an Event proto (ours or upstream's `tensorboard.compat.proto`); a missing wall_time is set to now."""
        if not is_message(event, event_pb2.Event):
            raise TypeError(f"event must be a tensorboard Event proto, got {type(event).__name__}")
        if not event.wall_time:
            event = event_pb2.Event.FromString(event.SerializeToString())
            event.wall_time = check_walltime(None)
        self.add_event_bytes(event.SerializeToString())

    def add_summary(self, summary: summary_pb2.Summary | bytes, global_step=None, walltime=None) -> None:
        """Queues a Summary proto (or its serialized bytes) at `global_step`."""
        if is_message(summary, summary_pb2.Summary):  # ours or upstream's: the same wire format
            summary_bytes = summary.SerializeToString()
        elif isinstance(summary, (bytes, bytearray, memoryview)):
            summary_bytes = bytes(summary)
            try:
                summary_pb2.Summary.FromString(summary_bytes)
            except Exception as err:
                raise ValueError(f"summary: bytes are not a serialized Summary ({err})") from None
        else:
            raise TypeError(f"summary must be a Summary proto or its bytes, got {type(summary).__name__}")
        step = check_step(global_step)
        self.add_event_bytes(wire.summary_event(summary_bytes, step, check_walltime(walltime)))

    def add_graph(self, graph, input_to_model=None, walltime=None, **kwargs) -> None:
        """Logs a model graph: a GraphDef (or its bytes) or any model `tensorboard.graph` converts."""
        if isinstance(graph, (bytes, bytearray)):
            graph_bytes = bytes(graph)
            graph_pb2.GraphDef.FromString(graph_bytes)
        elif is_message(graph, graph_pb2.GraphDef):
            graph_bytes = graph.SerializeToString()
        else:
            from tensorboard.graph import to_graph_def

            graph_bytes = to_graph_def(graph, input_to_model, **kwargs).SerializeToString()
        event = event_pb2.Event(wall_time=check_walltime(walltime), graph_def=graph_bytes)
        self.add_event_bytes(event.SerializeToString())

    def add_session_log(self, status: str = "START", global_step=None, walltime=None, msg: str = "") -> None:
        """Logs a SessionLog; START at a step makes readers drop events from that step on (restarts)."""
        status_value = event_pb2.SessionLog.SessionStatus.Value(status)
        event = event_pb2.Event(wall_time=check_walltime(walltime), step=check_step(global_step),
                                session_log=event_pb2.SessionLog(status=status_value, msg=msg))
        self.add_event_bytes(event.SerializeToString())

    # -- lifecycle ---------------------------------------------------------------------------------

    def flush(self) -> None:
        """Returns once every queued event is written to the event file."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Flushes and closes the event file; idempotent. `reopen()` starts a new file."""
        with self._lock:
            writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.close()
            finally:
                self._dropped_before += writer.dropped_events

    def reopen(self) -> None:
        """Starts a new event file after `close()`; does nothing while the writer is open."""
        self._event_writer()

    def _forget_after_fork(self) -> None:
        """In a forked child: drop the parent's file and queue; the next add opens a file of our own."""
        if self._writer is not None:
            self._writer.abandon()
        self._writer = None
        self._lock = threading.Lock()

    def __enter__(self) -> "FileWriter":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def _after_fork_in_child() -> None:
    for writer in list(_live_file_writers):
        writer._forget_after_fork()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def default_logdir(comment: str = "") -> str:
    """runs/<Mon>DD_HH-MM-SS_<host><comment>: tensorboardX's and torch's run name when no logdir is given."""
    import socket
    from datetime import datetime

    return os.path.join("runs", datetime.now().strftime("%b%d_%H-%M-%S") + "_" + socket.gethostname() + comment)


def _run_dir_name(tag: str, key: str) -> str:
    return f"{tag}_{key}".replace("/", "_").replace(os.sep, "_")


class SummaryWriter:
    """Logs scalars, histograms, images, audio, text, curves, embeddings, hparams and graphs to `logdir`.

    The API of MXBoard (seeds 003/004) and tensorboardX: keyword names of either work,
    and where their positional orders disagree the seeds' order wins.
    """

    def __new__(cls, *args, rank: int | None = None, write_ranks=(0,), rank_subdir: bool = False,
                write_to_disk: bool = True, **kwargs):
        # Distributed training (and tensorboardX's write_to_disk=False): a process that does not
        # write gets a writer whose methods do nothing.
        from tensorboard import distributed

        if write_to_disk and distributed.resolve(rank, write_ranks, rank_subdir)[0]:
            return super().__new__(cls)
        return object.__new__(distributed.null_writer_class(cls))

    def __init__(self, logdir: str | os.PathLike | None = None, max_queue: int = 10, flush_secs: float = 120,
                 filename_suffix: str = "", *, log_dir: str | os.PathLike | None = None, comment: str = "",
                 purge_step: int | None = None, fsync: bool = False, on_error: str = "raise",
                 max_file_bytes: int | None = None, storage_options: Mapping[str, Any] | None = None,
                 rank: int | None = None, write_ranks=(0,), rank_subdir: bool = False,
                 write_to_disk: bool = True, verbose: bool = True):
        """on_error, max_file_bytes, storage_options: as FileWriter. rank, write_ranks, rank_subdir: which
        processes of a distributed run write and whether each gets sub-run `rank<k>` (tensorboard.distributed).

        comment: as in tensorboardX/torch, used only without a logdir: the run becomes
        runs/<time>_<host><comment>. write_to_disk=False (tensorboardX) gives a writer that writes
        nothing. verbose is MXBoard's and changes nothing (we never print per event).
        """
        logdir = pick("logdir", logdir, "log_dir", log_dir)
        if logdir is None:
            logdir = default_logdir(comment) if comment else "./runs"
        logdir = os.fspath(logdir)
        from tensorboard import distributed

        rank_run = distributed.resolve(rank, write_ranks, rank_subdir)[1]
        if rank_run is not None:
            logdir = logdir.rstrip("/") + "/" + rank_run if "://" in logdir else os.path.join(logdir, rank_run)
        self._logdir = logdir
        self._options = dict(max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix,
                             fsync=fsync, on_error=on_error, max_file_bytes=max_file_bytes,
                             storage_options=storage_options)
        self._file_writer = FileWriter(logdir, **self._options)
        self._sub_writers: dict[str, FileWriter] = {}
        self._tag_fields: dict[str, bytes] = {}
        self._lock = threading.Lock()
        if purge_step is not None:
            self._file_writer.add_session_log("START", global_step=check_step(purge_step, "purge_step"))

    # -- plumbing ----------------------------------------------------------------------------------

    def get_logdir(self) -> str:
        """The run directory this writer logs to."""
        return self._logdir

    @property
    def file_writer(self) -> FileWriter:
        """The FileWriter of the main run."""
        return self._file_writer

    @property
    def dropped_events(self) -> int:
        """Events on_error="warn" could not write and dropped, over the main run and its sub-runs."""
        return sum(w.dropped_events for w in [self._file_writer, *self._sub_writers.values()])

    def _sub_writer(self, run: str) -> FileWriter:
        writer = self._sub_writers.get(run)
        if writer is None:
            with self._lock:
                writer = self._sub_writers.get(run)
                if writer is None:
                    writer = FileWriter(self._file_writer.storage.join(self._logdir, run), **self._options)
                    self._sub_writers[run] = writer
        return writer

    def _add(self, summary: summary_pb2.Summary, global_step, walltime, writer: FileWriter | None = None) -> None:
        (writer or self._file_writer).add_summary(summary, global_step, walltime)

    # -- scalars -----------------------------------------------------------------------------------

    def add_scalar(self, tag: str, value=None, global_step=None, walltime=None, *, scalar_value=None,
                   display_name: str | None = None, summary_description: str | None = None) -> None:
        """Logs a scalar. A dict `value` writes one sub-run per key (`<logdir>/<tag>_<key>`), as MXBoard does."""
        if scalar_value is not None:
            value = pick("value", value, "scalar_value", scalar_value)
        if type(value) is float and display_name is None and summary_description is None:
            number = value  # the hot path: no conversion needed
        elif isinstance(value, Mapping):
            self.add_scalars(tag, value, global_step, walltime)
            return
        else:
            from tensorboard.convert import to_float

            check_tag(tag)
            number = to_float(require("value", value), "value")
            if display_name is not None or summary_description is not None:
                from tensorboard import summary

                self._add(summary.scalar(tag, number, display_name=display_name, description=summary_description),
                          global_step, walltime)
                return
        tag_bytes = self._tag_fields.get(tag)
        if tag_bytes is None:
            tag_bytes = self._tag_fields.setdefault(check_tag(tag), wire.scalar_prefix(tag))
        event = wire.scalar_event(tag_bytes, number,
                                  global_step if type(global_step) is int else check_step(global_step),
                                  _now() if walltime is None else check_walltime(walltime))
        writer = self._file_writer._writer
        if writer is None:
            self._file_writer.add_event_bytes(event)
        else:
            writer.write(event)

    def add_scalars(self, main_tag: str, tag_scalar_dict: Mapping[str, Any] | None = None, global_step=None,
                    walltime=None, *, value: Mapping[str, Any] | None = None) -> None:
        """Logs several scalars into one chart: each key goes to its own sub-run, all under `main_tag`."""
        check_tag(main_tag, "main_tag")
        scalars = pick("tag_scalar_dict", tag_scalar_dict, "value", value)
        if not isinstance(scalars, Mapping) or not scalars:
            raise TypeError(f"tag_scalar_dict must be a non-empty dict of name -> number, got {scalars!r:.80}")
        from tensorboard.convert import to_float

        numbers = {}
        for key, number in scalars.items():
            check_tag(key, "tag_scalar_dict key")
            numbers[key] = to_float(number, f"tag_scalar_dict[{key!r}]")
        step = check_step(global_step)
        wall = check_walltime(walltime)
        tag_bytes = wire.scalar_prefix(main_tag)
        for key, number in numbers.items():
            self._sub_writer(_run_dir_name(main_tag, key)).add_event_bytes(
                wire.scalar_event(tag_bytes, number, step, wall))

    # -- tensors and media -------------------------------------------------------------------------

    def add_histogram(self, tag: str, values=None, global_step=None, bins="tensorflow", walltime=None,
                      max_bins: int | None = None) -> None:
        """Logs a histogram of `values`; `bins` as in numpy.histogram, or TensorBoard's default buckets."""
        from tensorboard import summary

        self._add(summary.histogram(check_tag(tag), require("values", values), bins=bins, max_bins=max_bins),
                  global_step, walltime)

    def add_histogram_raw(self, tag: str, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None) -> None:
        """Logs a histogram from precomputed statistics and buckets."""
        if len(bucket_limits) != len(bucket_counts):
            raise ValueError("bucket_limits and bucket_counts must have the same length")
        histo = summary_pb2.HistogramProto(min=float(min), max=float(max), num=float(num), sum=float(sum),
                                           sum_squares=float(sum_squares), bucket_limit=list(map(float, bucket_limits)),
                                           bucket=list(map(float, bucket_counts)))
        self._add(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=check_tag(tag), histo=histo)]),
                  global_step, walltime)

    def add_image(self, tag: str, image=None, global_step=None, walltime=None, dataformats: str | None = None, *,
                  img_tensor=None) -> None:
        """Logs an image: HW, CHW (default for 3-D), HWC or a batch (NCHW, tiled into a grid)."""
        from tensorboard import summary

        image = require("image", pick("image", image, "img_tensor", img_tensor))
        if dataformats is None:
            rank = getattr(image, "ndim", None)
            if rank is None:
                rank = len(getattr(image, "shape", ()))
            dataformats = {2: "HW", 3: "CHW", 4: "NCHW"}.get(rank, "CHW")
        self._add(summary.image(check_tag(tag), image, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag: str, images=None, global_step=None, walltime=None, dataformats: str = "NCHW", *,
                   img_tensor=None) -> None:
        """Logs a batch of images tiled into one grid."""
        from tensorboard import summary

        images = require("images", pick("images", images, "img_tensor", img_tensor))
        self._add(summary.image(check_tag(tag), images, dataformats=dataformats), global_step, walltime)

    def add_figure(self, tag: str, figure, global_step=None, close: bool = True, walltime=None) -> None:
        """Logs a matplotlib figure (or a list of them, as a batch) as an image."""
        from tensorboard import summary

        check_tag(tag)
        if isinstance(figure, (list, tuple)):
            import numpy as np

            frames = np.stack([summary.figure_to_image(f, close=close) for f in figure])
            self._add(summary.image(tag, frames, dataformats="NHWC"), global_step, walltime)
        else:
            self._add(summary.figure(tag, figure, close=close), global_step, walltime)

    def add_video(self, tag: str, video=None, global_step=None, fps: float = 4, walltime=None,
                  dataformats: str = "NTCHW", *, vid_tensor=None) -> None:
        """Logs a video (N, T, C, H, W by default) as an animated GIF."""
        from tensorboard import summary

        video = require("video", pick("video", video, "vid_tensor", vid_tensor))
        self._add(summary.video(check_tag(tag), video, fps=fps, dataformats=dataformats), global_step, walltime)

    def add_audio(self, tag: str, audio=None, sample_rate: int = 44100, global_step=None, walltime=None, *,
                  snd_tensor=None) -> None:
        """Logs audio samples in [-1, 1] (L,) or (L, channels); seed 001's argument order."""
        from tensorboard import summary

        audio = require("audio", pick("audio", audio, "snd_tensor", snd_tensor))
        self._add(summary.audio(check_tag(tag), audio, sample_rate=sample_rate), global_step, walltime)

    def add_text(self, tag: str, text: str | None = None, global_step=None, walltime=None, *,
                 text_string: str | None = None) -> None:
        """Logs a text (markdown) note."""
        from tensorboard import summary

        text = require("text", pick("text", text, "text_string", text_string))
        self._add(summary.text(check_tag(tag), text), global_step, walltime)

    def add_pr_curve(self, tag: str, labels, predictions, global_step=None, num_thresholds: int = 127,
                     weights=None, walltime=None) -> None:
        """Logs a precision-recall curve of binary `labels` against `predictions` in [0, 1]."""
        from tensorboard import summary

        self._add(summary.pr_curve(check_tag(tag), labels, predictions, num_thresholds=num_thresholds,
                                   weights=weights), global_step, walltime)

    def add_pr_curve_raw(self, tag: str, true_positive_counts, false_positive_counts, true_negative_counts,
                         false_negative_counts, precision, recall, global_step=None, num_thresholds: int = 127,
                         weights=None, walltime=None) -> None:
        """Logs a precision-recall curve from precomputed counts."""
        from tensorboard import summary

        self._add(summary.pr_curve_raw(check_tag(tag), true_positive_counts, false_positive_counts,
                                       true_negative_counts, false_negative_counts, precision, recall,
                                       num_thresholds=num_thresholds, weights=weights), global_step, walltime)

    def add_mesh(self, tag: str, vertices, colors=None, faces=None, config_dict=None, global_step=None,
                 walltime=None) -> None:
        """Logs a 3-D mesh or point cloud (vertices [1, N, 3], optional colors and faces)."""
        from tensorboard import summary

        self._add(summary.mesh(check_tag(tag), vertices, colors=colors, faces=faces, config_dict=config_dict),
                  global_step, walltime)

    # -- structure ---------------------------------------------------------------------------------

    def add_graph(self, model, input_to_model=None, verbose: bool = False, **kwargs) -> None:
        """Logs a model graph: GraphDef, MXNet Symbol or HybridBlock, torch module (with inputs), ONNX model."""
        self._file_writer.add_graph(model, input_to_model, **kwargs)

    _EMBEDDING_SEED_ORDER = ("tag", "embedding", "labels", "images", "global_step")
    _EMBEDDING_TBX_ORDER = ("mat", "metadata", "label_img", "global_step", "tag", "metadata_header")

    def add_embedding(self, *args, tag: str | None = None, embedding=None, labels=None, images=None,
                      global_step=None, mat=None, metadata=None, label_img=None,
                      metadata_header: Sequence[str] | None = None) -> None:
        """Logs embeddings for the Projector: a 2-D matrix with optional labels and label images.

        Seed order `add_embedding(tag, embedding, labels, images, global_step)` when the first
        positional argument is a str; otherwise tensorboardX's `add_embedding(mat, metadata,
        label_img, global_step, tag, metadata_header)`. Keyword names of both work.
        """
        given = dict(tag=tag, embedding=embedding, labels=labels, images=images, global_step=global_step, mat=mat,
                     metadata=metadata, label_img=label_img, metadata_header=metadata_header)
        order = self._EMBEDDING_SEED_ORDER if args and isinstance(args[0], str) else self._EMBEDDING_TBX_ORDER
        if len(args) > len(order):
            raise TypeError(f"add_embedding takes at most {len(order)} positional arguments ({', '.join(order)})")
        for name, value in zip(order, args):
            if given[name] is not None:
                raise TypeError(f"add_embedding got multiple values for argument {name!r}")
            given[name] = value
        tag, global_step, metadata_header = given["tag"], given["global_step"], given["metadata_header"]
        embedding = require("embedding", pick("embedding", given["embedding"], "mat", given["mat"]))
        labels = pick("labels", given["labels"], "metadata", given["metadata"])
        images = pick("images", given["images"], "label_img", given["label_img"])
        tag = check_tag("default" if tag is None else tag)
        from tensorboard import projector
        from tensorboard.convert import to_numpy

        step = None if global_step is None else check_step(global_step)
        writer = self._file_writer
        projector.write_embedding(writer.storage, self._logdir, to_numpy(embedding, "embedding"),
                                  metadata=labels, label_img=images, tag=tag, global_step=step,
                                  metadata_header=metadata_header)

    def add_hparams(self, hparam_dict: Mapping[str, Any], metric_dict: Mapping[str, Any],
                    hparam_domain_discrete: Mapping[str, Sequence] | None = None, run_name: str | None = None,
                    global_step=None) -> None:
        """Logs one hparams session: its hparams and final metrics, into sub-run `run_name` (default: a time stamp).

        hparam_domain_discrete: {name: [allowed values]}, shown as the hparam's domain in the dashboard.
        """
        from tensorboard import summary
        from tensorboard.convert import to_float

        if not isinstance(hparam_dict, Mapping):
            raise TypeError(f"hparam_dict must be a dict, got {type(hparam_dict).__name__}")
        if not isinstance(metric_dict, Mapping):
            raise TypeError(f"metric_dict must be a dict, got {type(metric_dict).__name__}")
        metrics = {check_tag(k, "metric_dict key"): to_float(v, f"metric_dict[{k!r}]") for k, v in metric_dict.items()}
        experiment, start, end = summary.hparams(hparam_dict, metrics, hparam_domain_discrete=hparam_domain_discrete)
        if run_name is None:
            import time

            run_name = f"{time.time():.6f}"
        writer = self._sub_writer(run_name)
        # Upstream takes the first experiment summary it finds as the whole experiment; without one it
        # unites every session's hparams and metrics. So an experiment is written only to carry the
        # discrete domains the caller asked for.
        parts = (experiment, start, end) if hparam_domain_discrete else (start, end)
        for part in parts:
            writer.add_summary(part, global_step)
        for key, number in metrics.items():
            writer.add_event_bytes(wire.scalar_event(wire.scalar_prefix(key), number, check_step(global_step),
                                                     check_walltime(None)))

    def add_custom_scalars(self, layout) -> None:
        """Logs a custom_scalars layout: {category: {chart: ['Multiline', [tags]] | ['Margin', [v, lo, hi]]}}."""
        from tensorboard import summary

        self._add(summary.custom_scalars(layout), None, None)

    def add_custom_scalars_multilinechart(self, tags: Sequence[str], category: str = "default",
                                          title: str = "untitled") -> None:
        """A custom_scalars layout with one multi-line chart."""
        self.add_custom_scalars({category: {title: ["Multiline", list(tags)]}})

    def add_custom_scalars_marginchart(self, tags: Sequence[str], category: str = "default",
                                       title: str = "untitled") -> None:
        """A custom_scalars layout with one margin chart over [value, lower, upper] tags."""
        if len(tags) != 3:
            raise ValueError(f"tags must be [value, lower, upper], got {len(tags)} tags")
        self.add_custom_scalars({category: {title: ["Margin", list(tags)]}})

    def add_summary(self, summary, global_step=None, walltime=None) -> None:
        """Logs a ready Summary proto (as FileWriter.add_summary)."""
        self._file_writer.add_summary(summary, global_step, walltime)

    # -- lifecycle ---------------------------------------------------------------------------------

    def flush(self) -> None:
        """Returns once everything logged so far is in the event files."""
        for writer in [self._file_writer, *self._sub_writers.values()]:
            writer.flush()

    def close(self) -> None:
        """Flushes and closes every event file of this writer; idempotent."""
        errors = []
        for writer in [self._file_writer, *self._sub_writers.values()]:
            try:
                writer.close()
            except Exception as err:  # close the others, then report
                errors.append(err)
        if errors:
            raise errors[0]

    def __enter__(self) -> "SummaryWriter":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


# help() and IDEs should show __init__'s arguments, not the rank-dispatching __new__'s.
SummaryWriter.__signature__ = inspect.signature(SummaryWriter.__init__).replace(
    parameters=list(inspect.signature(SummaryWriter.__init__).parameters.values())[1:])
