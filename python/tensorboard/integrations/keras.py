"""A Keras 3 `TensorBoard` callback that needs no TensorFlow: works on the JAX, torch, NumPy and
TensorFlow backends alike.

    from tensorboard.integrations.keras import TensorBoard
    model.fit(x, y, validation_data=(xv, yv), callbacks=[TensorBoard("logs", histogram_freq=1)])

It writes what `keras.callbacks.TensorBoard` writes, under the same names: runs `<log_dir>/train`
and `<log_dir>/validation`; per epoch `epoch_<metric>` (train run: also `epoch_learning_rate`,
`epoch_steps_per_second`; validation run: the `val_` metrics without the prefix); with an integer
`update_freq`, `batch_<metric>` every N training batches; `evaluation_<metric>_vs_iterations` at
each evaluation; weight histograms `<weight.path>/histogram` (and `/image`); the model's
conceptual graph (tag "keras"). Writing goes through our `SummaryWriter`, one per run.
"""
from __future__ import annotations

import os
import time
import warnings
from typing import Any, Mapping

import keras
import numpy as np

from tensorboard.integrations import _keras_arrays
from tensorboard.summary.image import image_samples
from tensorboard.values.convert import to_float

__all__ = ["TensorBoard"]

_GRAPH_MODEL_CLASSES = ("Functional", "Sequential")  # models whose config holds their layer graph


