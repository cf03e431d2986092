"""`tensorboard export --logdir DIR --out FILE`: a logdir's data as one flat table in .csv, .parquet,
.json or .jsonl (chosen by the suffix). Also `python -m tensorboard.reader.export`.

An existing FILE is kept unless --force; the table is written to a temporary file beside it and
renamed into place, so an interrupted export leaves no partial file."""
from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import tempfile
import time

KINDS = ("scalars", "histograms", "tensors", "text", "hparams")
FORMATS = (".csv", ".parquet", ".jsonl", ".json")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tensorboard export", description=__doc__.split("\n")[0])
    parser.add_argument("--logdir", required=True, help="directory, event file or fsspec URL (s3://...)")
    parser.add_argument("--out", required=True, help="output file; its suffix picks the format: " + ", ".join(FORMATS))
    parser.add_argument("--kind", default="scalars", choices=KINDS, help="which data to export (default: scalars)")
    parser.add_argument("--runs", default=None, help="regex: only runs whose name (relative directory) matches")
    parser.add_argument("--tags", default=None, help="regex: only tags that match")
    parser.add_argument("--skip-damaged", action="store_true",
                        help="keep what precedes damage in a corrupt file (warns) instead of failing")
    parser.add_argument("--force", action="store_true", help="replace --out if it exists (default: refuse)")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parser


def _format(out: str) -> str:
    for suffix in FORMATS:
        if out.lower().endswith(suffix):
            return suffix
    raise ValueError(f"--out {out!r}: unknown suffix; use one of {', '.join(FORMATS)}")


def _compile(flag: str, pattern: str | None):
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as err:
        raise ValueError(f"{flag} {pattern!r} is not a valid regex: {err}") from None


def export_table(logdir: str, kind: str = "scalars", runs: str | None = None, tags: str | None = None,
                 skip_damaged: bool = False, progress=None):
    """The long-form DataFrame `export` writes: run, tag, step, wall_time and the kind's value columns."""
    from tensorboard.reader._frames import build_frame
    from tensorboard.reader._runs import read_runs

    run_re, tag_re = _compile("--runs", runs), _compile("--tags", tags)
    data = read_runs(logdir, skip_damaged=skip_damaged, progress=progress,
                     run_filter=None if run_re is None else (lambda name: bool(run_re.search(name))))
    extras = {"wall_time", "dir_name"} | ({"min", "max", "num", "sum", "sum_squares"} if kind == "histograms" else set())
    frame = build_frame(data, kind, False, extras)
    if frame.empty:
        return frame
    frame = frame.rename(columns={"dir_name": "run"})
    if tag_re is not None:
        frame = frame[frame["tag"].map(lambda t: bool(tag_re.search(t)))].reset_index(drop=True)
    first = ["run", "tag", "step", "wall_time"]
    return frame[[c for c in first if c in frame.columns] + [c for c in frame.columns if c not in first]]


def _plain(value):
    """Cells JSON/CSV/Parquet can hold: arrays become (nested) lists."""
    tolist = getattr(value, "tolist", None)
    return tolist() if tolist is not None and not isinstance(value, (str, bytes)) else value


def write_table(frame, out: str, force: bool = True) -> None:
    """Writes `frame` to `out` in the format its suffix names: through a temporary file in the same
    directory, renamed into place at the end. With `force` False (the CLI's default, without --force),
    an existing `out` is a FileExistsError, checked again at the rename."""
    fmt = _format(out)
    check_out(out, force)
    frame = frame.copy()
    for column in frame.columns:
        if frame[column].dtype == object:
            frame[column] = frame[column].map(_plain)
    if fmt == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError as err:
            raise ImportError("Parquet export needs pyarrow: pip install pandas pyarrow pillow (the wheel's [data] extra)") from err
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(out)), prefix=".tmp-",
                               suffix="-" + os.path.basename(out))
    os.close(fd)
    try:
        _write_format(frame, fmt, tmp)
        os.chmod(tmp, 0o644)
        _move_into_place(tmp, out, force)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def check_out(out: str, force: bool) -> None:
    """Raises FileExistsError for an existing `out` unless `force` (a directory is refused even then)."""
    if os.path.isdir(out):
        raise IsADirectoryError(f"--out {out!r} is a directory")
    if os.path.lexists(out) and not force:
        raise FileExistsError(f"--out {out!r} exists; pass --force to replace it")


def _move_into_place(tmp: str, out: str, force: bool) -> None:
    """Renames `tmp` to `out`; without `force`, never over a file that appeared meanwhile (a hard link
    fails if `out` exists; where links are unsupported, a last check before the rename)."""
    if force:
        os.replace(tmp, out)
        return
    try:
        os.link(tmp, out)
    except FileExistsError:
        raise FileExistsError(f"--out {out!r} exists; pass --force to replace it") from None
    except OSError:
        check_out(out, force)
        os.replace(tmp, out)
    else:
        os.unlink(tmp)


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
    args = _parser().parse_args(argv)
    try:
        _format(args.out)
        check_out(args.out, args.force)  # before reading the logdir: fail fast
        import pandas  # noqa: F401
    except ImportError:
        print("tensorboard export: needs pandas: pip install pandas pyarrow pillow (the wheel's [data] extra)", file=sys.stderr)
        return 2
    except (ValueError, OSError) as err:
        print(f"tensorboard export: {err}", file=sys.stderr)
        return 2
    started = time.monotonic()
    last = [started]

    def progress(done: int, total: int, path: str) -> None:
        now = time.monotonic()
        if not args.quiet and (now - last[0] > 1.0 or (done == total and now - started > 1.0)):
            last[0] = now
            print(f"tensorboard export: read {done}/{total} files ({now - started:.1f} s) {path}", file=sys.stderr)

    try:
        frame = export_table(args.logdir, args.kind, args.runs, args.tags, args.skip_damaged, progress)
        write_table(frame, args.out, args.force)
    except (OSError, ValueError, ImportError) as err:
        print(f"tensorboard export: {err}", file=sys.stderr)
        return 1
    if not args.quiet:
        print(f"tensorboard export: wrote {len(frame)} rows of {args.kind} to {args.out} "
              f"({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
