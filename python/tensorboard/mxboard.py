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
        """MXBoard's (logdir, max_queue, flush_secs, filename_suffix, verbose); other keywords as
        tensorboard.SummaryWriter's."""
        super().__init__(logdir, max_queue=max_queue, flush_secs=flush_secs, filename_suffix=filename_suffix or "",
                         verbose=verbose, **kwargs)

    def add_scalar(self, tag: str, value=None, global_step=None, *, walltime=None, **options: Any) -> None:
        """Logs a number, or MXBoard's named scalars ({name: number} or (name, number)) in sub-runs `<tag>/<name>`."""
        super().add_scalar(tag, value, global_step, walltime, **options)

    @states_order
    def add_histogram(self, tag: str, values=None, global_step=None, bins="default", *, walltime=None,
                      max_bins: int | None = None) -> None:
        """Logs a histogram; bins "default" is TensorBoard's exponential buckets, else as numpy.histogram."""
        super().add_histogram(tag, values, global_step, bins, walltime, max_bins)

    @states_order
    def add_image(self, tag: str, image=None, global_step=None, *, walltime=None, dataformats: str | None = None,
                  img_tensor=None) -> None:
        """Logs an image: (H, W), (C, H, W) or a batch (N, C, H, W) tiled into a grid, as MXBoard."""
        super().add_image(tag, image, global_step, walltime, dataformats, img_tensor=img_tensor)

    @states_order
    def add_audio(self, tag: str, audio=None, sample_rate=44100, global_step=None, *, walltime=None,
                  snd_tensor=None) -> None:
        """Logs audio samples in [-1, 1]: a clip squeezable to (length,) as MXBoard, or frames-first
        (length, channels), at most 32 channels."""
        from tensorboard.summary.audio import FRAMES_FIRST
        from tensorboard.values.args import pick, require

        self._audio(tag, require("audio", pick("audio", audio, "snd_tensor", snd_tensor)), global_step, sample_rate,
                    walltime, FRAMES_FIRST, "audio")

    @states_order
    def add_text(self, tag: str, text: str | None = None, global_step=None, *, walltime=None,
                 text_string: str | None = None) -> None:
        """Logs a text (markdown) note."""
        super().add_text(tag, text, global_step, walltime, text_string=text_string)

    @states_order
    def add_embedding(self, tag: str = "default", embedding=None, labels=None, images=None, global_step=None, *,
                      metadata_header=None, mat=None, metadata=None, label_img=None) -> None:
        """Logs embeddings for the Projector: `embedding` a 2-D matrix, `labels` one per row, `images` NCHW."""
        if not isinstance(tag, str):
            raise TypeError(f"tag: expected str (MXBoard's order starts with the tag), got {type(tag).__name__}")
        super().add_embedding(mat, metadata, label_img, global_step, tag, metadata_header, embedding=embedding,
                              labels=labels, images=images)

    @states_order
    def add_pr_curve(self, tag: str, labels, predictions, num_thresholds=127, global_step=None, weights=None, *,
                     walltime=None) -> None:
        """Logs a precision-recall curve of binary `labels` against `predictions` in [0, 1]."""
        super().add_pr_curve(tag, labels, predictions, global_step, num_thresholds, weights, walltime)

    @states_order
    def add_graph(self, net, **kwargs: Any) -> None:
        """Logs the graph of an MXNet Symbol or hybridized HybridBlock (or any model SummaryWriter.add_graph takes)."""
        super().add_graph(net, **kwargs)

    def reopen(self) -> None:
        """Reopens the event files after close() (later add_* calls also reopen them)."""
        for writer in [self._file_writer, *self._sub_writers.values()]:
            writer.reopen()


# help() and IDEs should show MXBoard's constructor, not the base class's.
SummaryWriter.__signature__ = inspect.signature(SummaryWriter.__init__).replace(  # type: ignore[attr-defined]
    parameters=list(inspect.signature(SummaryWriter.__init__).parameters.values())[1:])
