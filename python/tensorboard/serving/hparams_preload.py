"""The runs' hyperparameters of a local logdir, found in a process forked as the launcher starts, when
--where or --over needs them before the first screen (serving.served_hparams).

At that moment the server imports its modules on one core and the other core is idle: the preload's
workers (serving.preload) start reading only once the reader's modules are imported. Finding the
hyperparameters (a walk of the logdir, then reading and parsing every configuration file) costs about
as long as those imports, so the child does it then, instead of the server beside its reading. The
child imports only the light modules it needs, walks the logdir as the server lists it
(`logdir.discovery`, the run names of `logdir.names`), discovers with a fresh ConfigCache
(`logdir.hparams_sources`), sends one `Discovered` pickled through a pipe and exits. The server takes it
at its first reload when it covers every run read (and the cache's entries with it, so unchanged files
are not read again); otherwise, or when the child failed, it discovers itself."""
from __future__ import annotations

import logging
import os
import pickle
from typing import NamedTuple

logger = logging.getLogger("tensorboard.serving")


class Discovered(NamedTuple):
    """What the child found: {run: {key: HParam}} of every run below the logdir, the ConfigCache's
    entries ({path: (stamp, parsed or None)}) and the files that could not be used, as (path, line,
    reason), for the server to warn about."""

    hparams: dict
    cache_entries: dict
    unusable: list


class HParamsPreload:
    """A child process discovering the hyperparameters of the runs below `root`, forked at once."""

    def __init__(self, root: str, hparams_file: str | None):
        self.root, self.hparams_file = root, hparams_file
        read_fd, write_fd = os.pipe()
        self._pid = os.fork()
        if self._pid == 0:  # the child: discovers, sends, exits without the parent's exit hooks
            os.close(read_fd)
            _discover_and_send(root, hparams_file, write_fd)
        os.close(write_fd)
        self._stream = os.fdopen(read_fd, "rb")
        self._result: Discovered | None = None

    def result(self) -> Discovered | None:
        """The child's discovery, waited for (None when it failed: the server discovers itself)."""
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

    def cancel(self) -> None:
        """Stops the child (nobody will take its result)."""
        if self._stream is not None:
            try:
                os.kill(self._pid, 9)
            except ProcessLookupError:
                pass
            self._close()

    def _close(self) -> None:
        stream, self._stream = self._stream, None
        stream.close()
        try:
            os.waitpid(self._pid, 0)
        except ChildProcessError:
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
