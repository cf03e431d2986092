"""Formatting shared by the benchmark page's sections (bench/write_page.py, bench/page_scale.py)."""
from __future__ import annotations

import os
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import render_markdown  # noqa: E402


def table(head: list[str], rows: list[list[Any]]) -> str:
    return render_markdown(head, rows)


def fmt(value: float | None, digits: int = 3, unit: str = "") -> str:
    return "–" if value is None else f"{value:.{digits}g}{unit}"


def with_each(cell: str, values: list[float] | None) -> str:
    """A median's cell, then each measurement it was taken from when the result lists them."""
    return cell + ("; each " + ", ".join(fmt(v) for v in values) if values else "")


def ratio(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}×"


def yes_no(flag: bool | None) -> str:
    return "–" if flag is None else ("yes" if flag else "**no**")


def reps_text(extra: dict) -> str:
    args = extra.get("args") or []
    reps = args[args.index("--reps") + 1] if "--reps" in args else "3"
    return f"median of {reps} fresh processes"


def has_result(extra: dict | None) -> bool:
    """Whether an extra benchmark printed its result (a script exits 1 with a result when a goal is missed)."""
    return bool(extra) and any(key not in ("wall_s", "args", "error") for key in extra)


def not_run(extra: dict | None) -> str:
    if extra and extra.get("error"):
        return f"this run failed: `{extra['error']}`."
    return "Not part of this run (`bench/run.py --no-extras`)."
