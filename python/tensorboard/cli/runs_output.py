"""`tensorboard runs ls`'s output: the rows (`logdir.run_table.RunRow`) as an aligned table, CSV or
JSON. Times are UTC (ISO 8601), sizes bytes (the table shows them as KiB, MiB, ...)."""
from __future__ import annotations

import csv
import json
import math
from datetime import datetime, timezone
from typing import TextIO

from tensorboard.logdir.run_table import RunRow, varying_keys

FIXED = ("first_step", "last_step", "last_write", "size", "active")


def human_size(size: int) -> str:
    """Bytes as the table shows them: 512 B, 1.5 KiB, 3.2 MiB ..."""
    value, unit = float(size), "B"
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if value < 1024 or unit == "TiB":
            break
        value /= 1024
    return f"{int(value)} B" if unit == "B" else f"{value:.1f} {unit}"


def utc(seconds: float | None) -> str:
    """Seconds since the epoch as `2026-11-28T19:20:01Z`; "" for None."""
    if seconds is None:
        return ""
    return datetime.fromtimestamp(seconds, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _sort_key(row: RunRow, column: str, groups):
    if column == "run":
        return row.run
    if column == "group" and groups is not None:
        return groups.get(row.run)
    if column in FIXED:
        return getattr(row, column if column != "size" else "size")
    if column in row.metrics:
        value = row.metrics[column]
        return None if value is None or math.isnan(value) else value
    hparam = row.hparams.get(column)
    return None if hparam is None else hparam.value


def sort_rows(rows: list[RunRow], sort: str | None, groups=None) -> list[RunRow]:
    """Rows sorted by a column ('-' first: descending); rows lacking it last, values of mixed types by type."""
    if not sort:
        return rows
    descending, column = sort.startswith("-"), sort.lstrip("-")
    known = {"run", "group", *FIXED} | {key for row in rows for key in (*row.hparams, *row.metrics)}
    if column not in known:
        raise ValueError(f"--sort {sort!r}: no such column; choose from {', '.join(sorted(known))}")
    present = [row for row in rows if _sort_key(row, column, groups) is not None]
    missing = [row for row in rows if _sort_key(row, column, groups) is None]
    present.sort(key=lambda row: (type(_sort_key(row, column, groups)).__name__ == "str",
                                  _sort_key(row, column, groups)), reverse=descending)
    return present + missing


def _plain(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return value


def _columns(rows: list[RunRow], args, groups) -> tuple[list[str], list[str], list[str]]:
    every = args.all_hparams or len(rows) < 2  # one run: nothing varies, so all of its hparams are shown
    keys = sorted({key for row in rows for key in row.hparams}) if every else varying_keys(rows)
    metrics = list(dict.fromkeys(tag for row in rows for tag in row.metrics))
    head = ["run"] + (["group"] if groups is not None else [])
    return head, keys, metrics


def table_cells(rows: list[RunRow], args, groups, for_table: bool) -> tuple[list[str], list[list]]:
    """(header, cells) shared by the table and CSV."""
    head, keys, metrics = _columns(rows, args, groups)
    header = head + keys + list(FIXED) + metrics
    if args.sources:
        header = head + [name for key in keys for name in (key, f"{key} source")] + list(FIXED) + metrics
    cells = []
    for row in rows:
        line = [row.run] + ([groups.get(row.run, "")] if groups is not None else [])
        for key in keys:
            hparam = row.hparams.get(key)
            line.append(_plain(hparam.value) if hparam is not None else "")
            if args.sources:
                line.append(hparam.source if hparam is not None else "")
        line += [_plain(row.first_step), _plain(row.last_step), utc(row.last_write),
                 human_size(row.size) if for_table else row.size,
                 ("yes" if row.active else "") if for_table else ("true" if row.active else "false")]
        line += [_plain(row.metrics.get(tag)) for tag in metrics]
        cells.append(line)
    return header, cells


def write(rows: list[RunRow], args, groups, out: TextIO) -> None:
    """Writes the rows in `args.format`, sorted by `args.sort`."""
    rows = sort_rows(rows, args.sort, groups)
    if args.format == "json":
        out.write(json.dumps([_json_row(row, groups) for row in rows], indent=1) + "\n")
        return
    header, cells = table_cells(rows, args, groups, args.format == "table")
    if args.format == "csv":
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(cells)
        return
    texts = [[str(cell) for cell in line] for line in [header] + cells]
    widths = [max(len(line[i]) for line in texts) for i in range(len(header))]
    for line in texts:
        out.write("  ".join(cell.ljust(width) for cell, width in zip(line, widths)).rstrip() + "\n")


def _json_row(row: RunRow, groups) -> dict:
    out = {"run": row.run}
    if groups is not None:
        out["group"] = groups.get(row.run)
    out["hparams"] = {key: {"value": h.value, "source": h.source, "origin": h.origin} for key, h in row.hparams.items()}
    out.update(first_step=row.first_step, last_step=row.last_step, last_write=utc(row.last_write), size=row.size,
               active=row.active, metrics={tag: (None if value is None or math.isnan(value) else value)
                                           for tag, value in row.metrics.items()})
    return out
