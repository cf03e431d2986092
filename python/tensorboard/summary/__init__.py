"""Summary encoders: NumPy-like values -> `Summary` protos in the formats TensorBoard reads.

Pure functions, one module per data type; `FileWriter.add_summary` writes their results.
"""
from tensorboard.summary.audio import audio
from tensorboard.summary.custom_scalars import custom_scalars
from tensorboard.summary.figure import figure, figure_to_image
from tensorboard.summary.histogram import histogram
from tensorboard.summary.hparams import hparams
from tensorboard.summary.image import image, images, make_grid
from tensorboard.summary.mesh import mesh
from tensorboard.summary.pr_curve import pr_curve, pr_curve_raw
from tensorboard.summary.scalar import scalar
from tensorboard.summary.text import text
from tensorboard.summary.video import video

__all__ = ["audio", "custom_scalars", "figure", "figure_to_image", "histogram", "hparams", "image", "images",
           "make_grid", "mesh", "pr_curve", "pr_curve_raw", "scalar", "text", "video"]
