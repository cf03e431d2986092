"""What a reader was asked for: run and tag regexes (as `tensorboard export --runs/--tags` takes them),
a step range and the kinds wanted. Runs are chosen before anything is fetched; tags, steps and kinds
are applied to each run once it is read (after restarts were purged, so the rows kept are the ones
an unfiltered read has)."""
from __future__ import annotations

import re
from array import array
from dataclasses import dataclass

from tensorboard.logdir.kinds import (
    ALL_EVENT_TYPES,
    AUDIO,
    HISTOGRAMS,
    HPARAMS,
    IMAGES,
    SCALARS,
    TENSORS,
    TEXT,
    text_name,
)
from tensorboard.logdir.run_data import KindStore, RunData


def compile_pattern(name: str, pattern) -> re.Pattern | None:
    """`pattern` (a regex string, a compiled regex or None) compiled; a clear error names `name`."""
    if pattern is None or isinstance(pattern, re.Pattern):
        return pattern
    if not isinstance(pattern, str):
        raise TypeError(f"{name} must be a regex string, not {type(pattern).__name__}")
    try:
        return re.compile(pattern)
    except re.error as err:
        raise ValueError(f"{name} {pattern!r} is not a valid regex: {err}") from None


def check_steps(steps, name: str = "steps") -> tuple[int | None, int | None] | None:
    """`steps` as (lo, hi), both ends included, None for an open end; None for no range."""
    if steps is None:
        return None
    if not isinstance(steps, (tuple, list)) or len(steps) != 2:
        raise TypeError(f"{name} must be a pair (lo, hi) of ints or None, not {steps!r}")
    lo, hi = steps
    for end in (lo, hi):
        if end is not None and (isinstance(end, bool) or not isinstance(end, int)):
            raise TypeError(f"{name} must be a pair (lo, hi) of ints or None, not {steps!r}")
    if lo is not None and hi is not None and lo > hi:
        raise ValueError(f"{name} ({lo}, {hi}) is empty: lo is above hi")
    return None if lo is None and hi is None else (lo, hi)


def parse_steps(text: str | None) -> tuple[int | None, int | None] | None:
    """--steps 'LO:HI', 'LO:' or ':HI' (both ends included) as (lo, hi)."""
    if text is None:
        return None
    lo, sep, hi = text.partition(":")
    try:
        if not sep:
            raise ValueError
        pair = (int(lo) if lo.strip() else None, int(hi) if hi.strip() else None)
    except ValueError:
        raise ValueError(f"--steps {text!r}: expected LO:HI, LO: or :HI with integer steps") from None
    if None not in pair and pair[0] > pair[1]:
        raise ValueError(f"--steps {text!r} is empty: LO is above HI")
    return check_steps(pair, "--steps")


CLI_FLAGS = ("--runs", "--tags", "--steps", "--exclude", "--where", "--over", "--hparams_file")  # as errors name them
API_FLAGS = ("runs", "tags", "steps", "exclude", "where", "over", "hparams_file")  # keyword arguments' names


