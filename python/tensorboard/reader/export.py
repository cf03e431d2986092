"""`tensorboard export --logdir DIR --out FILE`: a logdir's data as one flat table in .csv, .parquet,
.json or .jsonl (chosen by the suffix). Also `python -m tensorboard.reader.export` (tables only).
`--partition run --out DIR` writes a Hive-partitioned Parquet dataset instead, run by run.

An existing FILE is kept unless --force; the table is written to a temporary file beside it and
renamed into place, so an interrupted export leaves no partial file."""
from __future__ import annotations

import argparse
import json
import math
import sys
import time

from tensorboard.logdir import TOP_RUN, Selection, iter_runs, read_runs
from tensorboard.logdir.arguments import (
    add_experiment_arguments,
    add_reading_arguments,
    add_writing_arguments,
    check_reading_arguments,
    smoothing_weight,
)
from tensorboard.logdir.output import check_out, plain_cell, write_atomically
from tensorboard.logdir.progress import Progress
from tensorboard.logdir.selection import CLI_FLAGS, parse_steps
from tensorboard.stats.smoothing import smoothed_column

KINDS = ("scalars", "histograms", "tensors", "text", "hparams")
FORMATS = (".csv", ".parquet", ".jsonl", ".json")
PARTITIONS = ("run",)
_HISTOGRAM_FIELDS = {"min", "max", "num", "sum", "sum_squares"}


def parser() -> argparse.ArgumentParser:
    """The options of `tensorboard export` for tables and datasets (an .html --out: `report.cli.parser`)."""
    p = argparse.ArgumentParser(prog="tensorboard export", description=__doc__.split("\n")[0],
                                epilog="An --out ending in .html writes the logdir as one self-contained HTML page "
                                       "instead (charts, distributions, images, text, hparams); see "
                                       "`tensorboard export --out page.html --help` for its options "
                                       "(--kind repeated, --max-points, --title).")
    add_reading_arguments(p)
    add_experiment_arguments(p)
    p.add_argument("--out", required=True,
                   help="output file; its suffix picks the format: " + ", ".join(FORMATS) + " (or .html: a page)")
    p.add_argument("--kind", default="scalars", choices=KINDS, help="which data to export (default: scalars)")
    p.add_argument("--smoothing", type=smoothing_weight, default=None, metavar="W",
                   help="add a `smoothed` column: TensorBoard's smoothing of each run's scalar tag at weight W "
                        "(0 to 1, as the UI's slider)")
    p.add_argument("--partition", default=None, choices=PARTITIONS,
                   help="write a Hive-partitioned Parquet dataset to the directory --out "
                        "(DIR/run=<name>/part-0.parquet), one run at a time")
    add_writing_arguments(p)
    return p


def _format(out: str) -> str:
    for suffix in FORMATS:
        if out.lower().endswith(suffix):
            return suffix
    if out.lower().endswith(".html"):
        raise ValueError(f"--out {out!r}: the HTML page is written by `tensorboard export` "
                         "(python -m tensorboard.cli.export); this module writes tables")
    raise ValueError(f"--out {out!r}: unknown suffix; use one of {', '.join(FORMATS)} (or .html: a page)")


def _selection(kind: str, runs, tags, steps, exclude, where=None, hparams_file=None) -> Selection:
    steps = parse_steps(steps) if isinstance(steps, str) else steps
    return Selection.of(runs, tags, steps, {kind}, flags=CLI_FLAGS, exclude=exclude, where=where,
                        hparams_file=hparams_file)


def _read(logdir: str, storage_options, skip_damaged: bool, progress, selection: Selection) -> list:
    """The runs `selection` wants; through `logdir.experiment` when its query needs their hparams."""
    if selection.needs_hparams:
        from tensorboard.logdir.experiment import read_experiment

        return read_experiment(logdir, storage_options, selection, skip_damaged, progress).runs
    return read_runs(logdir, storage_options, skip_damaged=skip_damaged, progress=progress, selection=selection)


def _check_smoothing(kind: str, smoothing) -> None:
    if smoothing is not None and kind != "scalars":
        raise ValueError(f"--smoothing smooths scalars, not {kind}")


def long_form(data: list, kind: str, smoothing: float | None = None):
    """The export layout of decoded runs: run, tag, step, wall_time, then the kind's value columns.

    Args:
        data: Runs as `tensorboard.reader.read_runs` returns them.
        kind: "scalars", "histograms", "tensors", "text" or "hparams".
        smoothing: A weight in [0, 1]: add scalars' `smoothed` column, TensorBoard's smoothing of
            each run's tag.

    Returns:
        A pandas DataFrame.
    """
    from tensorboard.reader._frames import build_frame

    extras = {"wall_time", "dir_name"} | (_HISTOGRAM_FIELDS if kind == "histograms" else set())
    frame = build_frame(data, kind, False, extras)
    if frame.empty:
        return frame
    frame = frame.rename(columns={"dir_name": "run"})
    frame["run"] = frame["run"].where(frame["run"] != "", TOP_RUN)  # tbparse's "" is the run "." here
    first = ["run", "tag", "step", "wall_time"]
    frame = frame[[c for c in first if c in frame.columns] + [c for c in frame.columns if c not in first]]
    if smoothing is not None:
        frame["smoothed"] = smoothed_column(frame, smoothing)
    return frame


