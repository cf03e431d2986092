"""The runs' hyperparameters for upstream's HParams dashboard, as if every run had called add_hparams:
discovered by the engine (logdir.hparams_sources: Lightning, Hydra, Ray Tune files, `key=value` path
parts, --hparams_file) and merged with what add_hparams logged, then served as the plugin content of
each run's `_hparams_/session_start_info` and of one `_hparams_/experiment`, with the metrics
--hparams_metrics names (a best value, `val/loss (min)`, is answered by read_last_scalars). Also the
--where filter and the --over groups, which need the runs' hparams.

A logdir where nothing beyond add_hparams is found, and no --hparams_metrics is given, is served
exactly as upstream serves it. Discovery runs again when the served runs change, and at most every
REDISCOVER_S seconds otherwise (unchanged files are not read again: logdir.hparams_sources.ConfigCache)."""
from __future__ import annotations

import functools
import logging
import threading
import time
from typing import Callable, NamedTuple

from tensorboard.logdir.config_files import ConfigError
from tensorboard.logdir.grouping import check_over, group_over
from tensorboard.logdir.hparams_plugin import (
    EXPERIMENT_TAG,
    SESSION_START_INFO_TAG,
    experiment_content,
    session_start_content,
    string_values_for,
)
from tensorboard.logdir.hparams_sources import (
    ConfigCache,
    discover_hparams,
    logged_hparams,
    merge_sources,
    warn_unusable,
)
from tensorboard.logdir.metrics import MetricChoice, aggregate, parse_metrics
from tensorboard.logdir.query import Query

REDISCOVER_S = 60.0
PLUGIN = "hparams"
logger = logging.getLogger("tensorboard.serving")


class HParamsFlags(NamedTuple):
    """The server's experiment flags, checked (serving.paths)."""

    hparams_file: str | None = None
    metrics: tuple[MetricChoice, ...] = ()
    where: Query | None = None
    over: tuple[str, ...] = ()

    def decide_runs(self) -> bool:
        """Whether the hparams decide which runs are served (--where) or grouped (--over): then they are
        found before the first screen is served."""
        return self.where is not None or bool(self.over)


class _Contents:
    """The plugin contents replacing the runs' hparams tags ({run: {tag: content}}), encoded at the first
    request for them: the first screen (runs and scalars) does not wait for 10,000 runs' protobufs, and a
    server nobody opens the HParams dashboard or runs table of never encodes them."""

    def __init__(self, values: dict[str, dict], choices: Callable[[], list[MetricChoice]]):
        """`choices()`: the metrics, found with the contents (the scalar tags every run shares, by default)."""
        self._values, self._choices = values, choices
        self._encoded: dict[str, dict[str, bytes]] | None = None
        self._lock = threading.Lock()

    def of(self, run: str) -> dict[str, bytes] | None:
        encoded = self._encoded
        if encoded is None:
            with self._lock:  # one request's thread encodes; the others wait for it
                if self._encoded is None:
                    self._encoded = _encode(self._values, self._choices())
                encoded = self._encoded
        return encoded.get(run)


def _encode(values: dict[str, dict], choices: list[MetricChoice]) -> dict[str, dict[str, bytes]]:
    typed = string_values_for(values)
    contents = {name: {SESSION_START_INFO_TAG: session_start_content(found)} for name, found in typed.items()}
    if contents:
        contents[next(iter(contents))][EXPERIMENT_TAG] = experiment_content(typed, choices)
    return contents


class _Served(NamedTuple):
    """One discovery's result: what the provider serves until the next."""

    values: dict[str, dict]  # run -> {key: value}, of runs with any hparam
    contents: _Contents | None  # the plugin contents replacing the runs' hparams tags (None: the runs' own)
    best: dict[str, MetricChoice]  # display tag -> a metric answered by read_last_scalars


