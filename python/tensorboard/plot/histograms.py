"""Histogram and distribution panels from read runs, as plain arrays (no drawing here), one panel per
run and tag as TensorBoard's dashboards draw them. Histograms: each drawn step's buckets spread over
`BINS` even bins across the tag's whole range (counts shared by overlap, as if uniform within a
bucket), for the offset (ridge) or overlay view. Distributions: the percentiles TensorBoard's
distribution chart draws (`report.downsample.histogram_percentiles`) at every step kept."""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from tensorboard.logdir import RunData
from tensorboard.report.downsample import PERCENTILE_BPS, even_indices, histogram_percentiles

BINS = 30  # TensorBoard's histogram dashboard re-bins to 30 bins
HISTOGRAM_STEPS = 30  # steps drawn in a histogram panel at most, evenly spread, first and last kept


@dataclass(frozen=True)
class HistogramPanel:
    """One run's histograms of one tag: `counts[i]` over the bins between `edges` at `steps[i]`."""

    tag: str
    run: str
    steps: np.ndarray
    edges: np.ndarray
    counts: np.ndarray


@dataclass(frozen=True)
class DistributionPanel:
    """One run's distribution of one tag: `percentiles[i]` at PERCENTILE_BPS at `steps[i]`."""

    tag: str
    run: str
    steps: np.ndarray
    percentiles: np.ndarray


def _rows(run: RunData, tag_re) -> dict[str, np.ndarray]:
    """{tag: its row indices in step order} of the run's histograms whose tag `tag_re` finds (None: all)."""
    return {tag: rows for tag, rows in run.histograms.rows_by_tag().items() if tag_re is None or tag_re.search(tag)}


def histogram_panels(runs: list[RunData], tags: str | None, max_points: int) -> list[HistogramPanel]:
    """A panel per run and histogram tag, of at most HISTOGRAM_STEPS steps."""
    tag_re = re.compile(tags) if tags is not None else None
    panels = []
    for run in runs:
        store = run.histograms
        for tag, rows in _rows(run, tag_re).items():
            rows = rows[even_indices(len(rows), min(HISTOGRAM_STEPS, max_points))]
            histos = [store.values[int(i)] for i in rows]
            lo = min(h.min for h in histos)
            hi = max(h.max for h in histos)
            edges = np.linspace(lo, hi if hi > lo else lo + 1.0, BINS + 1)
            counts = np.array([rebinned(h.min, h.max, h.limits, h.counts, edges) for h in histos])
            panels.append(HistogramPanel(tag, run.name, np.frombuffer(store.steps, np.int64)[rows], edges, counts))
    return _found(panels, tags, "histogram")


def rebinned(lo: float, hi: float, limits, counts, edges: np.ndarray) -> np.ndarray:
    """A histogram's counts over the bins between `edges`: each bucket (its left edge the previous
    limit, `lo` for the first; its right edge its limit, `hi` for the last) shares its count among the
    bins it overlaps, in proportion to the overlap."""
    counts = np.asarray(counts, np.float64)
    if not len(counts) or not counts.sum():
        return np.zeros(len(edges) - 1)
    right = np.minimum(np.maximum(np.asarray(limits, np.float64), lo), hi)
    right[-1] = hi
    bounds = np.concatenate([[lo], right])
    cumulative = np.concatenate([[0.0], np.cumsum(counts)])
    keep = np.concatenate([[True], np.diff(bounds) > 0])  # np.interp needs increasing bounds
    if bounds[keep][-1] == bounds[0]:  # every value equal: all the count sits at one point
        return np.histogram([lo], edges, weights=[cumulative[-1]])[0].astype(np.float64)
    return np.diff(np.interp(edges, bounds[keep], cumulative[keep]))


def distribution_panels(runs: list[RunData], tags: str | None, max_points: int) -> list[DistributionPanel]:
    """A panel per run and histogram tag: the percentiles at up to `max_points` steps."""
    tag_re = re.compile(tags) if tags is not None else None
    panels = []
    for run in runs:
        store = run.histograms
        for tag, rows in _rows(run, tag_re).items():
            rows = rows[even_indices(len(rows), max_points)]
            histos = (store.values[int(i)] for i in rows)
            bands = np.array([histogram_percentiles(h.min, h.max, h.limits, h.counts) for h in histos],
                             np.float64).reshape(-1, len(PERCENTILE_BPS))
            panels.append(DistributionPanel(tag, run.name, np.frombuffer(store.steps, np.int64)[rows], bands))
    return _found(panels, tags, "distribution")


def _found(panels: list, tags: str | None, kind: str) -> list:
    if not panels:
        raise ValueError(f"tags {tags!r}: no histogram tag matches" if tags is not None
                         else f"tags: no histogram to draw as a {kind}")
    return panels
