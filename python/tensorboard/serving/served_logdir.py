"""The runs of a logdir (or of a --logdir_spec), kept current: each reload finds new, deleted and
replaced runs and files, and reads only the bytes appended to each file since the last reload.
Local roots are walked and read file by file; object-store roots (URLs) through serving.remote_root."""
from __future__ import annotations

import logging
import os
import posixpath
import sys
import threading
import time
from typing import NamedTuple

from tensorboard.events.storage import is_remote, storage_for
from tensorboard.logdir.discovery import Listing, directory_run, local_run_directories
from tensorboard.logdir.follow import MARK_BYTES, TailBatch
from tensorboard.logdir.names import prefixed
from tensorboard.logdir.selection import Selection
from tensorboard.serving.batch_reading import read_new_bytes
from tensorboard.serving.file_reading import ServedFile
from tensorboard.serving.remote_root import RemoteRoot
from tensorboard.serving.run_state import RunState
from tensorboard.serving.seed_groups import GroupRuns

logger = logging.getLogger("tensorboard.serving")


class FoundRun(NamedTuple):
    """Where a run served now is: its directory, its object-store root (None: local), and its files
    (a local run's names; an object-store run's listing, None when the store could not be listed)."""

    directory: str
    remote: RemoteRoot | None
    files: object


class _Run:
    """A run's directory, its files' read state and its data (swapped whole when the run starts over)."""

    def __init__(self, directory: str, state: RunState):
        self.directory = directory
        self.state = state
        self.files: dict[str, ServedFile] = {}
        self.grew = float("-inf")  # time.monotonic() when a file read before was last appended to


