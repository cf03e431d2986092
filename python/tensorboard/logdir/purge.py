"""Upstream's rules for orphaned data, once: after a restart, the steps a run had logged beyond the
restart point are dropped. Files with a version 2 header ("brain.Event:2") tell a restart by a
SessionLog START, which drops every tag's steps from its step on; older files by a summary whose
step is below the most recent one, which drops that summary's tags from its step on.

Upstream has two accumulators that differ in two details, and each front door follows the one it
stands in for: the reader follows `EventAccumulator` (what tbparse reads through), the UI's
provider follows the plugin `EventAccumulator` (what upstream's server reads through).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Collection

from tensorboard.events.file_names import parse_file_version

SESSION_START = 1  # SessionLog.START

Purge = Callable[[int, "Collection[str] | None"], None]  # (step, tags; None: every tag)


@dataclass(frozen=True)
class Accumulator:
    """How one of upstream's accumulators applies the rules."""

    every_event_moves: bool  # every event that purged nothing becomes the most recent (else: summaries)
    first_start_purges: bool  # the first SessionLog START purges too (else: only later ones)


EVENT_ACCUMULATOR = Accumulator(every_event_moves=True, first_start_purges=True)
PLUGIN_ACCUMULATOR = Accumulator(every_event_moves=False, first_start_purges=False)


class PurgeRules:
    """The purge state of one run: its file version and most recent step; `purge(step, tags)` is
    called for what a restart orphans."""

    def __init__(self, purge: Purge, accumulator: Accumulator = EVENT_ACCUMULATOR):
        self._purge = purge
        self._accumulator = accumulator
        self.file_version: float | None = None
        self.most_recent_step = -1
        self.most_recent_wall = -1.0
        self._seen_start = False

    @property
    def by_session_start(self) -> bool:
        """True when restarts are told by SessionLog START (file version 2), not by step order."""
        return bool(self.file_version and self.file_version >= 2)

    def event(self, event) -> None:
        """Applies the rules to one Event, before its values are added."""
        if event.HasField("file_version"):
            self.file_version = parse_file_version(event.file_version)
        has_summary = event.HasField("summary")
        moves = has_summary or self._accumulator.every_event_moves
        if self.by_session_start:
            if event.session_log.status == SESSION_START:
                if self._seen_start or self._accumulator.first_start_purges:
                    self._purge(event.step, None)
                self._seen_start = True
            moves = moves and not self._accumulator.every_event_moves
        elif has_summary and event.step < self.most_recent_step:
            self._purge(event.step, [value.tag for value in event.summary.value])
            moves = not self._accumulator.every_event_moves
        if moves:
            self.most_recent_step = event.step
            self.most_recent_wall = event.wall_time

    def summary_step(self, step: int, tags: Collection[str]) -> None:
        """The rules for a summary event of `tags` at `step` whose other fields purge nothing (no
        header, no SessionLog): the decoders' per-event fast path."""
        if step >= self.most_recent_step:
            self.most_recent_step = step
            return
        if not self.by_session_start:
            self._purge(step, tags)
        if not self._accumulator.every_event_moves:
            self.most_recent_step = step

    def purges_none(self, steps) -> bool:
        """True when summaries at `steps` (an int array, in file order) purge nothing: what may be
        added column-wise; else they go through `summary_step` one by one."""
        if self.by_session_start or not len(steps):
            return True
        import numpy as np

        return not (steps[0] < self.most_recent_step or (len(steps) > 1 and bool((np.diff(steps) < 0).any())))

    def added(self, step: int, wall: float) -> None:
        """Summaries up to (`step`, `wall`) were added column-wise (after `purges_none`)."""
        self.most_recent_step = step
        self.most_recent_wall = wall
