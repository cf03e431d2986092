"""The walk of a local logdir and its runs' hyperparameters, found in a process forked as the launcher
starts (serving.preload lists the runs from the walk; serving.served_hparams takes the hyperparameters at
its first update).

At that moment the server imports its modules on one core and the other core is idle. The child walks
the logdir then, as the server lists it (`logdir.discovery`, the run names of `logdir.names`, the
configuration files each directory holds), and sends the walk at once: the preload (serving.preload)
lists the runs from it instead of walking again once its modules are imported, and its workers start
reading sooner. The child then discovers the hyperparameters from the same walk with a fresh ConfigCache
(`logdir.hparams_sources`), sends one `Discovered` and exits. It imports only the light modules it
needs. The server takes the discovery at its first reload when it covers every run read (and the
cache's entries with it, so unchanged files are not read again); otherwise, or when the child failed,
it discovers itself. A child that fails before its walk leaves the preload to walk itself.

With --where or --over the first screen waits for the hyperparameters (they decide which runs are
served), so the child runs at the server's priority throughout. Otherwise they are wanted only after the
first screen, and once the walk is sent the child drops to the lowest priority (nice 19): it takes a
core only while one is idle, and never slows the first load of a logdir large enough to keep both cores
reading. The server's reload thread, which asks for the result once the first screen is served, then
waits up to PATIENCE_S for it: once the reading is done the child has a core. A child still at work after
that (on a machine kept busy by training it might not run for long) is stopped, and the server discovers
itself.

Messages are pickles, each after its length (8 bytes), read with os.read: no buffer in this process
holds a message that select() on the pipe would not see."""
from __future__ import annotations

import logging
import os
import pickle
from typing import NamedTuple

logger = logging.getLogger("tensorboard.serving")
PATIENCE_S = 10.0  # the longest wait for a child at the lowest priority (a few times its work at 10,000 runs)


class Walk(NamedTuple):
    """The logdir's walk, as `logdir.discovery.local_run_directories` gives it: {run name: (its directory,
    its event file names)} and {directory: the names of its configuration files} of every directory."""

    runs: dict
    configs: dict


class Discovered(NamedTuple):
    """What the child found: {run: {key: HParam}} of every run below the logdir, the ConfigCache's
    entries ({path: (stamp, parsed or None)}) and the files that could not be used, as (path, line,
    reason), for the server to warn about."""

    hparams: dict
    cache_entries: dict
    unusable: list


class HParamsPreload:
    """A child process walking the logdir `root` and discovering its runs' hyperparameters, forked at once."""

    def __init__(self, root: str, hparams_file: str | None, urgent: bool = True):
        """`urgent`: the first screen waits for the result (--where, --over); otherwise the child yields
        the processor to every other process (nice 19) once its walk is sent."""
        self.root, self.hparams_file, self.urgent = root, hparams_file, urgent
        from tensorboard.serving.preload import widen_pipe  # pylint: disable=import-outside-toplevel

        read_fd, write_fd = os.pipe()
        widen_pipe(write_fd)  # the walk of a few thousand runs is sent while the server imports, not after
        server = os.getpid()
        self.pid = os.fork()  # the child's
        if self.pid == 0:  # the child: walks, sends, discovers, sends, exits without the parent's exit hooks
            os.close(read_fd)
            _end_with(server)
            _walk_discover_and_send(root, hparams_file, write_fd, urgent)
        os.close(write_fd)
        self._fd: int | None = read_fd
        self._walk: Walk | None = None
        self._walk_taken = False
        self._result: Discovered | None = None

    def walk(self) -> Walk | None:
        """The child's walk of the logdir, waited for (None when the child failed before it: the preload
        walks itself)."""
        if not self._walk_taken:
            self._walk_taken = True
            message = self._receive()
            if isinstance(message, str):
                logger.warning("walking the logdir at start-up: %s", message)
            self._walk = message if isinstance(message, Walk) else None
        return self._walk

    def result(self) -> Discovered | None:
        """The child's discovery (None when it failed: the server discovers itself): waited for when
        urgent; otherwise for at most PATIENCE_S, and the child is stopped if it has not finished then."""
        self.walk()  # the first message
        if self._fd is not None and not self.urgent and not self.done(PATIENCE_S):
            self.cancel()
        if self._fd is not None:
            message = self._receive()
            self._close()
            if isinstance(message, str):  # the child's error: the server discovers itself
                logger.warning("finding the runs' configuration files at start-up: %s", message)
            self._result = message if isinstance(message, Discovered) else None
        return self._result

    def done(self, wait: float = 0.0) -> bool:
        """Whether the child has finished (its result, or its end, waits in the pipe, or was taken), waiting
        up to `wait` seconds for it. Asked after the walk is taken."""
        import select  # pylint: disable=import-outside-toplevel

        return self._fd is None or bool(select.select([self._fd], [], [], wait)[0])

    def cancel(self) -> None:
        """Stops the child (nobody will take its result)."""
        if self._fd is not None:
            try:
                os.kill(self.pid, 9)
            except ProcessLookupError:
                pass
            self._close()

    def _receive(self):
        """The next message (a Walk, a Discovered, or the child's error as text); None when the child
        ended without it."""
        if self._fd is None:
            return None
        try:
            head = _read_exactly(self._fd, 8)
            return pickle.loads(_read_exactly(self._fd, int.from_bytes(head, "little")))
        except Exception:  # pylint: disable=broad-except  (the child died: a short or truncated message)
            return None

    def _close(self) -> None:
        fd, self._fd = self._fd, None
        os.close(fd)
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass


