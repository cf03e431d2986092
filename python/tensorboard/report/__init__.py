"""A logdir as one self-contained HTML page (`tensorboard export --logdir D --out report.html`):
scalar charts with runs overlaid, distributions, last images, text and an hparams table, drawn by
a vendored uPlot inlined into the page, so it opens offline and from an attachment; `show(logdir)`
puts the same page in a notebook cell."""
from __future__ import annotations

import os

from tensorboard.report.cli import export_report, main
from tensorboard.report.notebook import MAX_EMBED_BYTES, ReportView, show

__all__ = ["MAX_EMBED_BYTES", "ReportView", "export_report", "hparams_table", "main", "show"]


def hparams_table(logdir: str | os.PathLike, runs: str | None = None, storage_options: dict | None = None):
    """The report's hparams table as a pandas DataFrame.

    Args:
        logdir: The logdir to read.
        runs: A regex on run names, as `tensorboard export --runs` takes it.
        storage_options: fsspec options for a remote logdir.

    Returns:
        One row per run with an hparams session: `run`, one column per hyperparameter, then the
        final value of each metric (an empty DataFrame without sessions).

    Raises:
        FileNotFoundError: `logdir` does not exist.
    """
    from tensorboard.logdir import Selection, read_runs
    from tensorboard.logdir.hparams import hparams_frame

    return hparams_frame(read_runs(logdir, storage_options, selection=Selection.of(runs=runs)))