class Logdir:
    """Every run under the given roots, keyed by run name as upstream's multiplexer names them."""

    def __init__(self, roots: dict, size_guidance: dict, default_size: int, purge_orphaned_data: bool = True,
                 selection: Selection | None = None, groups: GroupRuns | None = None,
                 preload=None, after_reload=None, loaded_after_it: bool = False):
        """`selection`: the runs served (--runs, --exclude); `groups`: the group runs served beside them;
        `preload`: a serving.preload.Preload, workers already reading the logdir, whose runs the first
        reload adopts (the preload makes Logdirs; this module does not import it); `after_reload(logdir)`:
        called at the end of each reload (the served hparams), before the first reload counts as loaded only
        with `loaded_after_it` (what it computes decides which runs are served or grouped: --where, --over)."""
        self._roots = roots  # path -> run name prefix (None: the logdir itself)
        self._selection = selection
        self._preload = preload
        # local root -> {directory: its configuration files' names}, from the last walk of the root (the
        # preload's until this Logdir walks): where the served hparams look for files without listing again
        self.walked: dict[str, dict[str, frozenset]] = dict(preload.walked) if preload is not None else {}
        self._groups = groups
        self._group_states: dict[str, RunState] = {}
        self._sizes = size_guidance
        self._default_size = default_size
        self._purge = purge_orphaned_data
        self._runs: dict[str, _Run] = {}
        self._growing: dict[str, _Run] = {}  # runs a file of which was appended to: what follow() visits
        self._remotes: dict[str, RemoteRoot] = {}
        self._reload_lock = threading.Lock()
        self._after_reload = after_reload
        self._loaded_after_it = loaded_after_it
        self.loaded = threading.Event()  # set after the first complete reload

    def runs(self) -> dict[str, RunState]:
        """Run name -> its data, a snapshot (safe to iterate while a reload goes on); group runs last."""
        return {**{name: run.state for name, run in list(self._runs.items())}, **self._group_states}

    def group_runs(self) -> set[str]:
        """The names of the group runs served now (--group_runs, --over)."""
        return set(self._group_states)

    def run_listings(self, found: dict[str, FoundRun] | None = None) -> list[tuple[Listing, dict[str, str]]]:
        """Per root, where its runs' configuration files are looked up: a Listing (on an object store
        with the files of its last listing, so nothing is listed again) and {run name: its directory}
        of the runs served now (or of `found`, a listing not read yet)."""
        directories = {name: run.directory for name, run in list(self._runs.items())} if found is None else \
            {name: where.directory for name, where in found.items()}
        out = []
        for root in self._roots:
            if is_remote(root):
                remote = self._remote_root(root)
                listing, separator = Listing(remote.storage, [], root=remote.url, files=remote.files), "/"
            else:
                root = os.path.expanduser(root)
                listing = Listing(storage_for(root), [], root=root, config_names=self.walked.get(root))
                separator = os.sep
            prefix = listing.root.rstrip(separator) + separator
            out.append((listing, {name: directory for name, directory in directories.items()
                                  if directory == listing.root or directory.startswith(prefix)}))
        return out

    def _new_state(self, name: str) -> RunState:
        return RunState(name, self._sizes, self._default_size, self._purge)

    def plan(self) -> tuple:
        """What decides the data read: sizes, purge rule and selection (a preload must have read with these)."""
        return tuple(sorted(self._sizes.items())), self._default_size, self._purge, self._selection

    def listing(self, walk=None) -> dict:
        """Run name -> where it is, for every run served now, in the order the server lists them. `walk`:
        the walk of this Logdir's one local root, made by another process (a serving.hparams_preload.Walk),
        taken instead of walking it here."""
        if walk is not None and len(self._roots) != 1:
            raise ValueError("a walk made elsewhere stands for one local root")
        return self._found(walk)

    def read_part(self, part: dict) -> list[tuple]:
        """A preload's read of some runs of `listing()`: (name, directory, data, files) of each, kept
        nowhere here (a worker holds one part at a time)."""
        self._read_found(part)
        out = []
        for name in part:
            run = self._runs.pop(name, None)
            if run is not None:
                for series in run.state.series.values():
                    series.extent()  # computed by the reader, on its core, and sent with the run
                out.append((name, run.directory, run.state, run.files))
        return out

    def _adopt_preload(self) -> bool:
        """Takes the preload's runs as they arrive, reading chunks here while none waits; True when it
        took them all (False when the preload read with other parameters: the reload reads the logdir itself)."""
        preload, self._preload = self._preload, None
        adopted: dict[str, _Run] = {}
        if preload.plan != self.plan():
            logger.info("preload of the logdir not used (it read with other parameters): reading it here")
            preload.cancel()
            return False
        here = Logdir(self._roots, self._sizes, self._default_size, self._purge, self._selection)  # serves nothing
        for name, directory, state, files in preload.runs(here.read_part):
            run = adopted[name] = _Run(directory, state)
            run.files = files
        self._runs = {name: adopted[name] for name in preload.found if name in adopted}  # in listing order
        if os.environ.get("TENSORBOARD_STANDALONE_VERBOSE"):
            print(f"preload adopted: {len(self._runs)} runs", file=sys.stderr, flush=True)
        return True

    def reload(self) -> None:
        """Finds runs and files, drops vanished ones, reads what was appended since the last reload."""
        with self._reload_lock:
            # An adopted preload is this reload: what was appended since, the next one reads.
            if self._preload is None or not self._adopt_preload():
                found = self._found()
                for name in [n for n in self._runs if n not in found]:
                    del self._runs[name]
                self._read_found(found)
            if self._after_reload is not None and self._loaded_after_it:
                self._after_reload(self)  # before the groups: --over groups by what it finds
            if self._groups is not None:
                self._group_states = self._groups.build({name: run.state for name, run in self._runs.items()})
            self.loaded.set()
            if self._after_reload is not None and not self._loaded_after_it:
                self._after_reload(self)  # the first screen is served meanwhile

    def _found(self, walk=None) -> dict[str, FoundRun]:
        """Run name -> where it is, for every run served now (the local root's `walk`, when given)."""
        found: dict[str, FoundRun] = {}
        for root, prefix in self._roots.items():
            if is_remote(root):
                remote = self._remote_root(root)
                try:
                    listing = remote.run_files()
                except OSError as err:  # the store is unreachable now: keep what is served, try again
                    logger.warning("listing %s: %s", root, err)
                    listing = {directory: None for directory in self._known_directories(remote)}
                for directory, files in listing.items():
                    name = prefixed(prefix, directory_run(remote.url, directory))
                    found.setdefault(name, FoundRun(directory, remote, files))
                continue
            root = os.path.expanduser(root)
            walked: dict[str, frozenset] = {}
            runs = local_run_directories(root, walked) if walk is None else walk.runs
            for name, (directory, names) in runs.items():
                found.setdefault(prefixed(prefix, name), FoundRun(directory, None, names))
            self.walked[root] = walked if walk is None else walk.configs
        if self._selection is not None:
            found = {name: where for name, where in found.items() if self._selection.wants_run(name)}
        return found

    def _read_found(self, found: dict[str, FoundRun]) -> None:
        """Reads what was appended to the runs of `found` (local ones together, object-store ones per root)."""
        remote_runs: dict[RemoteRoot, list] = {}
        batch, swaps = TailBatch(), []
        for name, (directory, remote, files) in found.items():
            run = self._runs.get(name)
            if run is None or run.directory != directory:
                run = self._runs[name] = _Run(directory, self._new_state(name))
            if remote is not None:
                if files is not None:
                    remote_runs.setdefault(remote, []).append((run, files))
                continue
            try:
                fresh = self._reload_run(run, files, batch)
            except OSError as err:  # the run vanished while being read: the next reload drops it
                logger.warning("reading run %r: %s", name, err)
                continue
            if run.grew != float("-inf"):
                self._growing[name] = run
            if fresh is not None:
                swaps.append((run, fresh))
        batch.flush()
        for run, (state, files) in swaps:
            run.state, run.files = state, files
        for remote, runs in remote_runs.items():
            self._reload_remote(remote, runs)

    def _remote_root(self, url: str) -> RemoteRoot:
        remote = self._remotes.get(url)
        if remote is None:
            remote = self._remotes[url] = RemoteRoot(url)
        return remote

    def _known_directories(self, remote: RemoteRoot) -> list[str]:
        return [run.directory for run in self._runs.values() if run.directory.startswith(remote.url + "/")
                or run.directory == remote.url]

    def _reload_remote(self, remote: RemoteRoot, runs: list) -> None:
        """Reads the runs of one object-store root: all their new bytes fetched at once. A run whose
        file was re-created is read again from the start into fresh data, then swapped in."""
        targets = {}  # id(run state) -> (run, state, files), fresh for a run that starts over
        for run, listed in runs:
            state, files = run.state, run.files
            if any(name not in listed or listed[name] < fs.offset for name, fs in files.items()):
                state, files = self._new_state(state.name), {}
            targets[id(state)] = (run, state, files, listed)
        pending = dict(targets)
        for attempt in range(2):  # a file re-created again while it was read again waits for the next reload
            jobs = []
            for run, state, files, listed in pending.values():
                for name in sorted(listed):
                    file_state = files.get(name)
                    if file_state is None:
                        file_state = files[name] = ServedFile(posixpath.join(run.directory, name))
                    if not file_state.damaged and listed[name] > file_state.offset:
                        jobs.append((state, file_state, listed[name]))
            pending = {}
            for key in remote.read(jobs):
                run, state, files, listed = targets.pop(key)
                if attempt == 0:
                    fresh = self._new_state(state.name)
                    targets[id(fresh)] = pending[id(fresh)] = (run, fresh, {}, listed)
            if not pending:
                break
        for run, state, files, _ in targets.values():
            run.state, run.files = state, files

    def _reload_run(self, run: _Run, names: list[str], batch: TailBatch):
        """Queues the new bytes of the run's event files `names` in `batch` (or reads them here: a file
        with much to read makes the whole run read file by file, in order); returns the fresh data to
        swap in after the batch is read when the run starts over, else None."""
        current = {}
        for name in names:
            path = os.path.join(run.directory, name)
            try:
                st = os.stat(path)
            except FileNotFoundError:
                continue
            current[name] = (path, (st.st_dev, st.st_ino), st.st_size, st.st_mtime_ns)
        state, files = run.state, run.files
        restart = _started_over(files, current)
        if restart:  # read into fresh data; readers keep the old until the swap
            state, files = self._new_state(state.name), {}
        reads = []
        for name in sorted(current):
            path, identity, size, mtime = current[name]
            file_state = files.get(name)
            if file_state is None:
                file_state = files[name] = ServedFile(path, identity)
            if file_state.damaged or size <= file_state.offset:
                file_state.mtime = mtime
                continue
            reads.append((file_state, identity, size, mtime))
        if read_new_bytes(state, reads, batch):
            run.grew = time.monotonic()
        return (state, files) if restart else None

    def follow(self, within: float) -> int:
        """Between reloads, reads what was appended to the local files that grew in the last `within`
        seconds (the files of runs being written: their new points show before the next reload); returns
        how many files it read. A file replaced, shortened or rewritten, and every new file or run, is
        left to the next reload. Does nothing while a reload runs."""
        if not self._reload_lock.acquire(blocking=False):
            return 0
        try:
            since = time.monotonic() - within
            batch, count = TailBatch(), 0
            for name, run in list(self._growing.items()):
                if self._runs.get(name) is not run:  # gone, or moved to another directory
                    del self._growing[name]
                    continue
                if run.grew < since:  # quiet for now
                    continue
                reads = []
                for file_name in sorted(run.files):
                    file_state = run.files[file_name]
                    if file_state.damaged or file_state.grew < since:
                        continue
                    try:
                        st = os.stat(file_state.path)
                    except OSError:
                        continue
                    now = (file_state.path, (st.st_dev, st.st_ino), st.st_size, st.st_mtime_ns)
                    if st.st_size == file_state.offset or _replaced(file_state, now):
                        continue
                    reads.append((file_state, *now[1:]))
                if reads and read_new_bytes(run.state, reads, batch):
                    run.grew = time.monotonic()
                    count += len(reads)
            batch.flush()
            return count
        finally:
            self._reload_lock.release()


def _started_over(files: dict, current: dict) -> bool:
    """True when a file read before is gone, replaced (another inode, or its last bytes read differ:
    inodes are reused) or shorter than what was read."""
    return any(_replaced(state, current.get(name)) for name, state in files.items())


def _replaced(state: ServedFile, now: tuple | None) -> bool:
    """True when the file read as `state`, stat'ed `now` as (path, identity, size, mtime) or gone (None),
    is no longer the bytes that were read: gone, another inode, shorter, or its last bytes read differ."""
    if now is None or now[1] != state.identity or now[2] < state.offset:
        return True
    return now[3] != state.mtime and bool(state.mark) and _bytes_before(state.path, state.offset) != state.mark


def _bytes_before(path: str, offset: int) -> bytes:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, offset - MARK_BYTES))
            return f.read(min(offset, MARK_BYTES))
    except OSError:
        return b""
