"""The report inline in a notebook cell: `tensorboard.report.show(logdir)` returns an object whose
`_repr_html_` is the same self-contained page in an `<iframe srcdoc>`, so Jupyter Lab and Notebook,
VS Code and Colab draw it from the notebook's output alone: no server, no port, nothing to reach.

The page travels in the cell's output and is saved with the notebook, so its size is bounded by
MAX_EMBED_BYTES: a bigger page is refused by name, before anything reaches the front end."""
from __future__ import annotations

import html
import os
from dataclasses import dataclass

from tensorboard.logdir.selection import API_FLAGS
from tensorboard.report.cli import build_page, check_arguments, report_selection
from tensorboard.report.extract import REPORT_KINDS

MAX_EMBED_BYTES = 10_000_000
"""The most a `show` cell's HTML holds (the page, escaped into the iframe): 10 MB, 900 to 1800 scalar
series of 1000 points (the more, the more a run's tags share its clock). The notebook keeps it in its
file, loaded, saved and diffed whole with every other output, and the front end holds it as one
string: past this, a file (`export_report`) serves better than a cell."""
DEFAULT_HEIGHT = 800  # pixels; the page scrolls inside the frame


@dataclass(frozen=True, repr=False)
class ReportView:
    """A report page shown inline: Jupyter calls `_repr_html_`; `page` is the page's HTML itself.

    Args:
        page: The page's HTML, as `export_report` writes it.
        height: The frame's height in pixels.
    """

    page: str
    height: int = DEFAULT_HEIGHT

    def __repr__(self) -> str:
        # The cell's text/plain beside its HTML: short, not the page a second time.
        return f"<TensorBoard report: {len(self.page.encode('utf-8')):,} bytes; in a notebook it is drawn here>"

    def _repr_html_(self) -> str:
        # Scripts run (the charts), downloads are allowed (each chart's SVG, PNG and CSV), and nothing
        # else: the frame has an origin of its own, not the notebook's.
        return (f'<iframe srcdoc="{html.escape(self.page, quote=True)}" title="TensorBoard report" '
                f'sandbox="allow-scripts allow-downloads" '
                f'style="width: 100%; height: {self.height}px; border: 1px solid #ddd;"></iframe>')

    def save(self, path: str | os.PathLike) -> None:
        """Writes the page to `path` (what `export_report` would have written).

        Args:
            path: The file to write (replaced if it exists).
        """
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.page)


def show(logdir: str | os.PathLike, kinds=REPORT_KINDS, runs: str | None = None, tags: str | None = None,
         max_points: int = 1000, title: str | None = None, skip_damaged: bool = False,
         steps: str | tuple | None = None, *, exclude: str | None = None, group_runs: str | None = None,
         where: str | None = None, over=None, hparams_file: str | None = None,
         storage_options: dict | None = None, height: int = DEFAULT_HEIGHT,
         max_bytes: int = MAX_EMBED_BYTES) -> ReportView:
    """The report of `logdir`, shown in a notebook cell: the page `export_report` writes, in an iframe.

    Args:
        logdir: The logdir to read (a local path, or a remote one with `storage_options`).
        kinds: The sections shown (default: all of them), as `export_report` takes them.
        runs: Only the runs whose name this regex matches.
        tags: Only the tags this regex matches (charts, images, text).
        max_points: The most points a series shows (the smaller, the smaller the cell).
        title: The page's title (default: the logdir's name).
        skip_damaged: Read past a damaged file with a warning, as `export_report` does.
        steps: Only the steps from lo to hi, as (lo, hi) or "LO:HI".
        exclude: Leave out the runs this regex matches.
        group_runs: Draw each group of runs (see `export_report`) as its mean with a ± std band.
        where: Only the runs whose hyperparameters match this query (see `export_report`).
        over: Draw each configuration (runs that agree on every hyperparameter but these, e.g. "seed")
            as its mean with a ± std band.
        hparams_file: Also read hyperparameters from this file in each run's directory or a parent.
        storage_options: fsspec options for a remote logdir.
        height: The frame's height in pixels; the page scrolls inside it.
        max_bytes: The most the cell's HTML may hold (default MAX_EMBED_BYTES, 10 MB).

    Returns:
        A ReportView: the last expression of a cell, it is drawn there; `.page` is the HTML and
        `.save(path)` writes it.

    Raises:
        ValueError: The page is bigger than `max_bytes` (the message names what to reduce), or an
            option is invalid, as `export_report` refuses it.
        FileNotFoundError: `logdir` does not exist.

    Examples:
        >>> from tensorboard.report import show
        >>> show("logs/sweep", tags="loss|accuracy", max_points=300)  # doctest: +SKIP
    """
    check_arguments(None, kinds, max_points, tags, group_runs, steps)
    selection = report_selection(runs, exclude, where, over, hparams_file, group_runs, API_FLAGS)
    if height < 1:
        raise ValueError(f"height must be a positive number of pixels, got {height}")
    page, report = build_page(str(logdir), kinds, selection, tags, max_points, title, skip_damaged, None, steps,
                              group_runs=group_runs, storage_options=storage_options)
    view = ReportView(page, height)
    size = len(view._repr_html_().encode("utf-8"))
    if size > max_bytes:
        series = sum(len(items) for items in (*report.scalars.values(), *report.distributions.values()))
        raise ValueError(
            f"show: the page would put {size:,} bytes in the cell, above max_bytes={max_bytes:,} "
            f"({len(report.runs)} runs, {series} series of up to {max_points} points, "
            f"{len(report.images)} image tags); "
            f"show less with tags=, runs=/exclude=, kinds= or a smaller max_points=, or write the page to a file "
            f"with export_report(logdir, 'report.html') and open it")
    return view
