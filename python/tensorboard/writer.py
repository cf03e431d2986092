"""The user-facing writers, in one place: `FileWriter` (the low-level API: FileWriter +
tensorboard.summary.*, Summary protos and Events), `SummaryWriter` (MXBoard's and tensorboardX's
`add_*` API) and tensorboardX's `GlobalSummaryWriter`. Each lives in its own module; this one keeps
`tensorboard.writer` imports working.
"""
from tensorboard.writers.file_writer import FileWriter
from tensorboard.writers.global_writer import GlobalSummaryWriter
from tensorboard.writers.summary_writer import SummaryWriter, default_logdir

__all__ = ["FileWriter", "GlobalSummaryWriter", "SummaryWriter", "default_logdir"]
