"""What a figure is asked for, checked once for the API and the command line: every bad value is a
ValueError naming its argument, before anything is read."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal, get_args

from tensorboard.logdir.grouping import check_one_grouping
from tensorboard.logdir.selection import compile_pattern

Kind = Literal["scalars", "histogram", "distribution"]
Band = Literal["std", "minmax"]
HistogramMode = Literal["offset", "overlay"]
TimeAxis = Literal["step", "relative", "wall"]  # or any other string: a scalar tag joined on step
KINDS: tuple[Kind, ...] = get_args(Kind)
BANDS: tuple[Band, ...] = get_args(Band)
HISTOGRAM_MODES: tuple[HistogramMode, ...] = get_args(HistogramMode)
TIME_AXES: tuple[TimeAxis, ...] = get_args(TimeAxis)
DEFAULT_MAX_POINTS = 2000  # per drawn line: about one point per pixel column at 300 dpi


@dataclass(frozen=True)
class PlotOptions:
    """How the data becomes panels: smoothing weight, seed groups and their band, the x axis, log axes,
    the kind of chart and how many points a line keeps at most (every extremum among them)."""

    kind: Kind = "scalars"
    smoothing: float = 0.0
    group_runs: str | None = None
    band: Band = "std"
    x: str = "step"
    logx: bool = False
    logy: bool = False
    histogram_mode: HistogramMode = "offset"
    max_points: int = DEFAULT_MAX_POINTS
    over: tuple[str, ...] = ()  # hyperparameters the runs of one configuration differ in (logdir.grouping)

    @property
    def grouped(self) -> bool:
        """Whether runs are drawn as groups (by name, `group_runs`, or by configuration, `over`)."""
        return self.group_runs is not None or bool(self.over)

    def __post_init__(self) -> None:
        _choice("kind", self.kind, KINDS)
        _choice("band", self.band, BANDS)
        _choice("histogram_mode", self.histogram_mode, HISTOGRAM_MODES)
        if isinstance(self.smoothing, bool) or not isinstance(self.smoothing, (int, float)) \
                or math.isnan(self.smoothing) or not 0.0 <= self.smoothing <= 1.0:
            raise ValueError(f"smoothing {self.smoothing!r}: expected a number from 0 to 1")
        if self.smoothing and self.kind != "scalars":
            raise ValueError(f"smoothing smooths scalars, not a {self.kind} chart")
        compile_pattern("group_runs", self.group_runs)
        if self.group_runs is not None and self.kind != "scalars":
            raise ValueError(f"group_runs groups scalars, not a {self.kind} chart")
        if self.over and self.kind != "scalars":
            raise ValueError(f"over groups scalars, not a {self.kind} chart")
        check_one_grouping(self.group_runs, self.over, "group_runs", "over")
        if not isinstance(self.x, str) or not self.x:
            raise ValueError(f"x {self.x!r}: expected step, relative, wall or a scalar tag")
        if self.x != "step" and self.kind != "scalars":
            raise ValueError(f"x {self.x!r}: a {self.kind} chart is drawn over steps")
        if self.grouped and self.x in ("relative", "wall"):
            raise ValueError(f"x {self.x!r}: a group's mean has no time of its own; use step or a scalar tag")
        if self.logx and self.x == "wall":
            raise ValueError("logx: wall time has no log axis; use x relative")
        if isinstance(self.max_points, bool) or not isinstance(self.max_points, int) or self.max_points < 4:
            raise ValueError(f"max_points {self.max_points!r}: expected an int of at least 4")

    @property
    def x_tag(self) -> str | None:
        """The scalar tag the x axis shows, or None for step, relative or wall time."""
        return None if self.x in TIME_AXES else self.x

    def reading_tags(self, tags: str | None) -> str | None:
        """The tag regex to read with: `tags`, widened to let the x axis's tag through."""
        compile_pattern("tags", tags)
        if tags is None or self.x_tag is None:
            return tags
        return f"(?:{tags})|^{re.escape(self.x_tag)}$"


def _choice(name: str, value, choices: tuple) -> None:
    if value not in choices:
        raise ValueError(f"{name} {value!r}: choose from {', '.join(choices)}")


def parse_size(text: str | tuple | None, flag: str = "size") -> tuple[float, float] | None:
    """A figure size in inches from 'W,H' or (W, H); None: the default size."""
    if text is None:
        return None
    try:
        parts = [float(p) for p in text.split(",")] if isinstance(text, str) else [float(p) for p in text]
    except (TypeError, ValueError):
        parts = []
    if len(parts) != 2 or not all(math.isfinite(p) and 0 < p <= 200 for p in parts):
        raise ValueError(f"{flag} {text!r}: expected W,H in inches, two positive numbers (at most 200)")
    return parts[0], parts[1]
