"""SummaryWriter's methods for tensors and media: histograms, images, video, audio, text, PR curves
and meshes. Each converts nothing itself: `tensorboard.summary` encodes, the writer queues. The
methods use of their writer only what `_host.MediaHost` declares."""
from __future__ import annotations

from typing import Any

from tensorboard.src import summary_pb2
from tensorboard.values import background
from tensorboard.values import deferred as _deferred
from tensorboard.values.args import check_tag, pick, require
from tensorboard.writers.positional import states_order


def _stacked(images: Any, name: str) -> Any:
    """A list/tuple of same-shaped images as one batch array (tensorboardX and torch take such lists)."""
    if not isinstance(images, (list, tuple)):
        return images
    import numpy as np

    from tensorboard.values.convert import to_numpy

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

    from tensorboard.values.convert import check_numeric, to_numpy

    return np.array(check_numeric(to_numpy(value, name), name), copy=True)


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
        with background.caller_busy():  # the encoder keeps off the GIL meanwhile (see _add_later)
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

    @states_order
    def add_histogram(self, tag: str, values=None, global_step=None, bins="tensorflow", walltime=None,
                      max_bins: int | None = None) -> None:
        """Logs a histogram of `values`; `bins` as in numpy.histogram, or TensorBoard's default buckets
        ("tensorflow" or MXBoard's "default")."""
        from tensorboard import summary
        from tensorboard.summary.histogram import check_histogram_args

        if hasattr(bins, "__len__") and not isinstance(bins, str) and _deferred.framework_of(values) is not None:
            bins = _private_copy(bins, "bins")  # edges as at the call, whatever the caller does next
        if self._deferred_if_pending(tag, {"values": values}, global_step, walltime,
                                     lambda array: summary.histogram(tag, array, bins=bins, max_bins=max_bins),
                                     lambda shape: check_histogram_args(shape, bins, max_bins)):
            return
        self._add(summary.histogram(check_tag(tag), require("values", values), bins=bins, max_bins=max_bins),
                  global_step, walltime)

    @states_order
    def add_histogram_raw(self, tag: str, min, max, num, sum, sum_squares, bucket_limits, bucket_counts,
                          global_step=None, walltime=None) -> None:
        """Logs a histogram from precomputed statistics and buckets (checked: see histogram_raw_proto)."""
        from tensorboard.summary.histogram import histogram_raw_proto

        histo = histogram_raw_proto(min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._add(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=check_tag(tag), histo=histo)]),
                  global_step, walltime)

    @states_order
    def add_image(self, tag: str, image=None, global_step=None, walltime=None, dataformats: str | None = None, *,
                  img_tensor=None) -> None:
        """Logs an image: HW, CHW (default for 3-D), HWC or a batch (NCHW, tiled into a grid)."""

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

    @states_order
    def add_images(self, tag: str, images=None, global_step=None, walltime=None, dataformats: str = "NCHW", *,
                   img_tensor=None) -> None:
        """Logs a batch of images tiled into one grid; a list of images (each without N) is stacked first."""

        images = require("images", pick("images", images, "img_tensor", img_tensor))
        if not isinstance(dataformats, str):
            raise TypeError(f"dataformats: expected a str such as 'NCHW', got {type(dataformats).__name__}")
        if isinstance(images, (list, tuple)):
            images = _stacked(images, "images")
            if "N" not in dataformats.upper():
                dataformats = "N" + dataformats
        self._image(tag, images, dataformats, global_step, walltime)

    @states_order
    def add_image_with_boxes(self, tag: str, img_tensor, box_tensor, global_step=None, walltime=None,
                             rescale: float = 1, dataformats: str = "CHW", labels=None) -> None:
        """Logs an image with boxes drawn on it: box_tensor is N x 4 pixel corners (xmin, ymin, xmax, ymax),
        labels one str per box (drawn with Pillow). Positional order torch's (rescale before dataformats)."""
        from tensorboard import summary
        from tensorboard.summary.image_boxes import check_image_boxes_args

        try:
            if isinstance(labels, (bytes, bytearray)):
                raise TypeError
            pending_labels = None if labels is None or isinstance(labels, str) else list(labels)  # as at the call
        except TypeError:
            raise TypeError(f"labels: expected a list of str (one per box), got {type(labels).__name__}: "
                            f"{labels!r:.60}") from None
        if self._deferred_if_pending(
                tag, {"img_tensor": img_tensor, "box_tensor": box_tensor}, global_step, walltime,
                lambda image, boxes: summary.image_boxes(tag, image, boxes, rescale, dataformats, pending_labels),
                lambda image_shape, boxes_shape: check_image_boxes_args(image_shape, boxes_shape, dataformats,
                                                                        pending_labels, rescale)):
            return
        self._add(summary.image_boxes(check_tag(tag), img_tensor, box_tensor, rescale=rescale,
                                      dataformats=dataformats, labels=labels), global_step, walltime)

    @states_order
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

    @states_order
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

    @states_order
    def add_audio(self, tag: str, snd_tensor=None, global_step=None, sample_rate=44100, walltime=None, *,
                  audio=None) -> None:
        """Logs audio samples in [-1, 1]: a mono clip (L,) or (1, L), or (channels, L) as torchaudio.

        Any shape with one dimension above 1 is a mono clip, as torch squeezes it; (C, L) arrays with up
        to 32 channels are channels-first (see `tensorboard.summary.audio.clip_shape`). `audio` is
        MXBoard's keyword for `snd_tensor`.
        """
        from tensorboard.summary.audio import CHANNELS_FIRST

        self._audio(tag, require("snd_tensor", pick("snd_tensor", snd_tensor, "audio", audio)), global_step,
                    sample_rate, walltime, CHANNELS_FIRST, "snd_tensor")

    def _audio(self, tag: str, clip, global_step, sample_rate, walltime, layout: str, name: str) -> None:
        """Logs `clip` laid out as `layout` (a tensorboard.summary.audio layout); `name` is its parameter's."""
        from tensorboard import summary
        from tensorboard.summary.audio import as_frames_by_channels, check_audio_args, check_audio_dtype, clip_shape

        if self._deferred_if_pending(
                tag, {name: clip}, global_step, walltime,
                lambda array: summary.audio(tag, as_frames_by_channels(array, layout, name), sample_rate=sample_rate),
                lambda shape: check_audio_args(clip_shape(shape, layout, name), sample_rate, name),
                lambda _, dtype: check_audio_dtype(dtype, name)):
            return
        from tensorboard.values.convert import check_numeric, to_numpy

        array = check_numeric(to_numpy(clip, name), name)
        check_audio_dtype(array.dtype.name, name)
        self._add(summary.audio(check_tag(tag), as_frames_by_channels(array, layout, name), sample_rate=sample_rate),
                  global_step, walltime)

    @states_order
    def add_text(self, tag: str, text: str | None = None, global_step=None, walltime=None, *,
                 text_string: str | None = None) -> None:
        """Logs a text (markdown) note."""
        from tensorboard import summary

        text = require("text", pick("text", text, "text_string", text_string))
        self._add(summary.text(check_tag(tag), text), global_step, walltime)

    @states_order
    def add_pr_curve(self, tag: str, labels, predictions, global_step=None, num_thresholds=127, weights=None,
                     walltime=None) -> None:
        """Logs a precision-recall curve of binary `labels` against `predictions` in [0, 1]."""
        from tensorboard import summary
        from tensorboard.summary.pr_curve import check_pr_curve_args

        if self._deferred_if_pending(
                tag, {"labels": labels, "predictions": predictions, "weights": weights}, global_step, walltime,
                lambda truth, scores, weight: summary.pr_curve(tag, truth, scores, num_thresholds, weight),
                lambda *shapes: check_pr_curve_args(*shapes, num_thresholds)):
            return
        self._add(summary.pr_curve(check_tag(tag), labels, predictions, num_thresholds=num_thresholds,
                                   weights=weights), global_step, walltime)

    @states_order
    def add_pr_curve_raw(self, tag: str, true_positive_counts, false_positive_counts, true_negative_counts,
                         false_negative_counts, precision, recall, global_step=None, num_thresholds: int | None = None,
                         weights=None, walltime=None) -> None:
        """Logs a precision-recall curve from precomputed counts; num_thresholds defaults to the series length."""
        from tensorboard import summary

        self._add(summary.pr_curve_raw(check_tag(tag), true_positive_counts, false_positive_counts,
                                       true_negative_counts, false_negative_counts, precision, recall,
                                       num_thresholds=num_thresholds, weights=weights), global_step, walltime)

    @states_order
    def add_mesh(self, tag: str, vertices, colors=None, faces=None, config_dict=None, global_step=None,
                 walltime=None) -> None:
        """Logs a 3-D mesh or point cloud (vertices [1, N, 3], optional colors and faces)."""
        import copy

        from tensorboard import summary
        from tensorboard.summary.mesh import check_mesh_args

        pending_config = copy.deepcopy(config_dict)  # as at the call, whatever the caller changes next
        if self._deferred_if_pending(
                tag, {"vertices": vertices, "colors": colors, "faces": faces}, global_step, walltime,
                lambda points, rgb, triangles: summary.mesh(tag, points, rgb, triangles, pending_config),
                lambda *shapes: check_mesh_args(*shapes, pending_config)):
            return
        self._add(summary.mesh(check_tag(tag), vertices, colors=colors, faces=faces, config_dict=config_dict),
                  global_step, walltime)
