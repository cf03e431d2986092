"""Summary encoders: NumPy-like values -> `Summary` protos in the formats TensorBoard reads.

Pure functions, one module per data type; `FileWriter.add_summary` writes their results.
Upstream's names under `tensorboard.summary` (`v1`, `v2`, `writer`, `Writer`, `Output`,
`DirectoryOutput`) resolve too and load on first use; where a name exists in both
(`scalar`, `histogram`, `image`, `audio`, `text`), ours wins.
"""
from tensorboard import upstream_path
from tensorboard.summary.audio import audio
from tensorboard.summary.custom_scalars import custom_scalars
from tensorboard.summary.figure import figure, figure_to_image
from tensorboard.summary.histogram import histogram
from tensorboard.summary.hparams import hparams
from tensorboard.summary.image import image, image_samples, images, make_grid
from tensorboard.summary.image_boxes import image_boxes
from tensorboard.summary.keras_model import keras_model
from tensorboard.summary.mesh import mesh
from tensorboard.summary.pr_curve import pr_curve, pr_curve_raw
from tensorboard.summary.scalar import scalar
from tensorboard.summary.text import text
from tensorboard.summary.video import video

__all__ = ["audio", "custom_scalars", "figure", "figure_to_image", "histogram", "hparams", "image", "image_boxes",
           "image_samples", "images", "keras_model", "make_grid", "mesh", "pr_curve", "pr_curve_raw", "scalar", "text",
           "video"]

__path__ = upstream_path.extend_path(__path__, "summary")  # noqa: F821

# Upstream's `tensorboard.summary` re-exports these from its private modules.
_UPSTREAM_NAMES = {"Writer": "_writer", "Output": "_output", "DirectoryOutput": "_output"}


def __getattr__(name: str):
    """Loads upstream's summary submodules and names on first use."""
    import importlib

    if name in _UPSTREAM_NAMES:
        return getattr(importlib.import_module(f"tensorboard.summary.{_UPSTREAM_NAMES[name]}"), name)
    if not name.startswith("__"):
        try:
            return importlib.import_module(f"tensorboard.summary.{name}")
        except ModuleNotFoundError as err:
            if err.name != f"tensorboard.summary.{name}":
                raise
    raise AttributeError(f"module 'tensorboard.summary' has no attribute {name!r}")
