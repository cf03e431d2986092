"""Runs and their event files below a logdir, on local disks and object stores: one predicate for what
an event file is, one walk of a local tree, one recursive listing of an object store, and the run
names of `logdir.names`. The reader, the report, the sweep tools and the UI's provider all find runs
here."""
from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from typing import Callable, Iterator

from tensorboard.events.file_names import is_summary_events_file
from tensorboard.events.storage import is_remote, storage_for
from tensorboard.logdir.fetch import is_object_store, list_files, reading_options
from tensorboard.logdir.names import TOP_RUN, run_name


def is_event_file(name: str) -> bool:
    """Whether upstream TensorBoard loads this file as an event file.

    Args:
        name: A file name or path.

    Returns:
        True for 'tfevents' in the name, and no '.profile-empty' placeholder (what the profiler
        plugin leaves in a run directory).
    """
    return is_summary_events_file(posixpath.basename(name.replace(os.sep, "/")))


@dataclass
class Listing:
    """One look at a logdir: its storage, its runs [(name, [event file paths in name order])] in
    depth-first name order, each file's listed size (object stores only), whether it is a directory,
    the logdir's canonical path and, where configuration files are looked up (`logdir.hparams_sources`)
    without listing again: on object stores every file the listing found, {URL: size}; on local disks
    {directory: names of its .json, .yaml, .yml and .toml files} for every directory the walk visited."""

    storage: object
    runs: list[tuple[str, list[str]]]
    sizes: dict[str, int] = field(default_factory=dict)
    is_dir: bool = True
    root: str = ""
    files: dict[str, int] | None = None
    config_names: dict[str, frozenset] | None = None

    def only(self, wanted: Callable[[str], bool]) -> "Listing":
        """The runs whose name `wanted` accepts (nothing is fetched for the others)."""
        return Listing(self.storage, [(run, paths) for run, paths in self.runs if wanted(run)], self.sizes,
                       self.is_dir, self.root, self.files, self.config_names)


def open_storage(log_path: str, storage_options: dict | None, check: bool = True, concurrency: int | None = None):
    """The storage of `log_path`; with `check`, a FileNotFoundError when it does not exist."""
    storage = storage_for(log_path, **reading_options(log_path, storage_options, concurrency))
    if check and not storage.exists(log_path):
        raise FileNotFoundError(f"log path not found: {log_path}")
    return storage


def list_runs(log_path: str | os.PathLike, storage_options: dict | None = None, storage=None,
              concurrency: int | None = None) -> Listing:
    """The runs below `log_path` (a directory, one event file, or an fsspec URL of either).

    A file path gives one run "." holding that file. An object store is listed once, recursively,
    with no existence or directory probe before: a listing that finds nothing is followed by one look
    at the path itself (a file, an empty directory, or FileNotFoundError). `storage`: an already
    opened storage to reuse.
    """
    log_path = os.fspath(log_path)
    remote = storage is not None and is_object_store(storage)
    if storage is None:
        remote = is_remote(log_path)
        storage = open_storage(log_path, storage_options, check=not remote, concurrency=concurrency)
    log_path = storage.canonical(log_path)  # file:///x reads /x
    if remote:
        return _list_object_store(storage, log_path)
    if not storage.isdir(log_path):
        return Listing(storage, [(TOP_RUN, [log_path])], {}, False, log_path)
    found = []
    configs: dict[str, frozenset] = {}
    for directory, names in event_directories(storage, log_path, configs=configs):
        parts = directory_parts(log_path, directory)
        found.extend((parts + (name,), run_name(parts), storage.join(directory, name)) for name in names)
    return Listing(storage, _group(found), {}, True, log_path, None, configs)