def export_table(logdir: str, kind: str = "scalars", runs: str | None = None, tags: str | None = None,
                 skip_damaged: bool = False, progress=None, steps=None, storage_options: dict | None = None, *,
                 exclude: str | None = None, smoothing: float | None = None, where: str | None = None,
                 hparams_file: str | None = None):
    """The long-form DataFrame `tensorboard export` writes: run, tag, step, wall_time and the kind's
    value columns.

    Args:
        logdir: A logdir, local or an fsspec URL.
        kind: "scalars", "histograms", "tensors", "text" or "hparams".
        runs: A regex; only runs whose name it matches are read.
        tags: A regex; only tags it matches are kept.
        skip_damaged: Skip the rest of a corrupt file with a warning instead of raising.
        progress: Called as `progress(files_done, files_total, path)` after each file.
        steps: (lo, hi) or "LO:HI", both ends included.
        storage_options: fsspec options for a remote logdir.
        exclude: A regex; the runs it matches are left out.
        smoothing: A weight in [0, 1] that adds scalars' `smoothed` column.
        where: A query over hyperparameters (`--where`); only the runs it matches.
        hparams_file: A further configuration file to read hyperparameters from (`--hparams_file`).

    Returns:
        A pandas DataFrame.

    Raises:
        FileNotFoundError: `logdir` does not exist.
        ValueError: An invalid regex, step range or query, a query key no run has, or `smoothing` with
            a kind other than scalars.

    Examples:
        >>> frame = export_table("runs", "scalars", tags="^train/", steps="100:")
    """
    _check_smoothing(kind, smoothing)
    data = _read(logdir, storage_options, skip_damaged, progress,
                 _selection(kind, runs, tags, steps, exclude, where, hparams_file))
    return long_form(data, kind, smoothing)


GROUP_ROWS = 1 << 18  # rows per frame of a partitioned export: small runs share one frame, big ones come alone


def run_group_frames(logdir: str, kind: str = "scalars", runs: str | None = None, tags: str | None = None,
                     skip_damaged: bool = False, progress=None, steps=None, storage_options: dict | None = None, *,
                     exclude: str | None = None, smoothing: float | None = None, where: str | None = None,
                     hparams_file: str | None = None):
    """`export_table`'s rows a few runs at a time: long-form frames of consecutive runs holding up to
    GROUP_ROWS rows together (a bigger run alone), rows of each run contiguous.

    Args:
        logdir: As `export_table`'s, and so are the other arguments.
        kind: As `export_table`'s.
        runs: As `export_table`'s.
        tags: As `export_table`'s.
        skip_damaged: As `export_table`'s.
        progress: As `export_table`'s.
        steps: As `export_table`'s.
        storage_options: As `export_table`'s.
        exclude: As `export_table`'s.
        smoothing: As `export_table`'s.
        where: As `export_table`'s; with it, every run is read before the first frame (the query's
            keys are checked against all runs).
        hparams_file: As `export_table`'s.

    Returns:
        An iterator of pandas DataFrames.
    """
    _check_smoothing(kind, smoothing)
    group, held = [], 0
    selection = _selection(kind, runs, tags, steps, exclude, where, hparams_file)
    source = _read(logdir, storage_options, skip_damaged, progress, selection) if selection.needs_hparams else \
        iter_runs(logdir, storage_options, skip_damaged=skip_damaged, progress=progress, selection=selection)
    for data in source:
        rows = sum(len(store) for store in data.stores()) + len(data.session_starts)
        if group and held + rows > GROUP_ROWS:
            yield long_form(group, kind, smoothing)
            group, held = [], 0
        group.append(data)
        held += rows
    if group:
        yield long_form(group, kind, smoothing)


def write_table(frame, out: str, force: bool = True) -> None:
    """Writes `frame` to `out` in the format its suffix names, through a temporary file in the same
    directory renamed into place at the end.

    Args:
        frame: A pandas DataFrame.
        out: The file: .csv, .parquet, .jsonl or .json.
        force: Replace an existing `out`. False (the CLI's default, without --force): an existing
            `out` is a FileExistsError, checked again at the rename.

    Raises:
        ValueError: Another suffix.
        FileExistsError: `out` exists and `force` is False.
        IsADirectoryError: `out` is a directory.
        ImportError: Parquet without pyarrow.
    """
    fmt = _format(out)
    check_out(out, force)
    frame = frame.copy()
    for column in frame.columns:
        if frame[column].dtype == object:
            frame[column] = frame[column].map(plain_cell)
    if fmt == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError as err:
            raise ImportError("Parquet export needs pyarrow: pip install pandas pyarrow pillow "
                              "(the wheel's [data] extra)") from err
    write_atomically(out, force, lambda tmp: _write_format(frame, fmt, tmp))


