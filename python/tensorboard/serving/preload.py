"""The first read of a local logdir, started by the launcher before the web server's imports, in worker
processes forked once the reader's modules are imported: the logdir is read on the other core while the
server starts, and on both once it waits.

The runs are listed once, from the walk the hyperparameters' child made while the server imported its
modules (serving.hparams_preload; walked here when it failed), and cut into chunks; a pipe holds one
token per chunk, and whoever is free takes the next: each worker, and the server itself once it has
started and no worker's chunk is waiting for it. A worker reads its chunks exactly as the server would,
with a Logdir of the same roots, sizes, purge rule and selection, and sends each chunk's runs (data and
read state) pickled through a pipe of its own. The server's first reload adopts them when its own
parameters are the same (anything else, and it reads the logdir itself), reads any chunk a failed worker
left, and then reads only what was appended since, as every later reload does. Where os.fork is missing
nothing is preloaded.
"""
from __future__ import annotations

import gc
import logging
import os
import pickle
import sys
import threading
import time

from tensorboard.serving.rule import ours_serves

logger = logging.getLogger("tensorboard.serving")

# Upstream's default sizes (backend.event_processing.data_ingester: points kept per tag by plugin, and for
# other plugins), written out so a worker need not import upstream's loader (a tenth of a second, boto3
# included); the server's first reload adopts nothing unless its own sizes are these (tests check them).
UPSTREAM_SIZES = {"scalars": 1000, "images": 10, "audio": 10, "histograms": 500, "pr_curves": 100}
UPSTREAM_DEFAULT_SIZE = 10
CHUNK_RUNS = 100  # runs read, then sent, at a time: what a worker holds
MOST_CHUNKS = 1024  # tokens of 4 bytes: the pipe takes them all at once on every system; more runs, larger chunks
TWO_WORKERS_FROM = 2000  # runs from which a second worker reads beside the first
_TOKEN = 4


class Preload:
    """Worker processes reading one local logdir; `runs(read_here)` yields its runs as they arrive."""

    def __init__(self, root: str, purge: bool = True, selection=None, workers: int | None = None,
                 per_chunk: int = CHUNK_RUNS, walk=None):
        """`walk`: the logdir's walk, made by the hyperparameters' child (serving.hparams_preload.Walk);
        None: walked here."""
        from tensorboard.serving.served_logdir import Logdir  # pylint: disable=import-outside-toplevel

        self.root = root
        self.hparams = None  # the serving.hparams_preload.HParamsPreload of the same logdir
        # No collections until the runs are adopted: unpickling them allocates many objects, and each full
        # collection would walk the growing heap again (the first load of 10,000 runs takes a quarter less).
        self._collect = gc.isenabled()
        gc.disable()
        # lists the runs here, then reads chunks of them in each worker (forked with it)
        self._reader = Logdir({root: None}, dict(UPSTREAM_SIZES), UPSTREAM_DEFAULT_SIZE, purge_orphaned_data=purge,
                              selection=selection)
        self.plan = self._reader.plan()
        self.found = self._reader.listing(walk)  # run name -> where, in the order a server lists them
        self.walked = self._reader.walked  # what the listing's walk saw of configuration files (served_logdir)
        names = list(self.found)
        per_chunk = max(per_chunk, -(-len(names) // MOST_CHUNKS))
        self.parts = [names[k:k + per_chunk] for k in range(0, len(names), per_chunk)]
        if workers is None:
            workers = 2 if len(names) >= TWO_WORKERS_FROM and (os.cpu_count() or 1) > 1 else 1
        self._claims, tokens = os.pipe()
        os.write(tokens, b"".join(k.to_bytes(_TOKEN, "little") for k in range(len(self.parts))))
        os.close(tokens)  # no writer left: a claim on an empty pipe returns at once, with nothing
        self._pids: list[int] = []
        self._readers: list = []
        for index in range(workers):
            read_fd, write_fd = os.pipe()
            widen_pipe(write_fd)
            pid = os.fork()
            if pid == 0:  # the worker: reads, sends, exits without the parent's exit hooks
                os.close(read_fd)
                self._work(index, workers, write_fd)
            os.close(write_fd)
            self._pids.append(pid)
            self._readers.append(os.fdopen(read_fd, "rb"))
        self._messages: list[list] = [[] for _ in self._readers]
        self._arrived = threading.Condition()
        self._threads = [threading.Thread(target=self._drain, args=(k,), name="StandalonePreload", daemon=True)
                         for k in range(workers)]
        for thread in self._threads:
            thread.start()

    def claim(self) -> int | None:
        """The index of the next chunk nobody has taken (it is the caller's to read), or None."""
        try:
            token = os.read(self._claims, _TOKEN) if self._claims is not None else b""
        except OSError:
            return None
        index = int.from_bytes(token, "little") if len(token) == _TOKEN else -1
        return index if 0 <= index < len(self.parts) else None

    def part(self, index: int) -> dict:
        """Run name -> where, of chunk `index`."""
        return {name: self.found[name] for name in self.parts[index]}

    def _work(self, index: int, count: int, fd: int) -> None:
        """A worker's life: read chunks while there are any, send them, exit."""
        status = 0
        out = os.fdopen(fd, "wb")
        started, cpu = time.perf_counter(), time.process_time()
        try:
            while (chunk := self.claim()) is not None:
                pickle.dump(("runs", chunk, self._reader.read_part(self.part(chunk))), out,
                            protocol=pickle.HIGHEST_PROTOCOL)
            pickle.dump(("done",), out)
            if os.environ.get("TENSORBOARD_STANDALONE_VERBOSE"):
                print(f"preload worker {index + 1} of {count}: read and sent in "
                      f"{time.perf_counter() - started:.3f} s ({time.process_time() - cpu:.3f} s of CPU)",
                      file=sys.stderr, flush=True)
        except BaseException as err:  # pylint: disable=broad-except  (the server reads what is missing)
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

    def runs(self, read_here):
        """Yields (name, directory, RunState, files) of every listed run: the workers' as they arrive, and
        those of the chunks `read_here(part)` reads in this process (each a list of the same tuples):
        chunks nobody took yet, whenever no worker's chunk waits, and any a failed worker left unsent.
        The caller checks first that `plan` is its own."""
        try:
            yield from self._runs(read_here)
        finally:
            self._close_claims()
            self._restore_collection()

    def _runs(self, read_here):
        received: set[int] = set()
        finished = 0
        while finished < len(self._messages):
            with self._arrived:
                ready = [m for queue in self._messages for m in queue]
                for queue in self._messages:
                    queue.clear()  # what was handed over is the caller's now
            if not ready:
                chunk = self.claim()
                if chunk is not None:
                    received.add(chunk)
                    yield from read_here(self.part(chunk))
                    continue
                with self._arrived:
                    while not any(self._messages):
                        self._arrived.wait()
                continue
            for message in ready:
                if message[0] == "runs":
                    received.add(message[1])
                    yield from message[2]
                else:
                    finished += 1
                    if message[0] == "error":
                        logger.info("a preload worker failed (%s): its chunks are read here", message[1])
        for chunk in range(len(self.parts)):
            if chunk not in received:
                yield from read_here(self.part(chunk))

    def _restore_collection(self) -> None:
        if self._collect:
            self._collect = False
            # What was adopted lives as long as the server: frozen, collections no longer walk it (a full
            # collection over 10,000 runs would otherwise pause a request for a tenth of a second).
            gc.freeze()
            gc.enable()

    def _close_claims(self) -> None:
        if self._claims is not None:
            os.close(self._claims)
            self._claims = None

    def cancel(self) -> None:
        """Stops the workers (the server reads the logdir itself, or serves it another way)."""
        if self.hparams is not None:
            self.hparams.cancel()
        self._close_claims()
        self._restore_collection()
        for pid in self._pids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass


def widen_pipe(fd: int) -> None:
    """A pipe buffer of up to 1 MiB (Linux; 64 KiB by default), so a child rarely waits for the server to
    take what it sends (a worker's chunk, the walk) while the server is busy starting."""
    try:
        import fcntl  # pylint: disable=import-outside-toplevel

        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), 1 << 20)
    except (ImportError, OSError):
        pass


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


