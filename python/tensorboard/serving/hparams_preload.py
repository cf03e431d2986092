"""The runs' hyperparameters of a local logdir, found in a process forked as the launcher starts
(serving.served_hparams takes them at its first update).

At that moment the server imports its modules on one core and the other core is idle: the preload's
workers (serving.preload) start reading only once the reader's modules are imported. Finding the
hyperparameters (a walk of the logdir, then reading and parsing every configuration file) costs about
as long as those imports, so the child does it then, instead of the server, whose reload thread would
hold the interpreter's lock while the first screen's requests wait. The child imports only the light
modules it needs, walks the logdir as the server lists it (`logdir.discovery`, the run names of
`logdir.names`), discovers with a fresh ConfigCache (`logdir.hparams_sources`), sends one `Discovered`
pickled through a pipe and exits. The server takes it at its first reload when it covers every run read
(and the cache's entries with it, so unchanged files are not read again); otherwise, or when the child
failed, it discovers itself.

With --where or --over the first screen waits for the hyperparameters (they decide which runs are
served), so the child runs at the server's priority. Otherwise they are wanted only after the first
screen, and the child runs at the lowest priority (nice 19): it takes a core only while one is idle, and
never slows the first load of a logdir large enough to keep both cores reading. The server's reload
thread, which asks for the result once the first screen is served, then waits up to PATIENCE_S for it:
once the reading is done the child has a core. A child still at work after that (on a machine kept busy
by training it might not run for long) is stopped, and the server discovers itself."""
from __future__ import annotations

import logging
import os
import pickle
from typing import NamedTuple

logger = logging.getLogger("tensorboard.serving")
PATIENCE_S = 10.0  # the longest wait for a child at the lowest priority (a few times its work at 10,000 runs)


class Discovered(NamedTuple):
    """What the child found: {run: {key: HParam}} of every run below the logdir, the ConfigCache's
    entries ({path: (stamp, parsed or None)}) and the files that could not be used, as (path, line,
    reason), for the server to warn about."""

    hparams: dict
    cache_entries: dict
    unusable: list


class HParamsPreload:
    """A child process discovering the hyperparameters of the runs below `root`, forked at once."""

    def __init__(self, root: str, hparams_file: str | None, urgent: bool = True):
        """`urgent`: the first screen waits for the result (--where, --over); otherwise the child yields
        the processor to every other process (nice 19)."""
        self.root, self.hparams_file, self.urgent = root, hparams_file, urgent
        read_fd, write_fd = os.pipe()
        server = os.getpid()
        self.pid = os.fork()  # the child's
        if self.pid == 0:  # the child: discovers, sends, exits without the parent's exit hooks
            os.close(read_fd)
            _end_with(server)
            if not urgent:
                _lowest_priority()
            _discover_and_send(root, hparams_file, write_fd)
        os.close(write_fd)
        self._stream = os.fdopen(read_fd, "rb")
        self._result: Discovered | None = None

    def result(self) -> Discovered | None:
        """The child's discovery (None when it failed: the server discovers itself): waited for when
        urgent; otherwise for at most PATIENCE_S, and the child is stopped if it has not finished then."""
        if self._stream is not None and not self.urgent and not self.done(PATIENCE_S):
            self.cancel()
        if self._stream is not None:
            try:
                message = pickle.load(self._stream)
            except Exception:  # pylint: disable=broad-except  (the child died: EOFError, a truncated pickle)
                message = None
            self._close()
            if isinstance(message, str):  # the child's error: the server discovers itself
                logger.warning("finding the runs' configuration files at start-up: %s", message)
            self._result = message if isinstance(message, Discovered) else None
        return self._result

    def done(self, wait: float = 0.0) -> bool:
        """Whether the child has finished (its result, or its end, waits in the pipe, or was taken), waiting
        up to `wait` seconds for it."""
        import select  # pylint: disable=import-outside-toplevel

        return self._stream is None or bool(select.select([self._stream], [], [], wait)[0])

    def cancel(self) -> None:
        """Stops the child (nobody will take its result)."""
        if self._stream is not None:
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass
            self._close()

    def _close(self) -> None:
        stream, self._stream = self._stream, None
        stream.close()
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _end_with(server: int) -> None:
    """Has the kernel stop this child when the server's process ends (Linux: PR_SET_PDEATHSIG), so that
    a server stopped by a signal leaves nothing walking its logdir; elsewhere the child ends when it
    finds the pipe closed, at its end."""
    try:
        import ctypes  # pylint: disable=import-outside-toplevel

        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError, ImportError):  # not Linux: no prctl
        return
    if os.getppid() != server:  # the server ended before the call
        os._exit(1)


def _lowest_priority() -> None:
    try:
        os.nice(19)  # clamped at the system's lowest
    except (AttributeError, OSError):  # no nice(2) here: the child runs at the server's priority
        pass


def _discover_and_send(root: str, hparams_file: str | None, fd: int) -> None:
    status = 0
    try:
        with os.fdopen(fd, "wb") as out:
            try:
                found = discover_below(root, hparams_file)
            except Exception as err:  # pylint: disable=broad-except  (the server discovers itself, and says why)
                found, status = f"{type(err).__name__}: {err}", 1
            pickle.dump(found, out, protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # pylint: disable=broad-except  (the parent went away: nothing to tell)
        status = 1
    finally:
        os._exit(status)


def discover_below(root: str, hparams_file: str | None) -> Discovered:
    """The hyperparameters of every run below the local logdir `root`, named and found as the server's
    Logdir lists them (its walk, with the names of the configuration files each directory holds)."""
    from tensorboard.events.storage import storage_for
    from tensorboard.logdir.discovery import Listing, local_run_directories
    from tensorboard.logdir.hparams_sources import ConfigCache, discover_hparams

    walked: dict[str, frozenset] = {}
    directories = {name: directory for name, (directory, _) in local_run_directories(root, walked).items()}
    unusable: list = []
    cache = ConfigCache()
    hparams = discover_hparams(Listing(storage_for(root), [], root=root, config_names=walked), hparams_file,
                               warn=lambda err: unusable.append((err.path, err.line, err.reason)), cache=cache,
                               directories=directories)
    return Discovered(hparams, cache.entries, unusable)
