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
        """Logs a histogram of `values` (any shape, flattened) at a step.

        Args:
            tag: The chart's name, a non-empty str.
            values: Finite numbers: an array or tensor of any framework.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            bins: "tensorflow" (or MXBoard's "default"): TensorBoard's exponential buckets; else what
                numpy.histogram takes: a bucket count, increasing edges, or a rule name ("auto", "fd", ...).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            max_bins: Merge neighbouring buckets until at most this many remain.

        Raises:
            ValueError: Empty `values`, NaN or infinite values, values outside explicit edges, or invalid `bins`.
        """
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
        """Logs a histogram from precomputed statistics and buckets.

        Args:
            tag: The chart's name, a non-empty str.
            min: The smallest value.
            max: The largest value (not below `min` unless `num` is 0).
            num: The number of values; the bucket counts must add up to it.
            sum: The sum of the values.
            sum_squares: The sum of their squares.
            bucket_limits: The buckets' right edges, non-decreasing; bucket i holds (limit[i-1], limit[i]].
            bucket_counts: The number of values in each bucket (finite, non-negative).
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).

        Raises:
            ValueError: Statistics TensorBoard could not draw, named in the message.
        """
        from tensorboard.summary.histogram import histogram_raw_proto

        histo = histogram_raw_proto(min, max, num, sum, sum_squares, bucket_limits, bucket_counts)
        self._add(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=check_tag(tag), histo=histo)]),
                  global_step, walltime)

    @states_order
    def add_image(self, tag: str, image=None, global_step=None, walltime=None, dataformats: str | None = None, *,
                  img_tensor=None) -> None:
        """Logs an image (or a batch tiled into a grid) as a PNG.

        Args:
            tag: The image's name, a non-empty str.
            image: An array or tensor laid out as `dataformats` says: floats in [0, 1], uint8 0..255
                (other dtypes: see `tensorboard.summary.image`); out of range is clipped, with a warning.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            dataformats: Letters of N, C, H, W ("CHW", "HWC", "HW", "NCHW", ...); None: "HW" for
                2-D, "CHW" for 3-D, "NCHW" for 4-D input.
            img_tensor: torch's and tensorboardX's keyword for `image`.

        Raises:
            ValueError: A shape that does not fit `dataformats`, not 1, 3 or 4 channels, or an empty image.

        Examples:
            >>> writer.add_image("input", np.random.rand(3, 64, 64), global_step=0)
        """
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
        """Logs a batch of images tiled into one grid image.

        Args:
            tag: The image's name, a non-empty str.
            images: A batch laid out as `dataformats` says, or a list of same-shaped images (each without N).
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            dataformats: Letters of N, C, H, W; "NCHW" by default.
            img_tensor: torch's and tensorboardX's keyword for `images`.

        Raises:
            ValueError: An empty list, images of different shapes, or a shape that does not fit `dataformats`.
        """
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
        """Logs an image with boxes drawn on it in red (torch's positional order: rescale before dataformats).

        Args:
            tag: The image's name, a non-empty str.
            img_tensor: One image, laid out as `dataformats` says.
            box_tensor: N x 4 pixel corners (xmin, ymin, xmax, ymax), or one box as a 4-vector.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            rescale: A positive factor the image is scaled by after drawing.
            dataformats: Letters of C, H, W ("CHW" by default).
            labels: One str per box, written on it (needs Pillow).

        Raises:
            ValueError: A batch instead of one image, boxes not N x 4, or not one label per box.
        """
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
        """Logs a matplotlib figure (or a list of same-size figures, as a batch) as an image.

        Args:
            tag: The image's name, a non-empty str.
            figure: A matplotlib Figure, or a list of them.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            close: Close the figure(s) once rendered.
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).

        Raises:
            ValueError: An empty list, or figures that render at different sizes.
        """
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
        """Logs a video as an animated GIF (a batch is tiled into a grid per frame).

        Args:
            tag: The video's name, a non-empty str.
            video: Frames laid out as `dataformats` says; pixel values as in `add_image`.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            fps: Frames per second, positive; GIF plays the nearest 100/k, at most 50.
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            dataformats: Letters of N, T, C, H, W ("NTCHW" by default; N and C optional).
            vid_tensor: torch's and tensorboardX's keyword for `video`.

        Raises:
            ValueError: A shape that does not fit `dataformats`, not 1, 3 or 4 channels, or a bad `fps`.
        """
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
        """Logs an audio clip as 16-bit WAV.

        Args:
            tag: The clip's name, a non-empty str.
            snd_tensor: A mono clip (any shape with one dimension above 1, as torch squeezes it) or
                (channels, length) as torchaudio's, up to 32 channels. Floats in [-1, 1] (clipped
                beyond, with a warning) or integer PCM samples (int16, ...).
            global_step: The step; None is 0 (or `use_metadata`'s step).
            sample_rate: Samples per second, a positive integer.
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            audio: MXBoard's keyword for `snd_tensor`.

        Raises:
            TypeError: A dtype without a PCM scale (bool, int64, uint64).
            ValueError: A shape that is not a clip, more than 32 channels, or a bad `sample_rate`.
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
        """Logs a text, rendered as markdown by the Text dashboard.

        Args:
            tag: The text's name, a non-empty str.
            text: A str, or a nested list of str (a 2-D one is shown as a table).
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).
            text_string: torch's and tensorboardX's keyword for `text`.

        Raises:
            ValueError: Text that is not valid Unicode, or more than 16 MiB of UTF-8 in one call.
        """
        from tensorboard import summary

        text = require("text", pick("text", text, "text_string", text_string))
        self._add(summary.text(check_tag(tag), text), global_step, walltime)

    @states_order
    def add_pr_curve(self, tag: str, labels, predictions, global_step=None, num_thresholds=127, weights=None,
                     walltime=None) -> None:
        """Logs a precision-recall curve of binary `labels` against `predictions`.

        Args:
            tag: The curve's name, a non-empty str.
            labels: Ground truth: bools or 0/1, one per prediction.
            predictions: Scores in [0, 1], as many as `labels`.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            num_thresholds: Thresholds of the curve, an int in [1, 65536].
            weights: A scalar, or one weight per example (finite, non-negative).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).

        Raises:
            ValueError: Labels other than 0/1, predictions outside [0, 1], or mismatched lengths.
        """
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
        """Logs a precision-recall curve from precomputed counts, one value per threshold in each series.

        Args:
            tag: The curve's name, a non-empty str.
            true_positive_counts: True positives at each threshold.
            false_positive_counts: False positives at each threshold.
            true_negative_counts: True negatives at each threshold.
            false_negative_counts: False negatives at each threshold.
            precision: Precision at each threshold.
            recall: Recall at each threshold.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            num_thresholds: The series' length; None: the length of `true_positive_counts`.
            weights: Accepted for tensorboardX's signature and not used (the counts are weighted already).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).

        Raises:
            ValueError: A series of another length, or negative counts.
        """
        from tensorboard import summary

        self._add(summary.pr_curve_raw(check_tag(tag), true_positive_counts, false_positive_counts,
                                       true_negative_counts, false_negative_counts, precision, recall,
                                       num_thresholds=num_thresholds, weights=weights), global_step, walltime)

    @states_order
    def add_mesh(self, tag: str, vertices, colors=None, faces=None, config_dict=None, global_step=None,
                 walltime=None) -> None:
        """Logs a 3-D mesh, or a point cloud without `faces`, for the Mesh dashboard.

        Args:
            tag: The mesh's name, a non-empty str.
            vertices: (batch, N, 3) or (N, 3) coordinates.
            colors: RGB per vertex, like `vertices`: 0..255, or floats in [0, 1].
            faces: (batch, F, 3) or (F, 3) integer vertex indices.
            config_dict: three.js settings (camera, lights, material), JSON-serializable.
            global_step: The step; None is 0 (or `use_metadata`'s step).
            walltime: Seconds since the epoch; None is now (or `use_metadata`'s time).

        Raises:
            ValueError: Shapes that do not fit together, indices of missing vertices, or colors out of range.
        """
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
