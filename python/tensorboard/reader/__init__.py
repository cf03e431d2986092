"""Reading logs back: event-by-event (`read_events`, `read_logdir`), as dicts (`read_scalars`) or as
pandas DataFrames in tbparse's layouts (`SummaryReader`), or a dask DataFrame (`to_dask`). pandas is
imported only for DataFrames; object stores are read many files at once.

Every record's CRCs are checked; a truncated tail is skipped with a TruncatedTailWarning;
corruption raises CorruptEventFileError naming the file and byte offset.
"""
from tensorboard.events.record import CorruptEventFileError, DamagedFileWarning, TruncatedTailWarning
from tensorboard.reader._events import (
    EventFileReader,
    LoggedEvent,
    discover,
    is_event_file,
    read_events,
    read_logdir,
    read_runs,
    read_scalars,
)
from tensorboard.reader._summary_reader import SummaryReader


def to_dask(logdir, kind: str = "scalars", storage_options: dict | None = None, runs: str | None = None,
            tags: str | None = None, steps=None, partition_bytes: int | None = None,
            partition_runs: int | None = None):
    """A dask DataFrame of `kind` below `logdir`, one partition per group of runs, read by dask's
    workers (see tensorboard.reader._dask.to_dask; needs the [dask] extra)."""
    from tensorboard.reader import _dask

    return _dask.to_dask(logdir, kind, storage_options, runs, tags, steps,
                         _dask.DEFAULT_PARTITION_BYTES if partition_bytes is None else partition_bytes,
                         _dask.DEFAULT_PARTITION_RUNS if partition_runs is None else partition_runs)

__all__ = ["CorruptEventFileError", "DamagedFileWarning", "EventFileReader", "LoggedEvent", "SummaryReader",
           "TruncatedTailWarning", "discover", "is_event_file", "read_events", "read_logdir", "read_runs",
           "read_scalars", "to_dask"]
