"""`tensorboard export --partition run`: a Hive-partitioned Parquet dataset, `DIR/run=<name>/part-0.parquet`,
written a few runs at a time (export.GROUP_ROWS rows, or one bigger run), so memory is bounded by the
largest run, not the sweep. Run names are
percent-encoded (Hive's convention, which pyarrow and DuckDB decode), so every name round-trips.
The dataset is built in a temporary directory beside DIR and renamed into place when complete."""
from __future__ import annotations

import os
from typing import Callable, Iterable, Iterator
from urllib.parse import quote

from tensorboard.logdir.output import plain_cell, write_directory_atomically

PARTITION_COLUMN = "run"
PART_NAME = "part-0.parquet"
_SAFE = "-_.~+!$'(),;@"  # kept as they are; '/', '=', '%', spaces, ':' and non-ASCII are encoded


_HIVE_NULL = "__HIVE_DEFAULT_PARTITION__"  # the directory name Hive readers take for a null value


def encode_run(name: str) -> str:
    """The directory name of run `name`'s partition: 'run=' + its name, percent-encoded as UTF-8."""
    if name == _HIVE_NULL:
        raise ValueError(f"run {name!r}: Hive readers (pyarrow, DuckDB) read this name as a null run; "
                         "rename the directory or export to one file")
    encoded = quote(name, safe=_SAFE)
    if encoded.lower() == "null":  # DuckDB before 2.0 reads a bare null as a null run: encode its first letter
        encoded = f"%{ord(encoded[0]):02X}{encoded[1:]}"
    return f"{PARTITION_COLUMN}={encoded}"


def table_of(frame):
    """The Arrow table of a long-form frame (cells holding arrays become lists)."""
    import pyarrow as pa

    frame = frame.copy(deep=False)
    for column in frame.columns:
        if frame[column].dtype == object:
            frame[column] = frame[column].map(plain_cell)
    return pa.Table.from_pandas(frame, preserve_index=False)


def split_runs(table) -> Iterator[tuple[str, object]]:
    """(run name, its rows without the run column) for each run of `table`, whose runs are contiguous."""
    import numpy as np

    names = table.column(PARTITION_COLUMN).combine_chunks().dictionary_encode()
    codes = names.indices.to_numpy(zero_copy_only=False)
    cuts = [0, *(np.flatnonzero(codes[1:] != codes[:-1]) + 1).tolist(), len(codes)]
    rest = table.drop_columns([PARTITION_COLUMN])
    dictionary = names.dictionary.to_pylist()
    for lo, hi in zip(cuts, cuts[1:]):
        if hi > lo:
            yield dictionary[codes[lo]], rest.slice(lo, hi - lo)


def check_out_dir(out: str, force: bool) -> None:
    """Refuses an existing `out` unless `force` and it holds only a partitioned dataset (run=... entries)."""
    if os.path.isfile(out) or (os.path.lexists(out) and not os.path.isdir(out)):
        raise FileExistsError(f"--out {out!r} is a file; --partition writes a directory")
    if os.path.isdir(out) and os.listdir(out):
        if not force:
            raise FileExistsError(f"--out {out!r} exists; pass --force to replace it")
        strangers = [name for name in os.listdir(out) if not name.startswith(PARTITION_COLUMN + "=")]
        if strangers:
            raise FileExistsError(f"--out {out!r} holds {strangers[0]!r}, which is not a partition of an export; "
                                  "refusing to replace it even with --force")


def write_partitioned(frames: Iterable, out: str, force: bool = False,
                      on_run: Callable[[str, int], None] | None = None) -> tuple[int, int]:
    """Writes the runs of each long-form frame of `frames` (a `run` column, each run's rows contiguous
    and in one frame) as `out/run=<encoded name>/part-0.parquet`; returns (runs written, rows). Every
    part gets the first part's schema (a part that cannot be cast to it is a ValueError naming the run).
    `on_run(name, rows so far)` after each run."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    check_out_dir(out, force)

    def fill(tmp: str) -> tuple[int, int]:
        schema = None
        runs = rows = 0
        for frame in frames:
            if frame is None or frame.empty:
                continue
            table = table_of(frame)
            del frame
            for name, part in split_runs(table):
                if schema is None:
                    schema = part.schema
                elif not part.schema.equals(schema):
                    try:
                        part = part.cast(schema)
                    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, ValueError) as err:
                        raise ValueError(f"run {name!r}: its columns {part.schema.types} do not match the "
                                         f"earlier runs' {schema.types} ({err}); export this kind to one file "
                                         "instead") from None
                directory = os.path.join(tmp, encode_run(name))
                os.makedirs(directory)
                pq.write_table(part, os.path.join(directory, PART_NAME))
                runs += 1
                rows += part.num_rows
                if on_run is not None:
                    on_run(name, rows)
            del table
        return runs, rows

    return write_directory_atomically(out, fill)

