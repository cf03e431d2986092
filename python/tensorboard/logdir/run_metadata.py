"""A run's metadata (tensorboard.system's: command line, git commit, host, versions), read back from
the values `tensorboard.src.run_metadata` places, for every front door that shows it."""
from __future__ import annotations

from typing import Any

from tensorboard.logdir.run_data import RunData
from tensorboard.src import run_metadata


def latest_metadata(run: RunData) -> dict[str, Any] | None:
    """The fields of the run's latest metadata (a resumed run holds one per process that wrote it),
    or None when it holds none. A damaged entry is passed over."""
    if not run.holds("tensors") or run.tag_plugins.get(run_metadata.FIELDS_TAG) != run_metadata.PLUGIN:
        return None
    store = run.tensors
    tid = store.tag_ids.get(run_metadata.FIELDS_TAG)
    if tid is None:
        return None
    for row in range(len(store) - 1, -1, -1):
        if store.tags[row] == tid:
            fields = run_metadata.decode_fields(store.values[row])
            if fields is not None:
                return fields
    return None


def metadata_by_run(runs: list[RunData]) -> dict[str, dict[str, Any]]:
    """{run name: its metadata fields} for the runs that hold metadata, in the runs' order."""
    found = {}
    for run in runs:
        fields = latest_metadata(run)
        if fields is not None:
            found[run.name] = fields
    return found
