"""The runs of a logdir (or of a --logdir_spec), kept current: each reload finds new, deleted and
replaced runs and files, and reads only the bytes appended to each file since the last reload."""
from __future__ import annotations

import logging
import os
import threading

from tensorboard.serving._reading import MARK_BYTES, FileState, read_appended
from tensorboard.serving._run import RunState

logger = logging.getLogger("tensorboard.serving")


def is_summary_events_file(name: str) -> bool:
    """Upstream's rule: the name holds 'tfevents' and is no '.profile-empty' placeholder."""
    return "tfevents" in name and not name.endswith(".profile-empty")


def run_directories(root: str) -> list[str]:
    """Directories under `root` (itself included) holding at least one event file, in walk order."""
    found = []
    for directory, _, files in os.walk(root):
        if any(is_summary_events_file(f) for f in files):
            found.append(directory)
    return found


class _Run:
    """A run's directory, its files' read state and its data (swapped whole when the run starts over)."""

    def __init__(self, directory: str, state: RunState):
        self.directory = directory
        self.state = state
        self.files: dict[str, FileState] = {}


class Logdir:
    """Every run under the given roots, keyed by run name as upstream's multiplexer names them."""

    def __init__(self, roots: dict, size_guidance: dict, default_size: int, purge_orphaned_data: bool = True):
        self._roots = roots  # path -> run name prefix (None: the logdir itself)
        self._sizes = size_guidance
        self._default_size = default_size
        self._purge = purge_orphaned_data
        self._runs: dict[str, _Run] = {}
        self._reload_lock = threading.Lock()
        self.loaded = threading.Event()  # set after the first complete reload

    def runs(self) -> dict[str, RunState]:
        """Run name -> its data, a snapshot (safe to iterate while a reload goes on)."""
        return {name: run.state for name, run in list(self._runs.items())}

    def _new_state(self, name: str) -> RunState:
        return RunState(name, self._sizes, self._default_size, self._purge)

    def reload(self) -> None:
        """Finds runs and files, drops vanished ones, reads what was appended since the last reload."""
        with self._reload_lock:
            found: dict[str, str] = {}
            for root, prefix in self._roots.items():
                root = os.path.expanduser(root)
                for directory in run_directories(root):
                    rel = os.path.relpath(directory, root)
                    found.setdefault(os.path.join(prefix, rel) if prefix else rel, directory)
            for name in [n for n in self._runs if n not in found]:
                del self._runs[name]
            for name, directory in found.items():
                run = self._runs.get(name)
                if run is None or run.directory != directory:
                    run = self._runs[name] = _Run(directory, self._new_state(name))
                try:
                    self._reload_run(run)
                except OSError as err:  # the run vanished while being read: the next reload drops it
                    logger.warning("reading run %r: %s", name, err)
            self.loaded.set()

    def _reload_run(self, run: _Run) -> None:
        names = sorted(f for f in os.listdir(run.directory) if is_summary_events_file(f))
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
        if restart:  # read into fresh data; readers keep the old until the swap below
            state, files = self._new_state(state.name), {}
        for name in sorted(current):
            path, identity, size, mtime = current[name]
            file_state = files.get(name)
            if file_state is None:
                file_state = files[name] = FileState(path, identity)
            if file_state.damaged or size <= file_state.offset:
                file_state.mtime = mtime
                continue
            with open(path, "rb") as stream:
                st = os.fstat(stream.fileno())
                if (st.st_dev, st.st_ino) != identity:
                    continue  # replaced between stat and open: the next reload starts over
                read_appended(state, file_state, stream)
                file_state.mtime = mtime
        if restart:
            run.state, run.files = state, files


def _started_over(files: dict, current: dict) -> bool:
    """True when a file read before is gone, replaced (another inode, or its last bytes read differ:
    inodes are reused) or shorter than what was read."""
    for name, state in files.items():
        now = current.get(name)
        if now is None or now[1] != state.identity or now[2] < state.offset:
            return True
        if now[3] != state.mtime and state.mark and _bytes_before(state.path, state.offset) != state.mark:
            return True
    return False


def _bytes_before(path: str, offset: int) -> bytes:
    try:
        with open(path, "rb") as f:
            f.seek(max(0, offset - MARK_BYTES))
            return f.read(min(offset, MARK_BYTES))
    except OSError:
        return b""