@dataclass(frozen=True)
class Selection:
    """Which runs, tags, steps and kinds to keep. A run is kept when `runs` (a regex) is found in its
    name and `exclude` is not; both are searched, as Python's `re.search` does, in run names as
    `logdir.names` gives them ("." for the logdir itself). Those are known before anything is read
    (`wants_run`). `where` (a `logdir.query.Query` over hyperparameters), `over` (keys a group of runs
    may differ in) and `hparams_file` (a further configuration file to read) need each run's
    hyperparameters: `logdir.experiment.select_experiment` applies them once the runs are read."""

    runs: re.Pattern | None = None
    tags: re.Pattern | None = None
    steps: tuple[int | None, int | None] | None = None
    kinds: frozenset = ALL_EVENT_TYPES
    exclude: re.Pattern | None = None
    where: object = None  # a logdir.query.Query
    over: tuple[str, ...] = ()
    hparams_file: str | None = None

    @classmethod
    def of(cls, runs=None, tags=None, steps=None, kinds=None, flags=API_FLAGS, exclude=None, where=None,
           over=None, hparams_file=None) -> "Selection":
        """A Selection from regex strings (or compiled regexes), a (lo, hi) step range, a `--where` query
        (text or a parsed Query), `over` keys (a comma-separated string or a list) and a file name;
        errors name `flags` (`API_FLAGS` or `CLI_FLAGS`)."""
        if where is not None:  # the query, hparams and grouping modules load only for what uses them
            from tensorboard.logdir.query import Query, parse_query

            if not isinstance(where, Query):
                where = parse_query(where, flags[4])
        if hparams_file is not None:
            from tensorboard.logdir.hparams_sources import config_files

            config_files(hparams_file, flags[6])
        if over is not None:
            from tensorboard.logdir.grouping import check_over

            over = check_over(over, flags[5])
        return cls(compile_pattern(flags[0], runs), compile_pattern(flags[1], tags), check_steps(steps, flags[2]),
                   ALL_EVENT_TYPES if kinds is None else frozenset(kinds), compile_pattern(flags[3], exclude),
                   where, over or (), hparams_file)

    @property
    def needs_hparams(self) -> bool:
        """Whether choosing runs needs their hyperparameters (a `where` or `over`)."""
        return self.where is not None or bool(self.over)

    def wants_run(self, run: str) -> bool:
        """Whether run `run` is read at all."""
        return (self.runs is None or bool(self.runs.search(run))) and \
            (self.exclude is None or not self.exclude.search(run))

    @property
    def trims(self) -> bool:
        return self.tags is not None or self.steps is not None or self.kinds != ALL_EVENT_TYPES

    def apply(self, run: RunData) -> RunData:
        """Drops from `run` the rows of other tags, steps outside the range and kinds not wanted."""
        if not self.trims:
            return run
        kinds = self.kinds
        text_tags = set(run.plugin_content.get("text", ()))
        for kind in (SCALARS, HISTOGRAMS, IMAGES, AUDIO):
            if kind not in kinds:
                run.drop(kind)
            elif run.holds(kind):
                setattr(run, kind, self._trim(getattr(run, kind), None))
        if not kinds & {TENSORS, TEXT}:
            run.drop(TENSORS)
        elif run.holds(TENSORS):
            run.tensors = self._trim(run.tensors, text_tags)
        if HPARAMS not in kinds and not self.needs_hparams:  # --where and --over read what add_hparams logged
            run.session_starts = {}
        elif self.tags is not None:
            run.session_starts = {fid: self._hparams(content) for fid, content in run.session_starts.items()}
        return run

    def _name_matches(self, name: str, text_tags: set | None) -> bool:
        if self.tags is None:
            return True
        if text_tags is not None and name in text_tags:
            name = text_name(name)  # text tags are matched as their frames show them
        return bool(self.tags.search(name))

    def _trim(self, store: KindStore, text_tags: set | None) -> KindStore:
        keep_ids = [self._name_matches(name, text_tags) for name in store.tag_names]
        lo, hi = self.steps or (None, None)
        if all(keep_ids) and lo is None and hi is None:
            return store
        import numpy as np

        out = KindStore(isinstance(store.values, array))
        new_id = np.asarray([out.tag_id(name) if keep else -1 for name, keep in zip(store.tag_names, keep_ids)]
                            + [-1], np.int32)
        tags = np.frombuffer(store.tags, np.int32) if len(store.tags) else np.zeros(0, np.int32)
        steps = np.frombuffer(store.steps, np.int64) if len(store.steps) else np.zeros(0, np.int64)
        mask = new_id[tags] >= 0
        if lo is not None:
            mask &= steps >= lo
        if hi is not None:
            mask &= steps <= hi
        rows = np.flatnonzero(mask)
        out.tags.frombytes(new_id[tags[rows]].astype(np.int32).tobytes())
        out.steps.frombytes(steps[rows].tobytes())
        for name, dtype in (("walls", np.float64), ("files", np.int32)):
            column = getattr(store, name)
            if len(column):
                getattr(out, name).frombytes(np.frombuffer(column, dtype)[rows].tobytes())
        if isinstance(store.values, array):
            if len(store.values):
                out.values.frombytes(np.frombuffer(store.values, np.float64)[rows].tobytes())
        else:
            values = store.values
            out.values.extend(values[i] for i in rows.tolist())
        return out

    def _hparams(self, content: bytes) -> bytes:
        """A session start info holding only the hyperparameters whose names match the tag regex."""
        from tensorboard.src import hparams_pb2

        data = hparams_pb2.HParamsPluginData.FromString(content)
        hparams = data.session_start_info.hparams
        for name in [n for n in hparams if not self.tags.search(n)]:
            del hparams[name]
        return data.SerializeToString()
