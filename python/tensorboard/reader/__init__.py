"""Reading logs back: event-by-event (`read_events`, `read_logdir`), as dicts (`read_scalars`) or as
pandas DataFrames in tbparse's layouts (`SummaryReader`). pandas is imported only for DataFrames.

Every record's CRCs are checked; a truncated tail is skipped with a TruncatedTailWarning;
corruption raises CorruptEventFileError naming the file and byte offset.
"""
from tensorboard.reader._runs import (EventFileReader, LoggedEvent, discover, is_event_file, read_events,
                                      read_logdir, read_runs, read_scalars)
from tensorboard.reader._scan import CorruptEventFileError, DamagedFileWarning, TruncatedTailWarning
from tensorboard.reader._summary_reader import SummaryReader

__all__ = ["CorruptEventFileError", "DamagedFileWarning", "EventFileReader", "LoggedEvent", "SummaryReader",
           "TruncatedTailWarning", "discover", "is_event_file", "read_events", "read_logdir", "read_runs",
           "read_scalars"]
