"""The first read of a local logdir, started by the launcher before the web server's imports, in worker
processes forked once the reader's modules are imported: the logdir is read on the other core while the
server starts, and on both once it waits.

A worker reads its share of the runs (by a hash of the run name) exactly as the server would, with a
Logdir of the same roots, sizes, purge rule and selection, then sends each run's data and read state
in pickled chunks through a pipe. The server's first reload adopts them when its own parameters are
the same (anything else, or a failed worker, and it reads the logdir itself) and then reads only what
was appended since, as every later reload does. Where os.fork is missing nothing is preloaded.
"""
from __future__ import annotations

import gc
import logging
import os
import pickle
import sys
import threading
import time
import zlib

logger = logging.getLogger("tensorboard.serving")

# Upstream's default sizes (backend.event_processing.data_ingester: points kept per tag by plugin, and for
# other plugins), written out so a worker need not import upstream's loader (a tenth of a second, boto3
# included); the server's first reload adopts nothing unless its own sizes are these (tests check them).
UPSTREAM_SIZES = {"scalars": 1000, "images": 10, "audio": 10, "histograms": 500, "pr_curves": 100}
UPSTREAM_DEFAULT_SIZE = 10
CHUNK_RUNS = 100  # runs read, then sent, at a time: what a worker holds
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
        # No collections until the runs are adopted: unpickling them allocates many objects, and each full
        # collection would walk the growing heap again (the first load of 10,000 runs takes a quarter less).
        self._collect = gc.isenabled()
        gc.disable()
        for index in range(workers):
            read_fd, write_fd = os.pipe()
            _widen(write_fd)
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
        try:
            yield from self._chunks(plan)
        finally:
            self._restore_collection()

    def _chunks(self, plan: tuple):
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

    def _restore_collection(self) -> None:
        if self._collect:
            self._collect = False
            gc.enable()

    def cancel(self) -> None:
        """Stops the workers (the server reads the logdir itself, or serves it another way)."""
        self._restore_collection()
        for pid in self._pids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass


class PreloadMismatch(Exception):
    """The workers read with parameters other than the server's."""


class PreloadFailed(Exception):
    """A worker could not read its share."""


def _widen(fd: int) -> None:
    """A pipe buffer of up to 1 MiB (Linux; 64 KiB by default), so a worker rarely waits for the server to
    take a chunk while the server is busy starting."""
    try:
        import fcntl  # pylint: disable=import-outside-toplevel

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass


def _native_expected() -> bool:
    """Whether upstream's native data server binary is there (upstream's lookup: the environment variable,
    then the tensorboard_data_server package), without importing upstream's server code."""
    explicit = os.environ.get("TENSORBOARD_DATA_SERVER_BINARY")
    if explicit:
        return os.path.isfile(explicit)
    try:
        import tensorboard_data_server  # pylint: disable=import-outside-toplevel

        binary = tensorboard_data_server.server_binary()
    except Exception:  # pylint: disable=broad-except  (no package, or no binary for this platform)
        return False
    return bool(binary) and os.path.isfile(binary)


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
    started, cpu = time.perf_counter(), time.process_time()
    try:
        from tensorboard.serving._logdir import Logdir  # imported before the fork: no cost here

        logdir = Logdir({root: None}, dict(UPSTREAM_SIZES), UPSTREAM_DEFAULT_SIZE, purge_orphaned_data=purge,
                        selection=selection, share=(index, count))
        pickle.dump(("plan", logdir.plan()), out, protocol=pickle.HIGHEST_PROTOCOL)
        for chunk in logdir.read_in_chunks(CHUNK_RUNS):
            pickle.dump(("runs", chunk), out, protocol=pickle.HIGHEST_PROTOCOL)
        pickle.dump(("done",), out)
        if os.environ.get("TENSORBOARD_STANDALONE_VERBOSE"):
            print(f"preload worker {index + 1} of {count}: read and sent in {time.perf_counter() - started:.3f} s "
                  f"({time.process_time() - cpu:.3f} s of CPU)", file=sys.stderr, flush=True)
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
        # The reader's modules first (the server needs them anyway): workers forked after share them
        # with the server instead of importing their own copies, and start reading at once.
        import tensorboard.serving._logdir  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import

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
                 "purge_orphaned_data", "runs", "exclude", "group_runs", "db", "db_import", "detect_file_replacement"):
        parser.add_argument("--" + flag)
    try:
        known, _ = parser.parse_known_args(args)
    except SystemExit:
        return
    provider = known.data_provider or "auto"
    # auto: ours where upstream would not start its native server (serving.paths.choose decides the same;
    # should it decide otherwise, the server cancels the preload)
    ours = provider == "standalone" or (
        provider == "auto" and not known.grpc_data_provider and known.load_fast != "true"
        and (known.load_fast == "false" or known.detect_file_replacement == "true"
             or any(v is not None for v in (known.runs, known.exclude, known.group_runs)) or not _native_expected()))
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
