"""The logdir engine: everything the front doors (the reader and `tensorboard export`, the HTML
report, the sweep tools, the UI's data provider) share to read a logdir. Finding runs
(`discovery`), fetching object-store files many at a time (`fetch`), decoding records into a run's
columns (`decode`, `bulk`), upstream's purge rules (`purge`), choosing runs, tags and steps
(`selection`) and the one rule for run names (`names`) each live here once."""
from tensorboard.logdir.discovery import Listing, is_event_file, list_runs
from tensorboard.logdir.names import TOP_RUN, run_name
from tensorboard.logdir.read import iter_runs, read_listed, read_runs
from tensorboard.logdir.run_data import RunData
from tensorboard.logdir.selection import Selection

__all__ = ["Listing", "RunData", "Selection", "TOP_RUN", "is_event_file", "iter_runs", "list_runs", "read_listed",
           "read_runs", "run_name"]
