"""What the report shows, taken from the reader's run stores as NumPy arrays: scalar series and
histogram percentiles per tag and run (bounded by `max_points`), the last image and texts of each
tag and run, and the hparams rows. No HTML here."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from tensorboard.logdir.hparams import hparams_rows
from tensorboard.logdir.kinds import text_name
from tensorboard.logdir.payloads import tensor_to_numpy
from tensorboard.logdir.run_data import RunData
from tensorboard.report.downsample import even_indices, histogram_percentiles

REPORT_KINDS = ("scalars", "histograms", "images", "text", "hparams")
TEXTS_PER_SERIES = 10  # the last texts of a tag and run, as TensorBoard's text dashboard samples 10
_IMAGE_TYPES = ((b"\x89PNG", "image/png"), (b"\xff\xd8", "image/jpeg"), (b"GIF8", "image/gif"), (b"BM", "image/bmp"))


@dataclass
class Series:
    """One run's points of one tag: steps, values (scalars: (n,); histograms: (n, 9) percentiles) and
    wall times (seconds since the epoch; None for a group's mean, which has no time of its own)."""

    run: int
    steps: np.ndarray
    values: np.ndarray
    total: int  # points logged before downsampling
    band: tuple[np.ndarray, np.ndarray] | None = None  # a group run's (lower, upper): mean ± std
    walls: np.ndarray | None = None


@dataclass
class ReportData:
    runs: list[str] = field(default_factory=list)
    scalars: dict[str, list[Series]] = field(default_factory=dict)
    distributions: dict[str, list[Series]] = field(default_factory=dict)
    images: dict[str, list[tuple[int, int, str, bytes]]] = field(default_factory=dict)  # run, step, mime, bytes
    text: dict[str, list[tuple[int, list[tuple[int, str]]]]] = field(default_factory=dict)  # run, [(step, text)]
    hparams: list[dict] = field(default_factory=list)


def _grouped(store, bounds=None) -> list[tuple[str, np.ndarray]]:
    """[(tag, row indices of the tag ordered by step, stable)] of a store, tags in first-seen order;
    only rows whose step is within `bounds` (lo, hi) when given."""
    if not len(store):
        return []
    tags = np.frombuffer(store.tags, np.int32)
    steps = np.frombuffer(store.steps, np.int64)
    order = _within(np.lexsort((steps, tags)), steps, bounds)
    if not len(order):
        return []
    cuts = np.flatnonzero(np.diff(tags[order])) + 1
    return [(store.tag_names[int(tags[part[0]])], part) for part in np.split(order, cuts)]


def _within(rows: np.ndarray, steps: np.ndarray, bounds) -> np.ndarray:
    """The `rows` whose step is within `bounds` = (lo, hi), both included, None for an open end."""
    if bounds is None:
        return rows
    lo, hi = bounds
    picked = steps[rows]
    keep = np.ones(len(rows), bool)
    if lo is not None:
        keep &= picked >= lo
    if hi is not None:
        keep &= picked <= hi
    return rows[keep]


def _wanted(tag: str, tag_re) -> bool:
    return tag_re is None or bool(tag_re.search(tag))


def _image_type(encoded: bytes) -> str | None:
    for magic, mime in _IMAGE_TYPES:
        if encoded.startswith(magic):
            return mime
    return "image/webp" if encoded[:4] == b"RIFF" and encoded[8:12] == b"WEBP" else None


def _text_of(tensor) -> str:
    """A text summary's tensor as text: a string, or rows of a string table joined by tabs and newlines."""
    array = tensor_to_numpy(tensor)
    decode = lambda v: v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)
    if array.ndim == 0:
        return decode(array.item())
    if array.ndim == 1:
        return "\n".join(decode(v) for v in array)
    return "\n".join("\t".join(decode(v) for v in row) for row in array.reshape(array.shape[0], -1))


def _scalar_tensors(run: RunData, bounds=None) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray]]:
    """Scalars stored as tensors (the scalars plugin's TF2 form): [(tag, steps, values, wall times)]."""
    tags = set(run.plugin_content.get("scalars", ()))
    if not tags:
        return []
    found: dict[str, tuple[list, list, list]] = {}
    store = run.tensors
    for tid, step, wall, tensor in zip(store.tags, store.steps, store.walls, store.values):
        tag = store.tag_names[tid]
        if tag in tags:
            steps, values, walls = found.setdefault(tag, ([], [], []))
            steps.append(step)
            values.append(float(tensor_to_numpy(tensor).reshape(-1)[0]))
            walls.append(wall)
    out = []
    for tag, (steps, values, walls) in found.items():
        steps = np.asarray(steps, np.int64)
        order = _within(np.argsort(steps, kind="stable"), steps, bounds)
        if len(order):
            out.append((tag, steps[order], np.asarray(values, np.float64)[order], np.asarray(walls, np.float64)[order]))
    return out


