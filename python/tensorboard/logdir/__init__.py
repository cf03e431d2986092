"""The logdir engine: everything the front doors (the reader and `tensorboard export`, the HTML
report, the sweep tools, the UI's data provider) share to read a logdir. Finding runs
(`discovery`), fetching object-store files many at a time (`fetch`), decoding records into a run's
columns (`decode`, `bulk`), upstream's purge rules (`purge`), choosing runs, tags and steps
(`selection`) and the one rule for run names (`names`) each live here once.

The names below are imported on first use, so that importing one light module of the package (the
walk of `discovery`, the configuration files of `hparams_sources`) does not import the decoders and NumPy."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the lazy names below, for type checkers and the docs' static analysis
    from tensorboard.logdir.discovery import Listing, is_event_file, list_runs
    from tensorboard.logdir.names import TOP_RUN, run_name
    from tensorboard.logdir.read import iter_runs, read_listed, read_runs
    from tensorboard.logdir.run_data import RunData
    from tensorboard.logdir.selection import Selection

_EXPORTS = {"Listing": "discovery", "is_event_file": "discovery", "list_runs": "discovery",
            "TOP_RUN": "names", "run_name": "names", "iter_runs": "read", "read_listed": "read",
            "read_runs": "read", "RunData": "run_data", "Selection": "selection"}

__all__ = ["Listing", "RunData", "Selection", "TOP_RUN", "is_event_file", "iter_runs", "list_runs", "read_listed",
           "read_runs", "run_name"]  # _EXPORTS' names, spelled out for static analysis (a test checks they agree)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
