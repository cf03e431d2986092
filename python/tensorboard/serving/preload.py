"""The first read of a local logdir, started by the launcher before the web server's imports, in worker
processes: the logdir is read on the other core while the server starts, and on both once it waits.

A worker reads its share of the runs (by a hash of the run name) exactly as the server would, with a
Logdir of the same roots, sizes, purge rule and selection, then sends each run's data and read state
in pickled chunks through a pipe. The server's first reload adopts them when its own parameters are
the same (anything else, or a failed worker, and it reads the logdir itself) and then reads only what
was appended since, as every later reload does. Where os.fork is missing nothing is preloaded.
"""
from __future__ import annotations

import logging
import os
import pickle
import threading
import zlib

logger = logging.getLogger("tensorboard.serving")

CHUNK_RUNS = 200  # runs per pickled message: bounds what a worker holds twice while sending
TWO_WORKERS_FROM = 2000  # top-level entries of the logdir from which a second worker reads half


def share_of(name: str, count: int) -> int:
    """Which of `count` workers reads run `name`."""
    return zlib.crc32(name.encode("utf-8", "surrogateescape")) % count


class Preload:
    """Worker processes reading one local logdir; `chunks(plan)` yields their runs as they arrive."""

    def __init__(self, root: str, purge: bool = True, selection=None, workers: int | None = None):
        self.root = root
        if workers is None:
            workers = 2 if _entries(root) >= TWO_WORKERS_FROM and (os.cpu_count() or 1) > 1 else 1
        self._pids: list[int] = []
        self._readers: list = []
        for index in range(workers):
            read_fd, write_fd = os.pipe()
            pid = os.fork()
            if pid == 0:  # the worker: reads, sends, exits without the parent's exit hooks
                os.close(read_fd)
                _work(root, purge, selection, index, workers, write_fd)
            os.close(write_fd)
            self._pids.append(pid)
            self._readers.append(os.fdopen(read_fd, "rb"))
        self._messages: list[list] = [[] for _ in self._readers]
        self._arrived = threading.Condition()
        self._threads = [threading.Thread(target=self._drain, args=(k,), name="StandalonePreload", daemon=True)
                         for k in range(workers)]
        for thread in self._threads:
            thread.start()

    def _drain(self, k: int) -> None:
        """Unpickles worker k's messages as they come (so the worker can free what it sent)."""
        stream = self._readers[k]
        try:
            while True:
                try:
                    message = pickle.load(stream)
                except EOFError:
                    message = ("error", "the worker ended without finishing")
                with self._arrived:
                    self._messages[k].append(message)
                    self._arrived.notify_all()
                if message[0] in ("done", "error"):
                    break
        finally:
            stream.close()
            _reap(self._pids[k])

    def chunks(self, plan: tuple):
        """Yields lists of (run name, directory, RunState, files) from every worker, or raises
        PreloadMismatch (nothing yielded) when a worker read with another plan than `plan`, and
        PreloadFailed when a worker failed (the caller then reads what is missing itself)."""
        positions = [0] * len(self._messages)
        checked = [False] * len(self._messages)
        finished = 0
        while finished < len(self._messages):
            with self._arrived:
                while all(positions[k] >= len(self._messages[k]) for k in range(len(self._messages))):
                    self._arrived.wait()
                ready = [(k, self._messages[k][positions[k]]) for k in range(len(self._messages))
                         if positions[k] < len(self._messages[k])]
            for k, message in ready:
                positions[k] += 1
                self._messages[k][positions[k] - 1] = None  # what was handed over is the caller's now
                kind = message[0]
                if kind == "plan":
                    if message[1] != plan:
                        raise PreloadMismatch("the preload read with other parameters")
                    checked[k] = True
                elif kind == "runs":
                    if not checked[k]:
                        raise PreloadMismatch("runs before the plan")
                    yield message[1]
                elif kind == "error":
                    raise PreloadFailed(message[1])
                else:
                    finished += 1

    def cancel(self) -> None:
        """Stops the workers (the server reads the logdir itself, or serves it another way)."""
        for pid in self._pids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass


class PreloadMismatch(Exception):
    """The workers read with parameters other than the server's."""


class PreloadFailed(Exception):
    """A worker could not read its share."""


def _entries(root: str) -> int:
    try:
        with os.scandir(root) as found:
            return sum(1 for _ in found)
    except OSError:
        return 0


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _work(root: str, purge: bool, selection, index: int, count: int, fd: int) -> None:
    """A worker's life: read its share of `root`, send it, exit."""
    status = 0
    out = os.fdopen(fd, "wb")
    try:
        from tensorboard.serving._logdir import Logdir
        from tensorboard.serving.ingester import size_guidance

        sizes, default = size_guidance(None)
        logdir = Logdir({root: None}, sizes, default, purge_orphaned_data=purge, selection=selection,
                        share=(index, count))
        logdir.reload()
        pickle.dump(("plan", logdir.plan()), out, protocol=pickle.HIGHEST_PROTOCOL)
        for chunk in logdir.hand_over(CHUNK_RUNS):
            pickle.dump(("runs", chunk), out, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump(("done",), out)
    except BaseException as err:  # pylint: disable=broad-except  (the server reads the logdir itself)
        status = 1
        try:
            pickle.dump(("error", f"{type(err).__name__}: {err}"), out)
        except Exception:  # pylint: disable=broad-except
            pass
    finally:
        try:
            out.close()
        finally:
            os._exit(status)


_pending: Preload | None = None


def start(root: str, purge: bool = True, selection=None) -> None:
    """Starts reading `root` in worker processes, for the server's first reload to take."""
    global _pending
    if _pending is None and hasattr(os, "fork") and os.path.isdir(root):
        _pending = Preload(root, purge, selection)


def take_pending(root: str) -> Preload | None:
    """The preload of `root`, handed over once (None when there is none)."""
    global _pending
    preload, _pending = _pending, None
    if preload is not None and os.path.abspath(preload.root) != os.path.abspath(root):
        preload.cancel()
        return None
    return preload


def cancel_pending() -> None:
    """Stops a preload nobody will take (another data path serves the logdir)."""
    global _pending
    if _pending is not None:
        _pending.cancel()
        _pending = None


def start_for(args: list[str]) -> None:
    """Starts a preload when the `tensorboard` arguments `args` serve one local --logdir through our
    reader with the default sizes and purge rule (any other case: the server reads as it always does)."""
    import argparse

    parser = argparse.ArgumentParser(add_help=False, allow_abbrev=False)
    for flag in ("logdir", "logdir_spec", "data_provider", "load_fast", "grpc_data_provider", "samples_per_plugin",
                 "purge_orphaned_data", "runs", "exclude", "db", "db_import"):
        parser.add_argument("--" + flag)
    try:
        known, _ = parser.parse_known_args(args)
    except SystemExit:
        return
    provider = known.data_provider or "auto"
    ours = provider == "standalone" or (provider == "auto" and known.load_fast != "true"
                                         and not known.grpc_data_provider)
    if (not ours or not known.logdir or known.logdir_spec or "://" in known.logdir or known.samples_per_plugin
            or known.db or known.db_import or known.purge_orphaned_data not in (None, "true")):
        return
    selection = None
    if known.runs is not None or known.exclude is not None:
        from tensorboard.logdir.selection import CLI_FLAGS, Selection

        try:
            selection = Selection.of(known.runs, exclude=known.exclude, flags=CLI_FLAGS)
        except (TypeError, ValueError):
            return  # the server refuses the flag, naming it
    start(os.path.expanduser(known.logdir), True, selection)