def _write_format(frame, fmt: str, path: str) -> None:
    if fmt == ".parquet":
        frame.to_parquet(path, index=False)
    elif fmt == ".csv":
        for column in frame.columns:  # lists as JSON text, so the CSV round-trips
            if frame[column].map(lambda v: isinstance(v, (list, dict))).any():
                frame[column] = frame[column].map(lambda v: json.dumps(v) if isinstance(v, (list, dict)) else v)
        frame.to_csv(path, index=False)
    else:
        rows = _json_rows(frame)
        text = "".join(row + "\n" for row in rows) if fmt == ".jsonl" else "[" + ",".join(rows) + "]"
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def _json_rows(frame) -> list[str]:
    """Each row as a JSON object, floats in full (the shortest text that reads back the same float;
    pandas' to_json rounds to 10 decimals, so 1e-12 became 0.0). NaN and ±inf, which JSON cannot
    hold, are written as null with a warning; bytes as text (`_text_of_bytes`)."""
    rows, nulled = [], 0
    for record in frame.to_dict("records"):
        try:
            rows.append(json.dumps(record, allow_nan=False, default=_text_of_bytes))
        except ValueError:  # a NaN or infinity somewhere in the record
            record, count = _finite_or_null(record)
            nulled += count
            rows.append(json.dumps(record, allow_nan=False, default=_text_of_bytes))
    if nulled:
        import warnings

        warnings.warn(f"{nulled} NaN or infinite values are written as null (JSON has no such numbers); "
                      "export to .csv or .parquet to keep them", stacklevel=3)
    return rows


def _text_of_bytes(value):
    """Bytes (string tensors) as JSON text: UTF-8 as is, other bytes as \\xNN escapes."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    raise TypeError(f"cannot write {type(value).__name__} as JSON")


def _finite_or_null(value):
    """(`value` with every non-finite float in it replaced by None, how many were replaced)."""
    if isinstance(value, float):
        return (value, 0) if math.isfinite(value) else (None, 1)
    if isinstance(value, dict):
        pairs = [(key, *_finite_or_null(item)) for key, item in value.items()]
        return {key: item for key, item, _ in pairs}, sum(count for *_, count in pairs)
    if isinstance(value, list):
        pairs = [_finite_or_null(item) for item in value]
        return [item for item, _ in pairs], sum(count for _, count in pairs)
    return value, 0


def main(argv: list[str] | None = None) -> int:
    """`tensorboard export` to a table or a dataset.

    Args:
        argv: The command line's arguments; None: `sys.argv[1:]`.

    Returns:
        The exit status: 0 done, 1 reading or writing failed, 2 invalid arguments.
    """
    args = parser().parse_args(argv)
    try:
        check_reading_arguments(args)
        _check_smoothing(args.kind, args.smoothing)
        if args.partition:
            from tensorboard.reader._partitioned import check_out_dir
            check_out_dir(args.out, args.force)
            import pyarrow  # noqa: F401
        else:
            _format(args.out)
            check_out(args.out, args.force)  # before reading the logdir: fail fast
        import pandas  # noqa: F401
    except ImportError:
        print("tensorboard export: needs pandas: pip install pandas pyarrow pillow (the wheel's [data] extra)",
              file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        print(f"tensorboard export: {err}", file=sys.stderr)
        return 2
    started = time.monotonic()
    progress = Progress(quiet=args.quiet)
    try:
        if args.partition:
            from tensorboard.reader._partitioned import write_partitioned
            frames = run_group_frames(args.logdir, args.kind, args.runs, args.tags, args.skip_damaged, progress,
                                      args.steps, exclude=args.exclude, smoothing=args.smoothing, where=args.where,
                                      hparams_file=args.hparams_file)
            written, rows = write_partitioned(frames, args.out, args.force)
            what = f"{rows} rows of {args.kind} from {written} runs"
        else:
            frame = export_table(args.logdir, args.kind, args.runs, args.tags, args.skip_damaged, progress, args.steps,
                                 exclude=args.exclude, smoothing=args.smoothing, where=args.where,
                                 hparams_file=args.hparams_file)
            write_table(frame, args.out, args.force)
            what = f"{len(frame)} rows of {args.kind}"
    except (OSError, ValueError, ImportError) as err:
        progress.close()
        print(f"tensorboard export: {err}", file=sys.stderr)
        return 1
    progress.close()
    if not args.quiet:
        print(f"tensorboard export: wrote {what} to {args.out} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
