"""SummaryWriter's methods for tensors and media: histograms, images, video, audio, text, PR curves
and meshes. Each converts nothing itself: `tensorboard.summary` encodes, the writer queues."""
from __future__ import annotations

import math
from typing import Any

from tensorboard import _deferred, _orders
from tensorboard._args import check_tag, pick, require
from tensorboard.src import summary_pb2


def _stacked(images: Any, name: str) -> Any:
    """A list/tuple of same-shaped images as one batch array (tensorboardX and torch take such lists)."""
    if not isinstance(images, (list, tuple)):
        return images
    import numpy as np

    from tensorboard.convert import to_numpy

    arrays = [to_numpy(item, f"{name}[{i}]") for i, item in enumerate(images)]
    if not arrays:
        raise ValueError(f"{name}: the list of images is empty")
    if len({a.shape for a in arrays}) > 1:
        raise ValueError(f"{name}: the images of a list must share one shape, got {sorted({a.shape for a in arrays})}")
    return np.stack(arrays)


def _private_copy(value: Any, name: str) -> Any:
    """`value` as a NumPy array of its own, which later changes to `value` do not reach; raises
    naming `name` unless it holds numbers (as the encoders check their input)."""
    import numpy as np

    from tensorboard.convert import check_numeric, to_numpy

    return np.array(check_numeric(to_numpy(value, name), name), copy=True)


def _is_bins(value: Any) -> bool:
    """True for what can only be seed 001's positional `bins`: a str rule or a sequence of edges.

    One element is no sequence of edges (a bucket needs two) but may be a step: [5], a 1-element tensor.
    """
    if isinstance(value, (list, tuple)):
        return len(value) != 1
    if isinstance(value, str):
        return True
    shape = getattr(value, "shape", None)
    return shape is not None and len(shape) >= 1 and math.prod(int(d) for d in shape) != 1


