"""A logdir as one self-contained HTML page (`tensorboard export --logdir D --out report.html`):
scalar charts with runs overlaid, distributions, last images, text and an hparams table, drawn by
a vendored uPlot inlined into the page, so it opens offline and from an attachment."""
from __future__ import annotations

import os

from tensorboard.report.cli import export_report, main

__all__ = ["export_report", "hparams_table", "main"]


def hparams_table(logdir: str | os.PathLike, runs: str | None = None, storage_options: dict | None = None):
    """The report's hparams table as a pandas DataFrame: one row per run with an hparams session,
    `run`, one column per hyperparameter, then the final value of each metric. `runs`: a regex on
    run names, as `tensorboard export --runs` takes it."""
    import re

    from tensorboard.reader._hparams_table import hparams_frame
    from tensorboard.reader._runs import read_runs

    pattern = None if runs is None else re.compile(runs)
    return hparams_frame(read_runs(logdir, storage_options,
                                   run_filter=None if pattern is None else (lambda name: bool(pattern.search(name)))))