class ServedHParams:
    """The HParams dashboard's view of a served Logdir, updated after its reloads."""

    def __init__(self, flags: HParamsFlags):
        self._flags = flags
        self._caches: dict[str, ConfigCache] = {}
        self._served = _Served({}, None, {})
        self._seen: tuple = ()
        self._at = float("-inf")
        self._lock = threading.Lock()
        self._told = ""  # the last --over notes logged
        self._preload = None  # a serving.hparams_preload.HParamsPreload, taken by the first update

    def update(self, logdir, force: bool = False) -> None:
        """Discovers again when the runs changed, REDISCOVER_S passed, or `force`."""
        runs = logdir.runs()
        seen = tuple(runs)
        if not force and seen == self._seen and time.monotonic() - self._at < REDISCOVER_S:
            return
        discovered = self._prefetched(runs)
        if discovered is None:
            discovered = self.discover(logdir.run_listings())
        served = self._serve(runs, discovered)
        with self._lock:
            self._served, self._seen, self._at = served, seen, time.monotonic()

    def discover(self, listings) -> dict[str, dict]:
        """{run: {key: HParam}} from the configuration files and path parts of the runs of `listings`
        (Logdir.run_listings), unchanged files taken from each root's cache."""
        discovered: dict[str, dict] = {}
        for listing, directories in listings:
            cache = self._caches.setdefault(listing.root, ConfigCache())
            discovered.update(discover_hparams(listing, self._flags.hparams_file, cache=cache,
                                               directories=directories))
        return discovered

    def take_preload(self, preload) -> None:
        """Takes, at the first update, the discovery a serving.hparams_preload.HParamsPreload began as the
        server started (with --where or --over the first screen waits for it); one made with another
        --hparams_file is stopped."""
        if preload.hparams_file != self._flags.hparams_file:
            preload.cancel()
            return
        self._preload = preload

    def _prefetched(self, runs: dict) -> dict[str, dict] | None:
        """The preload's discovery when it covers every run read (None: none, it failed, or runs appeared
        since); its parsed files go into the cache either way, and its unusable files are warned about."""
        if self._preload is None:
            return None
        preload, self._preload = self._preload, None
        found = preload.result()
        if found is None:
            return None
        self._caches.setdefault(preload.root, ConfigCache()).entries.update(found.cache_entries)
        for path, line, reason in found.unusable:
            warn_unusable(ConfigError(path, line, reason))
        return found.hparams if set(runs) <= set(found.hparams) else None

    def _serve(self, runs: dict, discovered: dict[str, dict]) -> _Served:
        found_any = any(discovered.values())
        values = {}
        for name, state in runs.items():
            with state.lock:
                logged = state.plugins.get(PLUGIN, {}).get(SESSION_START_INFO_TAG)
            merged = merge_sources(logged_hparams({0: logged} if logged else {}, name), discovered.get(name, {}))
            if merged:
                values[name] = {key: hparam.value for key, hparam in merged.items()}
        if not (found_any or self._flags.metrics):
            return _Served(values, None, {})  # upstream's own view of add_hparams
        named = list(self._flags.metrics)
        choices = functools.partial(list, named) if named else functools.partial(_shared_metrics, runs, values)
        return _Served(values, _Contents(values, choices) if values else None,
                       {c.display_tag: c for c in named if c.aggregation != "last"})

    # -- what the provider asks --------------------------------------------------------------------
    def wants(self, run: str) -> bool:
        """Whether --where keeps `run` (a run without hparams matches no comparison on one)."""
        where = self._flags.where
        return where is None or where.matches(run, self._served.values.get(run, {}))

    def configurations(self, runs) -> dict[str, list[str]]:
        """--over: {group: its runs} of the `runs` --where keeps that have hparams, grouped by every key but
        --over's (logdir.grouping). Its notes (groups of one run, runs lacking a key; an --over key no run
        has, which groups nothing) are logged once each time they change."""
        values = {run: self._served.values[run] for run in runs if run in self._served.values and self.wants(run)}
        try:
            grouping = group_over(values, self._flags.over)
            groups, notes = {group.name: list(group.runs) for group in grouping.groups}, grouping.notes
        except ValueError as err:  # no run has the key yet: a sweep may still be starting
            groups, notes = {}, [str(err)]
        told = "; ".join(notes)
        if told != self._told:
            self._told = told
            for note in notes:
                logger.warning("--over: %s", note)
        return groups

    def contents(self, run: str) -> dict[str, bytes] | None:
        """{tag: plugin content} of the hparams tags served for `run` instead of its own; None: its own."""
        contents = self._served.contents
        return None if contents is None else contents.of(run)

    def replaces_hparams(self) -> bool:
        """True when the served hparams tags are ours, not the runs' own."""
        return self._served.contents is not None

    def best_value(self, run_state, display_tag: str):
        """(step, wall time, value) of a best-value metric (`val/loss (min)`) in a run: the tag's lowest or
        highest value among the points served, at the tag's last step; None when not such a metric or absent."""
        choice = self._served.best.get(display_tag)
        if choice is None:
            return None
        with run_state.lock:
            series = run_state.series.get(choice.tag)
            view = None if series is None or not series.numeric else series.view()
        if view is None or not len(view.steps):
            return None
        value = aggregate(view.steps, view.values, choice.aggregation)
        last = int(view.steps.argmax())  # the points are in reservoir order
        return None if value is None else (int(view.steps[last]), float(view.walls[last]), value)


def _shared_metrics(runs: dict, values: dict) -> list[MetricChoice]:
    """The metrics without --hparams_metrics: every scalar tag the runs with hparams share, each as its last
    value, in the first run's order (the hparams plugin's own tags left out)."""
    shared: dict[str, None] | None = None
    for name in values:
        state = runs[name]
        with state.lock:
            tags = [tag for tag, meta in state.metadata.items() if meta.plugin_data.plugin_name == "scalars"]
        shared = dict.fromkeys(tags) if shared is None else {tag: None for tag in shared if tag in tags}
    return [MetricChoice(tag) for tag in (shared or {}) if not tag.startswith("_hparams_/")]


def check_flags(hparams_file: str | None, hparams_metrics: str | None, where: str | None,
                over: str | None = None) -> HParamsFlags:
    """The flags parsed; a ValueError naming the flag for a bad one."""
    from tensorboard.logdir.hparams_sources import config_files
    from tensorboard.logdir.query import parse_query

    config_files(hparams_file)  # checks the name
    metrics = tuple(parse_metrics(hparams_metrics, "--hparams_metrics")) if hparams_metrics else ()
    return HParamsFlags(hparams_file, metrics, parse_query(where, "--where") if where is not None else None,
                        check_over(over))