def extract(runs: list[RunData], kinds=REPORT_KINDS, tags: str | None = None, max_points: int = 1000,
            steps: tuple[int | None, int | None] | None = None,
            group_runs: str | dict[str, list[str]] | None = None) -> ReportData:
    """The report's data from read runs; `tags` is a regex on tag names (charts, images, text);
    `steps` (lo, hi), both included, None for an open end, bounds every series; `group_runs`, a regex
    (each group of runs, `stats.grouping`) or {group: its runs} (`--over`'s configurations): each group
    is also drawn as its mean with a band of ± std."""
    even_indices(0, max_points)  # checks max_points before any work
    tag_re = re.compile(tags) if tags is not None else None
    bounds = steps
    report = ReportData()
    index: dict[str, int] = {}

    def run_id(run: RunData) -> int:
        name = run.name
        if name not in index:
            index[name] = len(report.runs)
            report.runs.append(name)
        return index[name]

    for run in runs:
        if "scalars" in kinds:
            store = run.scalars
            values = np.frombuffer(store.values, np.float64) if len(store) else None
            steps = np.frombuffer(store.steps, np.int64) if len(store) else None
            walls = np.frombuffer(store.walls, np.float64) if len(store) else None
            series = [(tag, steps[rows], values[rows], walls[rows]) for tag, rows in _grouped(store, bounds)]
            for tag, s, v, w in series + _scalar_tensors(run, bounds):
                if _wanted(tag, tag_re):
                    keep = even_indices(len(s), max_points)
                    report.scalars.setdefault(tag, []).append(
                        Series(run_id(run), s[keep], v[keep], len(s), walls=w[keep]))
        if "histograms" in kinds:
            store = run.histograms
            steps = np.frombuffer(store.steps, np.int64) if len(store) else None
            walls = np.frombuffer(store.walls, np.float64) if len(store) else None
            for tag, rows in _grouped(store, bounds):
                if _wanted(tag, tag_re):
                    keep = rows[even_indices(len(rows), max_points)]
                    rows_kept = [store.values[i] for i in keep]
                    bands = np.asarray([histogram_percentiles(r.min, r.max, r.limits, r.counts) for r in rows_kept],
                                       np.float64).reshape(-1, 9)
                    report.distributions.setdefault(tag, []).append(
                        Series(run_id(run), steps[keep], bands, len(rows), walls=walls[keep]))
        if "images" in kinds:
            store = run.images
            for tag, rows in _grouped(store, bounds):
                encoded = store.values[int(rows[-1])].encoded
                mime = _image_type(encoded)
                if _wanted(tag, tag_re) and mime is not None:
                    step = int(store.steps[int(rows[-1])])
                    report.images.setdefault(tag, []).append((run_id(run), step, mime, encoded))
        if "text" in kinds:
            text_tags = set(run.plugin_content.get("text", ()))
            store = run.tensors
            for tag, rows in _grouped(store, bounds):
                name = text_name(tag)
                if tag in text_tags and _wanted(name, tag_re):
                    last = [(int(store.steps[int(i)]), _text_of(store.values[int(i)]))
                            for i in rows[-TEXTS_PER_SERIES:]]
                    report.text.setdefault(name, []).append((run_id(run), last))
    if group_runs is not None and "scalars" in kinds:
        _add_groups(report, runs, group_runs, tag_re, max_points, bounds)
    if "hparams" in kinds:
        report.hparams = hparams_rows(runs)
        for row in report.hparams:
            if row["run"] not in index:
                index[row["run"]] = len(report.runs)
                report.runs.append(row["run"])
    return report


def _add_groups(report: ReportData, runs: list[RunData], groups: str | dict[str, list[str]], tag_re,
                max_points: int, bounds) -> None:
    """A series per group of two or more runs and scalar tag: the mean at the steps all members have,
    with mean ± std (ddof=1) as its band, as `tensorboard --group_runs` (a regex) or `--over` (the
    groups given) serves it."""
    from tensorboard.stats.grouping import group_runs
    from tensorboard.stats.reduction import reduce_runs

    by_name = {run.name: run for run in runs}
    if isinstance(groups, str):
        groups = group_runs(list(by_name), groups, "--group_runs")
    for group, members in groups.items():
        if len(members) < 2:
            continue
        try:
            frame = reduce_runs([by_name[name] for name in members], ("mean", "std"), lax_steps=True, lax_tags=True)
        except ValueError:  # no scalars in this group
            continue
        name = f"{group} (mean)"
        for tag, rows in frame.groupby("tag", sort=False):
            rows = rows[(rows["n_runs"] == len(members))]
            steps = rows["step"].to_numpy(np.int64)
            keep = _within(np.arange(len(steps)), steps, bounds)
            if not _wanted(tag, tag_re) or not len(keep):
                continue
            keep = keep[even_indices(len(keep), max_points)]
            mean, std = rows["mean"].to_numpy()[keep], rows["std"].to_numpy()[keep]
            if name not in report.runs:
                report.runs.append(name)
            report.scalars.setdefault(tag, []).append(
                Series(report.runs.index(name), steps[keep], mean, len(steps), (mean - std, mean + std)))