def _check_freq(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
        raise ValueError(f"{name}: expected a non-negative int (0 turns it off), got {value!r}")
    return int(value)


def _check_flag(value: Any, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name}: expected True or False, got {type(value).__name__} {value!r:.40}")
    return bool(value)


def _check_update_freq(value: Any) -> str | int:
    if value == "batch":
        return 1
    if value == "epoch" or (isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > 0):
        return value if isinstance(value, str) else int(value)
    raise ValueError(f"update_freq: expected 'epoch', 'batch' or a positive int (every N batches), got {value!r}")


def _check_profile_batch(value: Any) -> None:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value == 0:
        return
    raise ValueError(f"profile_batch={value!r}: profiling needs TensorFlow's profiler, which this callback does "
                     f"not use; only profile_batch=0 (off) is supported")


def _check_embeddings_metadata(value: Any) -> str | dict[str, str] | None:
    if value is None or isinstance(value, (str, os.PathLike)):
        return None if value is None else os.fspath(value)
    if isinstance(value, Mapping) and all(isinstance(k, str) and isinstance(v, (str, os.PathLike))
                                          for k, v in value.items()):
        return {k: os.fspath(v) for k, v in value.items()}
    raise TypeError("embeddings_metadata: expected None, a file name, or a dict {embedding layer name: file name}, "
                    f"got {type(value).__name__}")


def _read_metadata_tsv(path: str) -> tuple[list, list[str] | None]:
    """Labels of a projector metadata file: one label per line, or a header line and tab-separated rows."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if lines and "\t" in lines[0]:
        return [line.split("\t") for line in lines[1:]], lines[0].split("\t")
    return lines, None


class TensorBoard(keras.callbacks.Callback):
    """Logs metrics, weight histograms/images, the model graph and embeddings for TensorBoard.

    Arguments are `keras.callbacks.TensorBoard`'s own.

    Args:
        log_dir: The directory of the runs `train` and `validation`.
        histogram_freq: Log weight histograms every N epochs (0: never).
        write_graph: Write the model's layer graph (Functional and Sequential models; the Graphs
            tab's "conceptual graph"), not TensorFlow's op graph.
        write_images: Also log the weights as images.
        write_steps_per_second: Also log the training steps per second.
        update_freq: "epoch", "batch", or N: also log `batch_<metric>` every N training batches.
        profile_batch: Must be 0 (profiling needs TensorFlow's profiler).
        embeddings_freq: Log each `Embedding` layer's matrix to the Projector every N epochs (0: never).
        embeddings_metadata: A label file (TSV) for all layers, or a dict {layer name: file};
            relative paths are taken from `log_dir`.

    Raises:
        TypeError: A `log_dir` that is not a path, a flag that is not a bool, or bad `embeddings_metadata`.
        ValueError: A negative frequency, another `update_freq`, or a `profile_batch` other than 0.
    """

    def __init__(self, log_dir: str | os.PathLike = "logs", histogram_freq: int = 0, write_graph: bool = True,
                 write_images: bool = False, write_steps_per_second: bool = False, update_freq: str | int = "epoch",
                 profile_batch: int = 0, embeddings_freq: int = 0,
                 embeddings_metadata: str | Mapping[str, str] | None = None):
        super().__init__()
        if not isinstance(log_dir, (str, os.PathLike)):
            raise TypeError(f"log_dir: expected a path (str or os.PathLike), got {type(log_dir).__name__}")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = _check_freq(histogram_freq, "histogram_freq")
        self.write_graph = _check_flag(write_graph, "write_graph")
        self.write_images = _check_flag(write_images, "write_images")
        self.write_steps_per_second = _check_flag(write_steps_per_second, "write_steps_per_second")
        self.update_freq = _check_update_freq(update_freq)
        _check_profile_batch(profile_batch)
        self.embeddings_freq = _check_freq(embeddings_freq, "embeddings_freq")
        self.embeddings_metadata = _check_embeddings_metadata(embeddings_metadata)
        # With epoch-level logging on_train_batch_end does nothing, so Keras may call it from its thread pool.
        self.async_safe = self.update_freq == "epoch"
        self._writers: dict[str, Any] = {}
        self._in_fit = False
        self._train_batch = 0
        self._batch_start = 0.0
        self._epoch_start = (0.0, 0)
        self._graph_pending = False
        self._embedding_labels: dict[str, tuple] = {}

    # -- writers -------------------------------------------------------------------------------------

    def _writer(self, run: str):
        """The SummaryWriter of run `train` or `validation`, created on first use (no empty runs)."""
        writer = self._writers.get(run)
        if writer is None:
            from tensorboard import SummaryWriter

            writer = self._writers[run] = SummaryWriter(os.path.join(self.log_dir, run))
        return writer

    def _flush_writers(self) -> None:
        """Puts what an epoch or an evaluation logged on disk, as Keras's own callback does."""
        for writer in list(self._writers.values()):
            writer.flush()

    def _close_writers(self) -> None:
        writers, self._writers = list(self._writers.values()), {}
        for writer in writers:
            writer.close()

    def _scalars(self, run: str, prefix: str, logs: Mapping[str, Any], step: int) -> None:
        writer = self._writer(run)
        for name, value in logs.items():
            writer.add_scalar(f"{prefix}{name}", to_float(value, f"logs[{name!r}]"), global_step=step)

    # -- Keras hooks ---------------------------------------------------------------------------------

    def set_model(self, model) -> None:
        """Called by fit/evaluate/predict; checks embeddings_metadata against the model's layers.

        Args:
            model: The Keras model.
        """
        super().set_model(model)
        self._graph_pending = self.write_graph
        if self.embeddings_freq:
            self._embedding_labels = self._load_embedding_labels(model)

    def on_train_begin(self, logs=None) -> None:
        """Writes the model graph (once, with `write_graph`).

        Args:
            logs: Keras's logs (not used).
        """
        self._in_fit = True
        self._train_batch = 0
        if self._graph_pending:
            self._write_model_graph()
            self._graph_pending = False

    def on_train_end(self, logs=None) -> None:
        """Closes the runs' writers.

        Args:
            logs: Keras's logs (not used).
        """
        self._in_fit = False
        self._close_writers()

    def on_epoch_begin(self, epoch, logs=None) -> None:
        """Starts the epoch's steps-per-second clock (with `write_steps_per_second`).

        Args:
            epoch: The epoch's index.
            logs: Keras's logs (not used).
        """
        if self.write_steps_per_second:
            self._epoch_start = (time.time(), _keras_arrays.optimizer_iterations(self.model) or 0)

    def on_epoch_end(self, epoch, logs=None) -> None:
        """Logs the epoch's metrics (`val_` ones in the validation run), histograms and embeddings.

        Args:
            epoch: The epoch's index, the step of what is logged.
            logs: The epoch's metrics.
        """
        logs = dict(logs or {})
        if logs:
            train = {k: v for k, v in logs.items() if not k.startswith("val_")}
            train.update(_keras_arrays.learning_rates(self.model))
            if self.write_steps_per_second:
                started, iterations = self._epoch_start
                done = (_keras_arrays.optimizer_iterations(self.model) or 0) - iterations
                train["steps_per_second"] = done / max(time.time() - started, 1e-9)
            self._scalars("train", "epoch_", train, epoch)
            validation = {k[len("val_"):]: v for k, v in logs.items() if k.startswith("val_")}
            if validation:
                self._scalars("validation", "epoch_", validation, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)
        if self.embeddings_freq and epoch % self.embeddings_freq == 0:
            self._log_embeddings(epoch)
        self._flush_writers()

    def on_train_batch_begin(self, batch, logs=None) -> None:
        """Counts the training batch.

        Args:
            batch: The batch's index in the epoch.
            logs: Keras's logs (not used).
        """
        self._train_batch += 1
        if self.write_steps_per_second:
            self._batch_start = time.time()

    def on_train_batch_end(self, batch, logs=None) -> None:
        """Logs `batch_<metric>` every `update_freq` batches (when it is a number).

        Args:
            batch: The batch's index in the epoch.
            logs: The batch's metrics.
        """
        if self.update_freq == "epoch" or self._train_batch % self.update_freq:
            return
        scalars = dict(logs) if isinstance(logs, Mapping) else {}
        if self.write_steps_per_second:
            scalars = {"steps_per_second": 1.0 / max(time.time() - self._batch_start, 1e-9), **scalars}
        self._scalars("train", "batch_", scalars, self._train_batch)

    def on_test_end(self, logs=None) -> None:
        """Logs `evaluation_<metric>_vs_iterations` at the optimizer's iteration count.

        Args:
            logs: The evaluation's metrics.
        """
        iterations = _keras_arrays.optimizer_iterations(self.model)
        if logs and iterations is not None:
            self._scalars("validation", "evaluation_", {f"{k}_vs_iterations": v for k, v in logs.items()},
                          iterations)
        if not self._in_fit:  # a standalone evaluate(): nothing else will close the file
            self._close_writers()
        else:  # also after a fit that raised (on_train_end never ran): on disk, though left open
            self._flush_writers()

    # -- what gets logged ----------------------------------------------------------------------------

    def _write_model_graph(self) -> None:
        kind = type(self.model).__name__
        if kind not in _GRAPH_MODEL_CLASSES:
            warnings.warn(f"write_graph: a {kind} model (subclassed) has no layer graph in its config; "
                          "no graph written (Functional and Sequential models have one)", stacklevel=2)
            return
        try:
            model_json = self.model.to_json()
        except Exception as err:  # a model that does not serialize must not stop training
            warnings.warn(f"write_graph: the model did not serialize to JSON ({err}); no graph written", stacklevel=2)
            return
        from tensorboard import summary

        self._writer("train").add_summary(summary.keras_model("keras", model_json), global_step=0)

    def _log_weights(self, epoch: int) -> None:
        writer = self._writer("train")
        channels_last = keras.backend.image_data_format() == "channels_last"
        for layer in self.model.layers:
            for weight in layer.weights:
                name = weight.path.replace(":", "_")
                values = _keras_arrays.to_numpy(weight)
                finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values.reshape(-1)
                if finite.size < values.size:  # a diverged run: say so rather than let the histogram shrink
                    warnings.warn(f"weight {weight.path!r}: {values.size - finite.size} of {values.size} values are "
                                  f"NaN or infinite at epoch {epoch}; its histogram counts only the finite ones"
                                  + ("" if finite.size else ", so none is written"), RuntimeWarning, stacklevel=2)
                if finite.size:
                    writer.add_histogram(f"{name}/histogram", finite, global_step=epoch)
                if self.write_images:
                    image = _keras_arrays.weight_image(values, channels_last)
                    if image is not None:
                        writer.add_summary(image_samples(f"{name}/image", image, _keras_arrays.MAX_WEIGHT_IMAGES),
                                           global_step=epoch)

    def _embedding_layers(self, model) -> list:
        return [layer for layer in getattr(model, "layers", []) if isinstance(layer, keras.layers.Embedding)]

    def _load_embedding_labels(self, model) -> dict[str, tuple]:
        names = [layer.name for layer in self._embedding_layers(model)]
        if isinstance(self.embeddings_metadata, dict):
            unknown = sorted(set(self.embeddings_metadata) - set(names))
            if unknown:
                raise ValueError(f"embeddings_metadata: no Embedding layer named {unknown} in the model "
                                 f"(its Embedding layers: {names})")
            files = self.embeddings_metadata
        else:
            files = {name: self.embeddings_metadata for name in names} if self.embeddings_metadata else {}
        labels = {}
        for name, path in files.items():
            full = path if os.path.isabs(path) else os.path.join(self.log_dir, path)
            if not os.path.isfile(full):
                raise FileNotFoundError(f"embeddings_metadata: {full!r} (for layer {name!r}) does not exist")
            labels[name] = _read_metadata_tsv(full)
        return labels

    def _log_embeddings(self, epoch: int) -> None:
        writer = self._writer("train")
        for layer in self._embedding_layers(self.model):
            metadata, header = self._embedding_labels.get(layer.name, (None, None))
            writer.add_embedding(mat=_keras_arrays.to_numpy(layer.embeddings), metadata=metadata,
                                 metadata_header=header, tag=layer.name, global_step=epoch)