class MediaMethods:
    """add_histogram, add_image(s), add_audio, add_text, add_pr_curve, ... for SummaryWriter."""

    def _deferred_if_pending(self, tag: str, values: dict[str, Any], global_step, walltime, make_summary,
                             check_shapes, check_dtype=None) -> bool:
        """Logs `make_summary(*values)` without waiting for the JAX/MXNet/device values among `values`
        (name -> value) and returns True; returns False, logging nothing, if there are none.

        `check_shapes(*shapes)` (None for a None value) raises the argument errors the encoder would,
        from the shapes alone, and a complex or other non-numeric dtype is refused here too (as is
        any dtype `check_dtype(name, dtype name)` refuses), so that they reach this call rather than
        the next one. The other values are copied to NumPy now: a later change by the caller must
        not reach the log either.
        """
        kinds = [_deferred.framework_of(value) for value in values.values()]
        if all(kind is None for kind in kinds):
            return False
        check_tag(tag)
        private = []
        for (name, value), kind in zip(values.items(), kinds):
            if kind is not None:
                dtype = _deferred.nonnumeric_dtype(value, kind)
                if dtype is not None:  # check_numeric's message
                    raise TypeError(f"{name}: expected numeric values, got dtype {dtype}")
                if check_dtype is not None:
                    check_dtype(name, _deferred.dtype_name(value, kind))
            elif value is not None:
                value = _private_copy(value, name)
            private.append(value)
        check_shapes(*(None if value is None else _deferred.shape_of(value) for value in private))
        self._add_later(tag, tuple(private), kinds, global_step, walltime, make_summary)
        return True

    def add_histogram(self, tag: str, values=None, global_step=None, bins="tensorflow", walltime=None,
                      max_bins: int | None = None) -> None:
        """Logs a histogram of `values`; `bins` as in numpy.histogram, or TensorBoard's default buckets.

        Positional order (tag, values, global_step, bins) as MXBoard, tensorboardX and torch; seed 001's
        (tag, values, bins, global_step) is recognised when the third argument is a str or a sequence.
        """
        from tensorboard import summary
        from tensorboard.summary.histogram import check_histogram_args

        if _is_bins(global_step):  # seed 001's order: (tag, values, bins, global_step)
            global_step, bins = (None if bins == "tensorflow" else bins), global_step
        if hasattr(bins, "__len__") and not isinstance(bins, str) and _deferred.framework_of(values) is not None:
            bins = _private_copy(bins, "bins")  # edges as at the call, whatever the caller does next
        if self._deferred_if_pending(tag, {"values": values}, global_step, walltime,
                                     lambda array: summary.histogram(tag, array, bins=bins, max_bins=max_bins),
                                     lambda shape: check_histogram_args(shape, bins, max_bins)):
            return
        self._add(summary.histogram(check_tag(tag), require("values", values), bins=bins, max_bins=max_bins),
                  global_step, walltime)

    def add_histogram_raw(self, tag: str, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None) -> None:
        """Logs a histogram from precomputed statistics and buckets (checked: see histogram_raw_proto)."""
        from tensorboard.summary.histogram import histogram_raw_proto

        histo = histogram_raw_proto(min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
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
        self._image(tag, image, dataformats, global_step, walltime)

    def _image(self, tag: str, image, dataformats: str, global_step, walltime) -> None:
        from tensorboard import summary
        from tensorboard.summary.image import check_image_shape

        if self._deferred_if_pending(tag, {"image": image}, global_step, walltime,
                                     lambda array: summary.image(tag, array, dataformats=dataformats),
                                     lambda shape: check_image_shape(shape, dataformats)):
            return
        self._add(summary.image(check_tag(tag), image, dataformats=dataformats), global_step, walltime)

    def add_images(self, tag: str, images=None, global_step=None, walltime=None, dataformats: str = "NCHW", *,
                   img_tensor=None) -> None:
        """Logs a batch of images tiled into one grid; a list of images (each without N) is stacked first."""
        from tensorboard import summary

        images = require("images", pick("images", images, "img_tensor", img_tensor))
        if isinstance(images, (list, tuple)):
            images = _stacked(images, "images")
            if "N" not in dataformats.upper():
                dataformats = "N" + dataformats
        self._image(tag, images, dataformats, global_step, walltime)

    def add_image_with_boxes(self, tag: str, img_tensor, box_tensor, global_step=None, walltime=None,
                             dataformats: str = "CHW", labels=None, rescale: float = 1) -> None:
        """Logs an image with boxes drawn on it: box_tensor is N x 4 pixel corners (xmin, ymin, xmax, ymax),
        labels one str per box (drawn with Pillow)."""
        from tensorboard import summary
        from tensorboard.summary.image_boxes import check_image_boxes_args

        pending_labels = None if labels is None or isinstance(labels, str) else list(labels)  # as at the call
        if self._deferred_if_pending(
                tag, {"img_tensor": img_tensor, "box_tensor": box_tensor}, global_step, walltime,
                lambda image, boxes: summary.image_boxes(tag, image, boxes, rescale, dataformats, pending_labels),
                lambda image_shape, boxes_shape: check_image_boxes_args(image_shape, boxes_shape, dataformats,
                                                                        pending_labels, rescale)):
            return
        self._add(summary.image_boxes(check_tag(tag), img_tensor, box_tensor, rescale=rescale,
                                      dataformats=dataformats, labels=labels), global_step, walltime)

    def add_figure(self, tag: str, figure, global_step=None, close: bool = True, walltime=None) -> None:
        """Logs a matplotlib figure (or a list of them, as a batch) as an image."""
        from tensorboard import summary

        check_tag(tag)
        if isinstance(figure, (list, tuple)):
            from tensorboard.summary.figure import figures_to_images

            self._add(summary.image(tag, figures_to_images(figure, close=close), dataformats="NHWC"), global_step,
                      walltime)
        else:
            self._add(summary.figure(tag, figure, close=close), global_step, walltime)

    def add_video(self, tag: str, video=None, global_step=None, fps: float = 4, walltime=None,
                  dataformats: str = "NTCHW", *, vid_tensor=None) -> None:
        """Logs a video (N, T, C, H, W by default) as an animated GIF."""
        from tensorboard import summary
        from tensorboard.summary.video import check_video_args

        video = require("video", pick("video", video, "vid_tensor", vid_tensor))
        if self._deferred_if_pending(tag, {"video": video}, global_step, walltime,
                                     lambda array: summary.video(tag, array, fps=fps, dataformats=dataformats),
                                     lambda shape: check_video_args(shape, fps, dataformats)):
            return
        self._add(summary.video(check_tag(tag), video, fps=fps, dataformats=dataformats), global_step, walltime)

    def add_audio(self, tag: str, audio=None, *args, sample_rate=None, global_step=None, walltime=None,
                  snd_tensor=None) -> None:
        """Logs audio samples in [-1, 1] (L,) or (L, channels).

        Positional order: the seeds' and MXBoard's (tag, audio, sample_rate, global_step). torch's
        (tag, snd_tensor, global_step, sample_rate, walltime) is followed when only it fits (a rate
        that is no audio rate, five positionals); a call that fits both fails (see tensorboard._orders).
        """
        from tensorboard import summary
        from tensorboard.summary.audio import check_audio_args, check_audio_dtype

        audio = require("audio", pick("audio", audio, "snd_tensor", snd_tensor))
        sample_rate, global_step, walltime = _orders.audio_args(args, sample_rate, global_step, walltime)
        if self._deferred_if_pending(tag, {"audio": audio}, global_step, walltime,
                                     lambda array: summary.audio(tag, array, sample_rate=sample_rate),
                                     lambda shape: check_audio_args(shape, sample_rate),
                                     lambda name, dtype: check_audio_dtype(dtype)):
            return
        self._add(summary.audio(check_tag(tag), audio, sample_rate=sample_rate), global_step, walltime)

    def add_text(self, tag: str, text: str | None = None, global_step=None, walltime=None, *,
                 text_string: str | None = None) -> None:
        """Logs a text (markdown) note."""
        from tensorboard import summary

        text = require("text", pick("text", text, "text_string", text_string))
        self._add(summary.text(check_tag(tag), text), global_step, walltime)

    def add_pr_curve(self, tag: str, labels, predictions, *args, global_step=None, num_thresholds=None,
                     weights=None, walltime=None) -> None:
        """Logs a precision-recall curve of binary `labels` against `predictions` in [0, 1].

        Positional (global_step, num_thresholds, weights, walltime) as tensorboardX and torch, or
        MXBoard's (num_thresholds, global_step, weights) when only that fits; ambiguous calls fail.
        """
        from tensorboard import summary
        from tensorboard.summary.pr_curve import check_pr_curve_args

        global_step, num_thresholds, weights, walltime = _orders.pr_curve_args(args, global_step, num_thresholds,
                                                                              weights, walltime)
        if self._deferred_if_pending(
                tag, {"labels": labels, "predictions": predictions, "weights": weights}, global_step, walltime,
                lambda truth, scores, weight: summary.pr_curve(tag, truth, scores, num_thresholds, weight),
                lambda *shapes: check_pr_curve_args(*shapes, num_thresholds)):
            return
        self._add(summary.pr_curve(check_tag(tag), labels, predictions, num_thresholds=num_thresholds,
                                   weights=weights), global_step, walltime)

    def add_pr_curve_raw(self, tag: str, true_positive_counts, false_positive_counts, true_negative_counts,
                         false_negative_counts, precision, recall, global_step=None, num_thresholds: int | None = None,
                         weights=None, walltime=None) -> None:
        """Logs a precision-recall curve from precomputed counts; num_thresholds defaults to the series length."""
        from tensorboard import summary

        self._add(summary.pr_curve_raw(check_tag(tag), true_positive_counts, false_positive_counts,
                                       true_negative_counts, false_negative_counts, precision, recall,
                                       num_thresholds=num_thresholds, weights=weights), global_step, walltime)

    def add_mesh(self, tag: str, vertices, colors=None, faces=None, config_dict=None, global_step=None,
                 walltime=None) -> None:
        """Logs a 3-D mesh or point cloud (vertices [1, N, 3], optional colors and faces)."""
        from tensorboard import summary
        from tensorboard.summary.mesh import check_mesh_args

        import copy

        pending_config = copy.deepcopy(config_dict)  # as at the call, whatever the caller changes next
        if self._deferred_if_pending(
                tag, {"vertices": vertices, "colors": colors, "faces": faces}, global_step, walltime,
                lambda points, rgb, triangles: summary.mesh(tag, points, rgb, triangles, pending_config),
                lambda *shapes: check_mesh_args(*shapes, pending_config)):
            return
        self._add(summary.mesh(check_tag(tag), vertices, colors=colors, faces=faces, config_dict=config_dict),
                  global_step, walltime)
