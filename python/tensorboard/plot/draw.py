"""Panels drawn with matplotlib, and nothing else (the data is prepared by `scalars` and `histograms`):
a Figure of one axes per panel, text kept as text (TrueType fonts embedded in PDF, text elements in
SVG), the Okabe-Ito colour-blind-safe palette (Okabe & Ito, "Color Universal Design", 2008), each run
or group the same colour in every panel, a smoothed line drawn over its raw line as TensorBoard draws
it. Artists carry labels tests and users can find: a run's line is labelled with its name, its raw
line `_raw:NAME` and its band `_band:NAME` (a leading underscore keeps them out of the legend)."""
from __future__ import annotations

import contextlib
import functools
import math
import os
from typing import Iterator

import numpy as np

from tensorboard.plot.histograms import DistributionPanel, HistogramPanel
from tensorboard.plot.scalars import Panel

# Okabe-Ito without its black, which is kept for text; after 7 runs the colours repeat with another dash.
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442")
DASHES = ("solid", "dashed", "dotted", "dashdot")
PANEL_SIZE = (4.2, 3.0)  # inches per panel when no size is given
MAX_COLUMNS = 3
RAW_ALPHA = 0.25  # TensorBoard draws the unsmoothed line faintly behind the smoothed one
BAND_ALPHA = 0.2
LEGEND_MAX = 40  # more runs than this: no legend (it would cover the figure); the SVG's titles still name them
SAVE_RC = {
    "pdf.fonttype": 42, "ps.fonttype": 42,  # TrueType fonts, embedded: text stays text in the PDF
    "svg.fonttype": "none",  # text elements in the SVG, searchable and editable
    "pgf.texsystem": "pdflatex", "pgf.rcfonts": False,  # the PGF's text is set by the document's own fonts
}
RC = {
    **SAVE_RC, "font.size": 9, "axes.titlesize": 9, "legend.fontsize": 8, "axes.spines.top": False,
    "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.3, "lines.linewidth": 1.4,
}


def check_style(style: str | None) -> None:
    """A ValueError naming `style` unless it is one of matplotlib's style sheets or a file."""
    import matplotlib.style

    if style is not None and style not in matplotlib.style.available and not os.path.isfile(style):
        raise ValueError(f"style {style!r}: neither a file nor one of matplotlib's style sheets "
                         f"({', '.join(sorted(matplotlib.style.available)[:6])}, ...)")


@contextlib.contextmanager
def plot_style(style: str | None = None) -> Iterator[None]:
    """Our figure settings, then the matplotlib style sheet `style` (a name or a path) over them."""
    import matplotlib
    import matplotlib.style

    check_style(style)
    with matplotlib.rc_context(RC):
        if style is None:
            yield
        else:
            with matplotlib.style.context(style):
                yield


@functools.cache
def figure_class():
    """matplotlib's Figure whose `savefig` applies SAVE_RC (read when saving, not when drawing), so a
    figure saved by the caller embeds its fonts as `tensorboard plot`'s do."""
    import matplotlib
    from matplotlib.figure import Figure

    class PaperFigure(Figure):
        """A Figure that saves with vector text and embedded TrueType fonts."""

        def savefig(self, *args, **kwargs):
            with matplotlib.rc_context(SAVE_RC):
                return super().savefig(*args, **kwargs)

    return PaperFigure


