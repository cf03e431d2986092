"""The report's HTML: the extracted data as compact JSON (float32 values in base64, arithmetic step
ranges as three numbers) inside one page with uPlot and the page's script and style inlined.
A Content-Security-Policy forbids every outside load."""
from __future__ import annotations

import base64
import html
import json
import os

import numpy as np

from tensorboard.report.extract import ReportData, Series

HERE = os.path.dirname(os.path.abspath(__file__))
CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'none'")


def _asset(*parts: str) -> str:
    with open(os.path.join(HERE, *parts), encoding="utf-8") as f:
        return f.read()


def uplot_version() -> str:
    return _asset("vendor", "VERSION").split()[0]


def encode_steps(steps: np.ndarray):
    """[start, stride, count] for an arithmetic progression, else the steps as float64 base64."""
    steps = np.asarray(steps, np.int64)
    if len(steps) == 0:
        return [0, 1, 0]
    stride = int(steps[1] - steps[0]) if len(steps) > 1 else 1
    if np.array_equal(steps, steps[0] + stride * np.arange(len(steps), dtype=np.int64)):
        return [int(steps[0]), stride, len(steps)]
    return base64.b64encode(steps.astype("<f8").tobytes()).decode("ascii")


def encode_values(values: np.ndarray) -> str:
    """float32 little-endian in base64 (scalars are logged as float32, so nothing is lost for them)."""
    return base64.b64encode(np.ascontiguousarray(values, dtype="<f4").tobytes()).decode("ascii")


def encode_walls(walls: np.ndarray) -> dict:
    """Wall times as the first one (float64 seconds, exact in JSON) and each one's offset from it as
    float32 in base64: 4 bytes a point, to the millisecond for a run of up to a day or so (float32
    keeps 24 bits: 1 ms at 2 h, 8 ms at 1 day, 0.25 s at a month)."""
    walls = np.asarray(walls, np.float64)
    start = float(walls[0]) if len(walls) else 0.0
    return {"start": start, "offsets": encode_values(walls - start)}


WALL_TOLERANCE_S = 1e-3  # wall times this close are stored once; float32 offsets are as coarse past ~2 h


class WallTable:
    """The page's wall-time arrays, each stored once: a series shares the entry of an earlier series of
    the same run at the same steps whose wall times are all within WALL_TOLERANCE_S of its own. A run
    logs its tags at one step within microseconds of each other, so a run's clock is stored once, not
    once per tag (the page would otherwise double in size)."""

    def __init__(self) -> None:
        self.entries: list[dict] = []
        self._known: dict[tuple[int, bytes], list[tuple[int, np.ndarray]]] = {}

    def index(self, run: int, steps: np.ndarray, walls: np.ndarray) -> int:
        """The entry holding `walls` (of `run` at `steps`), added if none is close enough."""
        walls = np.asarray(walls, np.float64)
        candidates = self._known.setdefault((run, np.asarray(steps, np.int64).tobytes()), [])
        for entry, known in candidates:
            if np.max(np.abs(known - walls), initial=0.0) <= WALL_TOLERANCE_S:
                return entry
        self.entries.append(encode_walls(walls))
        candidates.append((len(self.entries) - 1, walls))
        return len(self.entries) - 1


def _series(items: list[Series], walls: WallTable) -> list[dict]:
    return [{"run": s.run, "steps": encode_steps(s.steps), "values": encode_values(s.values), "total": s.total,
             **({} if s.band is None else {"lower": encode_values(s.band[0]), "upper": encode_values(s.band[1])}),
             **({} if s.walls is None else {"walls": walls.index(s.run, s.steps, s.walls)})}
            for s in items]


def _plain(value):
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def payload(report: ReportData, title: str, max_points: int) -> dict:
    """The JSON the page's script reads."""
    walls = WallTable()
    return {
        "title": title, "maxPoints": max_points, "runs": report.runs,
        "scalars": [{"tag": tag, "series": _series(items, walls)} for tag, items in report.scalars.items()],
        "distributions": [{"tag": tag, "series": _series(items, walls)}
                          for tag, items in report.distributions.items()],
        "walls": walls.entries,
        "images": [{"tag": tag, "items": [{"run": run, "step": step,
                                           "src": f"data:{mime};base64," + base64.b64encode(data).decode("ascii")}
                                          for run, step, mime, data in items]}
                   for tag, items in report.images.items()],
        "text": [{"tag": tag, "items": [{"run": run, "texts": [[step, text] for step, text in texts]}
                                        for run, texts in items]}
                 for tag, items in report.text.items()],
        "hparams": [{"run": row["run"], "hparams": {k: _plain(v) for k, v in row["hparams"].items()},
                     "metrics": {k: _plain(v) for k, v in row["metrics"].items()}} for row in report.hparams],
    }


def _script_json(data: dict) -> str:
    """JSON safe inside <script>: no '</' or '<!--' can end or alter the element."""
    text = json.dumps(data, separators=(",", ":"), allow_nan=False, ensure_ascii=False)
    return text.replace("<", "\\u003c").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def render(report: ReportData, title: str, max_points: int) -> str:
    """The whole page as one string."""
    return "".join([
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">",
        f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">",
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
        f"<meta name=\"generator\" content=\"tensorboard export (uPlot {html.escape(uplot_version())})\">",
        f"<title>{html.escape(title)}</title>\n<style>", _asset("vendor", "uPlot.min.css"), "</style>\n<style>",
        _asset("assets", "page.css"), "</style></head>\n<body><div id=\"report\"></div>\n",
        "<script type=\"application/json\" id=\"report-data\">", _script_json(payload(report, title, max_points)),
        "</script>\n<script>", _asset("vendor", "uPlot.iife.min.js").replace("</script", "<\\/script"),
        "</script>\n<script>",
        _asset("assets", "page.js"), "</script>\n</body></html>\n",
    ])
