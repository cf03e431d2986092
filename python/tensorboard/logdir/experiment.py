"""The runs a front door was asked for, as an experiment: each run's hyperparameters (every source,
`logdir.hparams_sources`), the runs a `--where` query keeps, and the groups `--over` forms. Every
front door (the reader, `export`, `reduce`, `runs`, the UI's provider) calls `select_experiment` once
its runs are read."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from tensorboard.logdir.discovery import Listing
from tensorboard.logdir.grouping import Grouping, group_over
from tensorboard.logdir.hparams_sources import HParam, plain_hparams, run_hparams
from tensorboard.logdir.run_data import RunData
from tensorboard.logdir.selection import Selection


@dataclass
class Experiment:
    """The runs kept (in the order read), {run: {key: HParam}} of those runs, and their groups when
    `over` was given (else None)."""

    runs: list[RunData]
    hparams: dict[str, dict[str, HParam]]
    grouping: Grouping | None = None

    @property
    def values(self) -> dict[str, dict]:
        """{run: {key: value}}, without sources."""
        return plain_hparams(self.hparams)


def select_experiment(listing: Listing, runs: Sequence[RunData], selection: Selection,
                      warn: Callable | None = None, over_flag: str = "over", discovered: dict | None = None
                      ) -> Experiment:
    """The runs of `listing` (already read, `runs`) that `selection.where` keeps, with their hparams
    (`discovered`: `discover_hparams(listing, ...)` when already known).

    Raises:
        QueryError: The query names a key no run has (the message lists the keys there are).
        ValueError: An `over` key no run has.
    """
    options = {} if warn is None else {"warn": warn}
    hparams = run_hparams(listing, runs, selection.hparams_file, discovered=discovered, **options)
    plain = plain_hparams(hparams)
    kept = list(runs)
    if selection.where is not None:
        selection.where.check_keys({key for values in plain.values() for key in values})
        kept = [run for run in runs if selection.where.matches(run.name, plain[run.name])]
    hparams = {run.name: hparams[run.name] for run in kept}
    grouping = None
    if selection.over:
        grouping = group_over({run.name: plain[run.name] for run in kept}, selection.over, over_flag)
    return Experiment(kept, hparams, grouping)


def read_experiment(log_path, storage_options: dict | None = None, selection: Selection | None = None,
                    skip_damaged: bool = False, progress=None, concurrency: int | None = None,
                    max_bytes: int | None = None, warn: Callable | None = None,
                    over_flag: str = "over") -> Experiment:
    """The runs below `log_path` that `selection` wants (regexes before reading, then its query), read
    and decoded, with their hparams and groups (see `select_experiment`)."""
    from tensorboard.logdir.discovery import list_runs

    selection = selection or Selection()
    listing = list_runs(log_path, storage_options, concurrency=concurrency).only(selection.wants_run)
    return read_listed_experiment(listing, selection, skip_damaged, progress, concurrency, max_bytes, warn,
                                  over_flag)


def read_listed_experiment(listing: Listing, selection: Selection, skip_damaged: bool = False, progress=None,
                           concurrency: int | None = None, max_bytes: int | None = None,
                           warn: Callable | None = None, over_flag: str = "over") -> Experiment:
    """`listing`'s runs read and selected (see `select_experiment`). The configuration files are read
    after the event files, on the same thread: a second thread doing many small reads beside the
    decoding waits for the GIL at each one (measured no faster at 10,000 runs)."""
    from tensorboard.logdir.read import read_listed

    runs = list(read_listed(listing, skip_damaged, progress, selection, concurrency, max_bytes))
    return select_experiment(listing, runs, selection, warn, over_flag)