def colours(names: list[str]) -> dict[str, tuple[str, str]]:
    """{run or group: (colour, dash)} in the order given: the same for a name in every panel."""
    return {name: (PALETTE[i % len(PALETTE)], DASHES[(i // len(PALETTE)) % len(DASHES)])
            for i, name in enumerate(dict.fromkeys(names))}


def figure(panels: list, size: tuple[float, float] | None = None, logx: bool = False, logy: bool = False,
           offset: bool = True, names: list[str] | None = None):
    """A matplotlib Figure with one axes per panel (scalar, histogram or distribution panels); histograms
    in TensorBoard's offset view, or its overlay view when not `offset`. Colours go to `names` (runs and
    groups) in order, so that figures drawn apart share them; None: to those of `panels`."""
    columns = min(len(panels), MAX_COLUMNS)
    rows = math.ceil(len(panels) / columns)
    fig = figure_class()(figsize=size or (PANEL_SIZE[0] * columns, PANEL_SIZE[1] * rows), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    palette = colours(names or panel_names(panels))
    for ax, panel in zip(axes, panels):
        if isinstance(panel, Panel):
            _scalars(ax, panel, palette, logx, logy)
        elif isinstance(panel, HistogramPanel):
            _histogram(ax, panel, palette[panel.run][0], offset)
        else:
            _distribution(ax, panel, palette[panel.run][0])
    for ax in axes[len(panels):]:
        ax.set_visible(False)
    drawn = panel_names(panels)
    if any(isinstance(p, Panel) for p in panels) and 1 < len(drawn) <= LEGEND_MAX:
        handles = {h.get_label(): h for ax in axes for h in ax.get_legend_handles_labels()[0]}
        fig.legend(list(handles.values()), list(handles), loc="outside right upper", frameon=False)
    return fig


def panel_names(panels: list) -> list[str]:
    """The runs and groups `panels` draw, in order of first appearance."""
    return list(dict.fromkeys([line.name for p in panels if isinstance(p, Panel) for line in p.lines] +
                              [p.run for p in panels if not isinstance(p, Panel)]))


def _scalars(ax, panel: Panel, palette: dict, logx: bool, logy: bool) -> None:
    for line in panel.lines:
        colour, dash = palette[line.name]
        if line.band is not None:
            ax.fill_between(line.x, line.band[0], line.band[1], color=colour, alpha=BAND_ALPHA, linewidth=0,
                            label=f"_band:{line.name}")
        if line.raw is not None:
            ax.plot(line.x, line.raw, color=colour, alpha=RAW_ALPHA, linewidth=1.0, linestyle=dash,
                    label=f"_raw:{line.name}")
        ax.plot(line.x, line.y, color=colour, linestyle=dash, label=line.name)
    ax.set_title(panel.tag)
    ax.set_xlabel(panel.xlabel)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    if len(panel.lines) == 1:  # no figure legend for a single run: name it in the panel
        ax.set_title(f"{panel.tag} ({panel.lines[0].name})")


def _histogram(ax, panel: HistogramPanel, colour: str, offset: bool) -> None:
    """TensorBoard's offset view (newest step in front, lowest) or, with one baseline, its overlay view."""
    centres = (panel.edges[:-1] + panel.edges[1:]) / 2
    widths = np.diff(panel.edges)
    density = panel.counts / widths
    peak = float(density.max()) or 1.0
    spacing = (float(np.ptp(panel.steps)) / max(len(panel.steps) - 1, 1)) or 1.0
    shades = np.linspace(0.35, 1.0, len(panel.steps))
    for i in range(len(panel.steps)):  # oldest first, so newer ones are drawn over them
        if offset:
            base = float(panel.steps[i])
            top = base - density[i] / peak * spacing * 2.5
            ax.fill_between(centres, base, top, facecolor="white", edgecolor=colour, alpha=1.0, linewidth=0.8,
                            label=f"_step:{int(panel.steps[i])}")
        else:
            ax.plot(centres, density[i], color=colour, alpha=float(shades[i]), linewidth=0.9,
                    label=f"_step:{int(panel.steps[i])}")
    if offset:
        ax.invert_yaxis()
        ax.set_ylabel("step")
    else:
        ax.set_ylabel("density")
    ax.set_title(f"{panel.tag} ({panel.run})")


def _distribution(ax, panel: DistributionPanel, colour: str) -> None:
    """The percentile bands of TensorBoard's distribution chart: min-max, ±1.5, ±1, ±0.5 sigma, the median."""
    p = panel.percentiles
    x = panel.steps.astype(np.float64)
    for outer, alpha in zip(range(4), (0.15, 0.25, 0.35, 0.45)):
        ax.fill_between(x, p[:, outer], p[:, -1 - outer], color=colour, alpha=alpha, linewidth=0,
                        label=f"_band:{outer}")
    ax.plot(x, p[:, 4], color=colour, linewidth=1.2, label="median")
    ax.set_title(f"{panel.tag} ({panel.run})")
    ax.set_xlabel("step")
