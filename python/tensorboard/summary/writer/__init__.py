"""Upstream's `tensorboard.summary.writer` package, with its event file writer served by our core.

`event_file_writer` here replaces upstream's module of that name (torch.utils.tensorboard and
upstream's own summary code use it); `record_writer` and the rest resolve to upstream's files.
"""
from tensorboard import upstream_path

__path__ = upstream_path.extend_path(__path__, "summary", "writer")  # noqa: F821
