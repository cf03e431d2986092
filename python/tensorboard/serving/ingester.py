"""`StandaloneDataIngester`: upstream's data-ingester shape (`data_provider`, `start()`) around a
Logdir and a StandaloneDataProvider, starting a reload every --reload_interval seconds in a daemon thread,
with upstream's --samples_per_plugin sizes."""
from __future__ import annotations

import logging
import os
import threading
import time

from tensorboard.logdir.selection import CLI_FLAGS, Selection
from tensorboard.serving.preload import take_pending
from tensorboard.serving.provider import StandaloneDataProvider
from tensorboard.serving.seed_groups import GroupRuns, by_pattern
from tensorboard.serving.served_hparams import HParamsFlags, ServedHParams, check_flags
from tensorboard.serving.served_logdir import Logdir

logger = logging.getLogger("tensorboard.serving")


def size_guidance(samples_per_plugin: dict | None) -> tuple[dict, int]:
    """(plugin -> points kept per tag, the size for other plugins): upstream's defaults and overrides."""
    from tensorboard.backend.event_processing import data_ingester, tag_types

    sizes = dict(data_ingester.DEFAULT_TENSOR_SIZE_GUIDANCE)
    sizes.update(samples_per_plugin or {})
    return sizes, data_ingester.DEFAULT_SIZE_GUIDANCE[tag_types.TENSORS]


def logdir_roots(flags) -> dict:
    """Path -> run name prefix: the --logdir (no prefix) or each `name:path` of --logdir_spec."""
    if flags.logdir:
        return {os.path.expanduser(flags.logdir): None}
    from tensorboard.backend.event_processing import data_ingester

    return data_ingester._parse_event_files_spec(flags.logdir_spec)  # pylint: disable=protected-access


def run_selection(flags) -> Selection | None:
    """The runs --runs and --exclude serve (None: every run)."""
    runs, exclude = getattr(flags, "runs", None), getattr(flags, "exclude", None)
    if runs is None and exclude is None:
        return None
    return Selection.of(runs, exclude=exclude, flags=CLI_FLAGS)


def hparams_flags(flags) -> HParamsFlags:
    """--hparams_file, --hparams_metrics, --where and --over, checked (serving.paths checked them at start-up)."""
    return check_flags(getattr(flags, "hparams_file", None), getattr(flags, "hparams_metrics", None),
                       getattr(flags, "where", None), getattr(flags, "over", None))


def run_groups(flags, hparams: ServedHParams) -> GroupRuns | None:
    """The group runs --group_runs or --over adds, of the runs --where keeps (None: none)."""
    pattern = getattr(flags, "group_runs", None)
    if pattern is not None:
        return GroupRuns(by_pattern(pattern, hparams.wants))
    return GroupRuns(hparams.configurations) if getattr(flags, "over", None) else None


class StandaloneDataIngester:
    """Serves the logdir through our reader; `start()` begins the reload loop."""

    def __init__(self, flags):
        sizes, default = size_guidance(getattr(flags, "samples_per_plugin", None))
        roots = logdir_roots(flags)
        preload = take_pending(next(iter(roots))) if len(roots) == 1 else None
        chosen = hparams_flags(flags)
        self._hparams = ServedHParams(chosen)
        self._logdir = Logdir(roots, sizes, default,
                              purge_orphaned_data=getattr(flags, "purge_orphaned_data", True),
                              selection=run_selection(flags), groups=run_groups(flags, self._hparams), preload=preload,
                              after_reload=self._hparams.update, loaded_after_it=chosen.decide_runs())
        if preload is not None and preload.hparams is not None:
            self._hparams.take_preload(preload.hparams)  # found while the server started: the hparams' now
            preload.hparams = None
        self._provider = StandaloneDataProvider(self._logdir, flags.logdir or flags.logdir_spec, self._hparams)
        self._interval = float(getattr(flags, "reload_interval", 5.0))
        self._task = getattr(flags, "reload_task", "auto")
        self._location = flags.logdir or flags.logdir_spec

    @property
    def data_provider(self) -> StandaloneDataProvider:
        return self._provider

    @property
    def logdir(self) -> Logdir:
        return self._logdir

    def start(self) -> None:
        """Reads the logdir, then again every --reload_interval seconds (0: once), as upstream's loader."""
        if self._task == "blocking":
            if self._interval != 0:
                raise ValueError("blocking reload only allowed with load_interval=0")
            self._logdir.reload()
            return
        thread = threading.Thread(target=self._loop, name="StandaloneReloader", daemon=True)
        thread.start()

    def _loop(self) -> None:
        while True:
            started = time.monotonic()
            try:
                self._logdir.reload()
            except Exception:  # pylint: disable=broad-except  (a failed reload must not end the reloads)
                logger.exception("reloading %s failed; trying again in %s s", self._location, self._interval)
            if self._interval == 0:
                return
            self._follow_until(time.monotonic() + pause_after(time.monotonic() - started, self._interval))

    def _follow_until(self, wake: float) -> None:
        """Until `wake`, reads every follow_tick(interval) what was appended to the files being written
        (Logdir.follow), waiting at least ten times as long as the last follow took (a tenth of a core)."""
        tick = follow_tick(self._interval)
        wait = tick
        while True:
            left = wake - time.monotonic()
            if left <= 0:
                return
            time.sleep(min(wait, left))
            if wake - time.monotonic() < tick / 2:
                continue  # the reload is about due
            started = time.monotonic()
            try:
                self._logdir.follow(LIVE_S)
            except Exception:  # pylint: disable=broad-except  (the next reload reads it all anyway)
                logger.exception("following the files being written in %s failed", self._location)
            wait = max(tick, 10 * (time.monotonic() - started))


LIVE_S = 60.0  # a file appended to within this long is being written: followed between reloads


def follow_tick(interval: float) -> float:
    """How often files being written are read between reloads: ten times per --reload_interval, at most
    every 0.1 s."""
    return max(0.1, interval / 10)


def pause_after(took: float, interval: float) -> float:
    """Seconds to wait after a reload that took `took`: a reload starts every `interval` seconds (new data
    is served within the interval, not the interval plus a reload); a reload longer than half the
    interval is followed by as long a pause, up to the interval (upstream's pause after every reload)."""
    return max(interval - took, min(took, interval))