def _read_exactly(fd: int, size: int) -> bytes:
    """`size` bytes of the pipe `fd`, read as they come (EOFError when it ends first)."""
    parts, left = [], size
    while left:
        part = os.read(fd, min(left, 1 << 20))
        if not part:
            raise EOFError(f"the pipe ended {left} bytes before the message's end")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _send(fd: int, message) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(len(data).to_bytes(8, "little") + data)
    while view:
        view = view[os.write(fd, view):]


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


def _walk_discover_and_send(root: str, hparams_file: str | None, fd: int, urgent: bool) -> None:
    status = 0
    try:
        try:
            walk: Walk | str = walk_below(root)
        except Exception as err:  # pylint: disable=broad-except  (the preload walks itself, and says why)
            walk, status = f"{type(err).__name__}: {err}", 1
        _send(fd, walk)
        if status:
            return
        if not urgent:
            _lowest_priority()
        try:
            found: Discovered | str = discover_below(root, hparams_file, walk)
        except Exception as err:  # pylint: disable=broad-except  (the server discovers itself, and says why)
            found, status = f"{type(err).__name__}: {err}", 1
        _send(fd, found)
    except BaseException:  # pylint: disable=broad-except  (the parent went away: nothing to tell)
        status = 1
    finally:
        os._exit(status)


def walk_below(root: str) -> Walk:
    """The walk of the local logdir `root`, as the server's Logdir lists it."""
    from tensorboard.logdir.discovery import local_run_directories

    configs: dict[str, frozenset] = {}
    return Walk(local_run_directories(root, configs), configs)


def discover_below(root: str, hparams_file: str | None, walk: Walk | None = None) -> Discovered:
    """The hyperparameters of every run below the local logdir `root`, named and found as the server's
    Logdir lists them (`walk`: its walk, made here when None)."""
    from tensorboard.events.storage import storage_for
    from tensorboard.logdir.discovery import Listing
    from tensorboard.logdir.hparams_sources import ConfigCache, discover_hparams

    walk = walk_below(root) if walk is None else walk
    directories = {name: directory for name, (directory, _) in walk.runs.items()}
    unusable: list = []
    cache = ConfigCache()
    hparams = discover_hparams(Listing(storage_for(root), [], root=root, config_names=walk.configs), hparams_file,
                               warn=lambda err: unusable.append((err.path, err.line, err.reason)), cache=cache,
                               directories=directories)
    return Discovered(hparams, cache.entries, unusable)
