"""MXBoard's SummaryWriter: moving from MXBoard is the import `from tensorboard.mxboard import SummaryWriter`.

The class takes MXBoard 0.1.0's positional order in every method MXBoard has (add_audio's sample rate
before the step, add_pr_curve's num_thresholds before it, add_embedding's tag first) and maps it onto
tensorboard.SummaryWriter's methods, which do the work; methods MXBoard lacks are inherited as they are.
Audio is MXBoard's layout: a clip squeezable to (length,), or frames-first (length, channels).
"""
from __future__ import annotations

import inspect
import os
from typing import Any

from tensorboard.writers import summary_writer
from tensorboard.writers.positional import states_order

__all__ = ["SummaryWriter"]


class SummaryWriter(summary_writer.SummaryWriter):
    """tensorboard.SummaryWriter with MXBoard's positional orders (and its `verbose`, which prints nothing)."""

    _public_name = "tensorboard.mxboard.SummaryWriter"
    _order_note = ": MXBoard's order; torch's and tensorboardX's is tensorboard.SummaryWriter's"

    def __init__(self, logdir: str | os.PathLike | None = None, max_queue: int = 10, flush_secs: float = 120,
                 filename_suffix: str | None = None, verbose: bool = True, **kwargs: Any):
        """MXBoard's positional order (logdir, max_queue, flush_secs, filename_suffix, verbose).

        Args:
            logdir: The run directory, or a URL; None: `runs/<time>_<host>`, as `tensorboard.SummaryWriter`.
            max_queue: Queued events that wake the writer thread for a batch write.
            flush_secs: The longest an event waits in memory before it is written.
            filename_suffix: Appended to the event file's name (None: nothing).
            verbose: MXBoard's; accepted and not used.
            **kwargs: Further `tensorboard.SummaryWriter` keywords (`on_error`, `storage_options`, ...).
        """
        super().__init__(logdir, max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix or "",
                         verbose=verbose, **kwargs)

    def add_scalar(self, tag: str, value=None, global_step=None, *, walltime=None, **options: Any) -> None:
        """Logs one number at a step, or MXBoard's named scalars in sub-runs `<tag>/<name>`.

        Args:
            tag: The curve's name, a non-empty str.
            value: A real number, or named scalars: a dict {name: number} or a pair (name, number).
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            **options: `tensorboard.SummaryWriter.add_scalar`'s other keywords (`new_style`, ...).
        """
        super().add_scalar(tag, value, global_step, walltime, **options)

    @states_order
    def add_histogram(self, tag: str, values=None, global_step=None, bins="default", *, walltime=None,
                      max_bins: int | None = None) -> None:
        """Logs a histogram of `values` (any shape, flattened) at a step.

        Args:
            tag: The chart's name, a non-empty str.
            values: Finite numbers: an array or tensor of any framework.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            bins: "default": TensorBoard's exponential buckets; else what numpy.histogram takes.
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            max_bins: Merge neighbouring buckets until at most this many remain.
        """
        super().add_histogram(tag, values, global_step, bins, walltime, max_bins)

    @states_order
    def add_image(self, tag: str, image=None, global_step=None, *, walltime=None, dataformats: str | None = None,
                  img_tensor=None) -> None:
        """Logs an image: (H, W), (C, H, W) or a batch (N, C, H, W) tiled into a grid, as MXBoard.

        Args:
            tag: The image's name, a non-empty str.
            image: An array or tensor: floats in [0, 1] or uint8 0..255.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            dataformats: Letters of N, C, H, W; None: by the number of dimensions, as above.
            img_tensor: torch's keyword for `image`.
        """
        super().add_image(tag, image, global_step, walltime, dataformats, img_tensor=img_tensor)

    @states_order
    def add_audio(self, tag: str, audio=None, sample_rate=44100, global_step=None, *, walltime=None,
                  snd_tensor=None) -> None:
        """Logs an audio clip as 16-bit WAV, in MXBoard's layout.

        Args:
            tag: The clip's name, a non-empty str.
            audio: A clip squeezable to (length,), as MXBoard's, or frames-first (length, channels),
                up to 32 channels; floats in [-1, 1] or integer PCM samples.
            sample_rate: Samples per second, a positive integer.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            snd_tensor: torch's keyword for `audio`.
        """
        from tensorboard.summary.audio import FRAMES_FIRST
        from tensorboard.values.args import pick, require

        self._audio(tag, require("audio", pick("audio", audio, "snd_tensor", snd_tensor)), global_step, sample_rate,
                    walltime, FRAMES_FIRST, "audio")

    @states_order
    def add_text(self, tag: str, text: str | None = None, global_step=None, *, walltime=None,
                 text_string: str | None = None) -> None:
        """Logs a text, rendered as markdown by the Text dashboard.

        Args:
            tag: The text's name, a non-empty str.
            text: A str, or a nested list of str.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            text_string: torch's keyword for `text`.
        """
        super().add_text(tag, text, global_step, walltime, text_string=text_string)

    @states_order
    def add_embedding(self, tag: str = "default", embedding=None, labels=None, images=None, global_step=None, *,
                      metadata_header=None, mat=None, metadata=None, label_img=None) -> None:
        """Writes an embedding for the Projector dashboard, in MXBoard's order (the tag first).

        Args:
            tag: The embedding's name.
            embedding: An (N, D) matrix of numbers.
            labels: N labels, or N rows of columns with `metadata_header`.
            images: N thumbnails, NCHW.
            global_step: The step; None writes without one.
            metadata_header: Column names, for labels of two or more columns.
            mat: torch's keyword for `embedding`.
            metadata: torch's keyword for `labels`.
            label_img: torch's keyword for `images`.

        Raises:
            TypeError: A `tag` that is not a str (a call in torch's order).
        """
        if not isinstance(tag, str):
            raise TypeError(f"tag: expected str (MXBoard's order starts with the tag), got {type(tag).__name__}")
        super().add_embedding(mat, metadata, label_img, global_step, tag, metadata_header, embedding=embedding,
                              labels=labels, images=images)

    @states_order
    def add_pr_curve(self, tag: str, labels, predictions, num_thresholds=127, global_step=None, weights=None, *,
                     walltime=None) -> None:
        """Logs a precision-recall curve of binary `labels` against `predictions`.

        Args:
            tag: The curve's name, a non-empty str.
            labels: Ground truth: bools or 0/1, one per prediction.
            predictions: Scores in [0, 1], as many as `labels`.
            num_thresholds: Thresholds of the curve, an int in [1, 65536].
            global_step: The step; None is 0 (or `use_metadata`'s step).
            weights: A scalar, or one weight per example.
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
        """
        super().add_pr_curve(tag, labels, predictions, global_step, num_thresholds, weights, walltime)

    @states_order
    def add_graph(self, net, **kwargs: Any) -> None:
        """Logs the graph of an MXNet Symbol or hybridized HybridBlock (or any model SummaryWriter.add_graph takes).

        Args:
            net: The model.
            **kwargs: `tensorboard.SummaryWriter.add_graph`'s other arguments (`input_to_model`, ...).
        """
        super().add_graph(net, **kwargs)

    def reopen(self) -> None:
        """Reopens the event files after close() (later add_* calls also reopen them)."""
        for writer in [self._file_writer, *self._sub_writers.values()]:
            writer.reopen()


# help() and IDEs should show MXBoard's constructor, not the base class's.
SummaryWriter.__signature__ = inspect.signature(SummaryWriter.__init__).replace(  # type: ignore[attr-defined]
    parameters=list(inspect.signature(SummaryWriter.__init__).parameters.values())[1:])