def _list_object_store(storage, log_path: str) -> Listing:
    root = log_path.rstrip("/")
    listing = list_files(storage, root)
    stripped = storage.strip_protocol(root)
    if not listing or [storage.strip_protocol(url) for url in listing] == [stripped]:
        try:
            info = storage.fs.info(stripped)
        except FileNotFoundError:
            raise FileNotFoundError(f"log path not found: {log_path}") from None
        if info.get("type") != "directory":
            return Listing(storage, [(TOP_RUN, [log_path])], {log_path: int(info.get("size") or 0)}, False, root)
    found, sizes = [], {}
    for directory, files in object_store_runs(root, listing).items():
        parts = directory_parts(root, directory)
        for name, size in files.items():
            url = f"{directory}/{name}"
            found.append((parts + (name,), run_name(parts), url))
            sizes[url] = size
    return Listing(storage, _group(found), sizes, True, root, listing)


def _group(found: list[tuple[tuple, str, str]]) -> list[tuple[str, list[str]]]:
    """(sort key, run, path) triples as [(run, [paths])], depth-first by name."""
    found.sort(key=lambda item: item[0])
    runs: dict[str, list[str]] = {}
    for _, run, path in found:
        runs.setdefault(run, []).append(path)
    return list(runs.items())


CONFIG_SUFFIXES = (".json", ".yaml", ".yml", ".toml")


def event_directories(storage, root: str, sort: bool = True,
                      configs: dict[str, frozenset] | None = None) -> Iterator[tuple[str, list[str]]]:
    """(directory, its event file names in name order) for each directory below `root` (itself
    included) that holds any, depth-first by name (`sort=False`, local disks only: in the file
    system's order, as upstream's server lists runs); links to directories are followed as upstream does.
    `configs`, when given, gets {directory: its configuration files' names} of every directory walked."""
    for directory, files in storage.walk(root) if sort else storage.walk(root, sort=False):
        if configs is not None:
            configs[directory] = frozenset(name for name in files if name.lower().endswith(CONFIG_SUFFIXES))
        names = [name for name in files if is_event_file(name)]
        if names:
            yield directory, names


def object_store_runs(root: str, listing: dict[str, int]) -> dict[str, dict[str, int]]:
    """Run directory URL -> {event file name: listed size}, from one recursive listing of `root`."""
    runs: dict[str, dict[str, int]] = {}
    for url, size in listing.items():
        directory, name = url.rsplit("/", 1)
        if is_event_file(name):
            runs.setdefault(directory, {})[name] = size
    return runs


def directory_parts(root: str, directory: str) -> tuple[str, ...]:
    """The parts of `directory` below the logdir `root` (local paths, or URLs of an object store)."""
    if "://" in root:
        root, directory = root.rstrip("/"), directory.rstrip("/")
        return () if directory == root else tuple(posixpath.relpath(directory, root).split("/"))
    root, directory = root.rstrip(os.sep) or os.sep, directory.rstrip(os.sep) or os.sep
    if directory == root:
        return ()
    head = root if root.endswith(os.sep) else root + os.sep
    if directory.startswith(head):  # as the walk names it: the parts after the root, when plain names
        parts = tuple(directory[len(head):].split(os.sep))
        if not any(part in ("", ".", "..") for part in parts):
            return parts
    return tuple(os.path.relpath(directory, root).split(os.sep))


def directory_run(root: str, directory: str) -> str:
    """The run of `directory` below the logdir `root` (see `logdir.names`)."""
    return run_name(directory_parts(root, directory))


def local_run_directories(root: str, configs: dict[str, frozenset] | None = None) -> dict[str, tuple[str, list[str]]]:
    """{run name: (its directory, its event file names)} of every run below the local logdir `root`, in
    the file system's order, as upstream's server lists them (the first directory of a name wins): the
    UI's listing and its hyperparameters' child walk alike. `configs`: as for `event_directories`."""
    runs: dict[str, tuple[str, list[str]]] = {}
    for directory, names in event_directories(storage_for(root), root, sort=False, configs=configs):
        runs.setdefault(directory_run(root, directory), (directory, names))
    return runs