_pending: Preload | None = None


def start(root: str, purge: bool = True, selection=None, hparams_decide_runs: bool = False,
          hparams_file: str | None = None) -> None:
    """Starts reading `root` in worker processes, for the server's first reload to take, after starting
    the child that walks it (the runs are listed from its walk) and discovers its runs' hyperparameters
    (serving.hparams_preload), which the first screen waits for when they decide which runs are served
    (`hparams_decide_runs`: --where, --over)."""
    global _pending
    if _pending is None and hasattr(os, "fork") and os.path.isdir(root):
        from tensorboard.serving.hparams_preload import HParamsPreload  # pylint: disable=import-outside-toplevel

        # forked first: it walks the logdir on the other core, idle while the imports below run
        early = HParamsPreload(root, hparams_file, urgent=hparams_decide_runs)
        try:
            # The reader's modules first (the server needs them anyway): workers forked after share them
            # with the server instead of importing their own copies, and start reading at once.
            import tensorboard.serving.served_logdir  # noqa: F401  pylint: disable=import-outside-toplevel,unused-import

            _import_lazy_numpy_parts()
            _pending = Preload(root, purge, selection, walk=early.walk())
        except BaseException:
            early.cancel()
            raise
        _pending.hparams = early


def _import_lazy_numpy_parts() -> None:
    """NumPy's masked arrays, which np.unique imports at its first call (NumPy 2): before the fork, or the
    worker and the server would each import them (25 ms) while reading."""
    import numpy as np  # pylint: disable=import-outside-toplevel

    np.unique(np.zeros(1, np.int64))


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
                 "purge_orphaned_data", "runs", "exclude", "group_runs", "db", "db_import", "detect_file_replacement",
                 "where", "over", "hparams_file"):
        parser.add_argument("--" + flag)
    try:
        known, _ = parser.parse_known_args(args)
    except SystemExit:
        return
    run_flags = any(v is not None for v in (known.runs, known.exclude, known.group_runs))
    ours = ours_serves(known.data_provider, known.grpc_data_provider, known.load_fast, run_flags)
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
    start(os.path.expanduser(known.logdir), True, selection,
          hparams_decide_runs=known.where is not None or bool(known.over), hparams_file=known.hparams_file)
