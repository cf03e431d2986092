"""A run's hyperparameters from every place users keep them, each value with its source.

Sources, highest precedence first (`PRECEDENCE`); where two disagree the earlier one wins, and within
one source the file nearest the run's directory wins (the run's own directory, then each parent up to
the logdir):

1. `hparams_file`: the file the user names (`--hparams_file NAME`: JSON, YAML or TOML by its suffix),
2. `add_hparams`: what `add_hparams` (ours, tensorboardX, torch, Lightning's logger) logged,
3. `lightning`: `hparams.yaml` (Lightning's `save_hyperparameters`),
4. `ray_tune`: `params.json` (a Ray Tune trial's configuration),
5. `hydra`: `.hydra/config.yaml` (a Hydra job's composed configuration),
6. `hydra_overrides`: `.hydra/overrides.yaml` (the job's command-line overrides),
7. `path`: `key=value` segments of the run's path below the logdir, comma-separated in one directory
   name (`lr=0.01,seed=3`) or one per level (`lr=0.01/seed=3`); the deepest segment wins.

Nested keys are flattened with dots (`optimizer.lr`); values keep their types (number, bool, string).
A configuration file that can't be used is a `ConfigFileWarning` naming the file and the line, and
the run keeps its other hyperparameters. Files are read at most `MAX_CONFIG_BYTES` each; on an object
store they are looked up in the logdir's one listing and fetched many at a time (`logdir.planner`).
"""
from __future__ import annotations

import functools
import os
import posixpath
import re
import warnings
from dataclasses import dataclass
from typing import Iterable, Literal, Mapping, NamedTuple

from tensorboard.logdir import planner
from tensorboard.logdir.config_files import (
    MAX_CONFIG_BYTES,
    ConfigError,
    Format,
    Scalar,
    flatten,
    format_of,
    parse_config,
    typed_text,
)
from tensorboard.logdir.discovery import Listing, directory_parts

Source = Literal["hparams_file", "add_hparams", "lightning", "ray_tune", "hydra", "hydra_overrides", "path"]
PRECEDENCE: tuple[Source, ...] = ("hparams_file", "add_hparams", "lightning", "ray_tune", "hydra",
                                  "hydra_overrides", "path")


class HParam(NamedTuple):
    """One hyperparameter's value and where it came from: `origin` is the file's path or URL, the path
    segment (`path`), or the run (`add_hparams`)."""

    value: Scalar
    source: Source
    origin: str


class ConfigFileWarning(UserWarning):
    """A configuration file next to a run could not be used (malformed, too large, unreadable)."""


@dataclass(frozen=True)
class ConfigFile:
    """A configuration file looked for in a run's directory and its parents: its path relative to
    each directory, the source it counts as, and its format."""

    name: str
    source: Source
    fmt: Format


KNOWN_FILES = (ConfigFile("hparams.yaml", "lightning", "yaml"), ConfigFile("params.json", "ray_tune", "json"),
               ConfigFile(".hydra/config.yaml", "hydra", "yaml"),
               ConfigFile(".hydra/overrides.yaml", "hydra_overrides", "yaml"))


def config_files(hparams_file: str | None = None, flag: str = "--hparams_file") -> tuple[ConfigFile, ...]:
    """The files looked for: the known ones, and first `hparams_file` (a relative path, by suffix JSON,
    YAML or TOML). A ValueError naming `flag` for an absolute path, `..`, or another suffix."""
    if hparams_file is None:
        return KNOWN_FILES
    if not isinstance(hparams_file, str):
        raise TypeError(f"{flag} must be a file name, not {type(hparams_file).__name__}")
    name = hparams_file.replace("\\", "/")
    if not name or name.startswith("/") or ".." in name.split("/") or "://" in name:
        raise ValueError(f"{flag} {hparams_file!r}: expected a file name relative to each run's directory")
    fmt = format_of(name)
    if fmt is None:
        raise ValueError(f"{flag} {hparams_file!r}: expected a .json, .yaml, .yml or .toml file")
    return (ConfigFile(name, "hparams_file", fmt),) + KNOWN_FILES


# Ray Tune's trial directory: {trainable}_{trial id: 5 hex, 5 digits}_{index}_{k=v,k=v}_{date}
_RAY_TRIAL = re.compile(r".+?_[0-9a-f]{5}_\d{5}_\d+_(?P<params>.+)_\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}\Z")


@functools.lru_cache(maxsize=1 << 16)  # the parents of a sweep's runs repeat; callers only read the dict
def segment_hparams(segment: str) -> dict[str, Scalar] | None:
    """{key: value} of a directory name made of `key=value` parts joined by commas (Hydra's
    `override_dirname`; a leading `+` of a key is dropped), or of the `k=v,k=v` part of a Ray Tune
    trial's directory name; None when any part is not one."""
    ray = _RAY_TRIAL.match(segment)
    if ray is not None:
        return _key_values(ray.group("params"))
    return _key_values(segment)


def _key_values(segment: str) -> dict[str, Scalar] | None:
    found: dict[str, Scalar] = {}
    for part in segment.split(","):
        key, sep, value = part.partition("=")
        key = key.lstrip("+")
        if not sep or not key or not (key[0].isalpha() or key[0] == "_") or \
                not all(ch.isalnum() or ch in "_.-" for ch in key):
            return None
        found[key] = typed_text(value)
    return found


def override_hparams(document, path: str) -> dict[str, Scalar]:
    """{key: value} of a Hydra overrides.yaml (a list of `key=value` strings); deletions (`~key`) and
    Hydra's own settings (`hydra.*`) are left out."""
    if not isinstance(document, list):
        raise ConfigError(path, None, "expected a list of key=value overrides")
    found: dict[str, Scalar] = {}
    for item in document:
        if not isinstance(item, str) or item.startswith("~"):
            continue
        key, sep, value = item.lstrip("+").partition("=")
        if sep and key and not key.startswith("hydra."):
            found[key] = typed_text(value)
    return found


def warn_unusable(err: ConfigError) -> None:
    """The default report of a configuration file that can't be used: a ConfigFileWarning."""
    warnings.warn(f"{err} (its hyperparameters are left out)", ConfigFileWarning, stacklevel=3)


class _Finder:
    """Which configuration files exist in a directory, each directory looked at once (runs of a sweep
    share their parents): a local listing per directory, or the object store's one listing."""

    def __init__(self, listing: Listing):
        self.storage, self.files = listing.storage, listing.files
        self.remote = listing.files is not None
        self.walked = listing.config_names or {}  # what the logdir's walk saw: no second listing
        self.complete = listing.config_names is not None  # the walk saw every directory below the logdir
        self.names: dict[str, frozenset] = {}

    def _listed(self, directory: str) -> frozenset:
        names = self.walked.get(directory)
        if names is None:
            names = self.names.get(directory)
        if names is None:
            try:
                names = frozenset(os.listdir(directory))
            except OSError:
                names = frozenset()
            self.names[directory] = names
        return names

    def files_in(self, directory: str, wanted: tuple[ConfigFile, ...]) -> list[tuple[str, ConfigFile]]:
        """(path, config) of each of `wanted` present in `directory`, in `wanted`'s order."""
        if self.remote:
            return [(url, config) for config in wanted if (url := f"{directory}/{config.name}") in self.files]
        names = self._listed(directory)
        found = []
        inside: dict[str, str | None] = {}  # a subdirectory (.hydra) of `directory`: its path, None when absent
        for config in wanted:
            head, _, tail = config.name.rpartition("/")
            if not head:
                if tail in names:
                    found.append((os.path.join(directory, tail), config))
                continue
            if head not in inside:
                path = os.path.join(directory, *head.split("/"))
                inside[head] = path if path in self.walked or (not self.complete and os.path.isdir(path)) else None
            if inside[head] is not None and tail in self._listed(inside[head]):
                found.append((os.path.join(inside[head], tail), config))
        return found


def _run_directory(listing: Listing, paths: list[str]) -> str:
    first = paths[0]
    return first.rsplit("/", 1)[0] if listing.files is not None else os.path.dirname(first)


class _Chains:
    """Each run directory's chain: itself and each parent up to the logdir (nearest first), and its parts
    below the logdir; every directory's path joined once (the runs of a sweep share their parents)."""

    def __init__(self, listing: Listing):
        self.listing = listing
        self.remote = listing.files is not None
        root = listing.root.rstrip("/") if self.remote else listing.root
        self.paths: dict[tuple[str, ...], list[str]] = {(): [root]}

    def of(self, run_directory: str) -> tuple[list[str], tuple[str, ...]]:
        parts = directory_parts(self.listing.root, run_directory)
        return self._chain(parts), parts

    def _chain(self, parts: tuple[str, ...]) -> list[str]:
        chain = self.paths.get(parts)
        if chain is None:
            parent = self._chain(parts[:-1])
            join = posixpath.join if self.remote else os.path.join
            chain = self.paths[parts] = [join(parent[0], parts[-1]), *parent]
        return chain


def read_config_bytes(listing: Listing, paths: list[str]) -> dict[str, bytes | ConfigError]:
    """The bytes of each configuration file (or the ConfigError that stopped it), at most
    MAX_CONFIG_BYTES each, in the engine's batches (`logdir.planner`: fetched many at a time from an
    object store, as event files are)."""
    sizes = listing.files or {}
    files = [planner.ObjectFile(path, sizes.get(path, 0)) for path in paths]
    out: dict[str, bytes | ConfigError] = {}
    for batch in planner.batches(listing.storage, files, alone_above=MAX_CONFIG_BYTES, on_error="return"):
        for entry, payload in batch:
            if payload is None:
                out[entry.url] = ConfigError(entry.url, None, f"larger than {MAX_CONFIG_BYTES} bytes; not read")
            elif isinstance(payload, OSError):
                out[entry.url] = ConfigError(entry.url, None, f"unreadable: {payload.strerror or payload}")
            else:
                out[entry.url] = payload
    return out


def _parsed(found: dict[str, ConfigFile], payloads: dict, warn) -> dict[str, dict[str, Scalar]]:
    """{path: flat hparams} of each file read; each file that can't be used is warned about once."""
    out: dict[str, dict[str, Scalar]] = {}
    for path, config in found.items():
        payload = payloads.get(path)
        try:
            if isinstance(payload, ConfigError):
                raise payload
            document = parse_config(payload, path, config.fmt)
            out[path] = override_hparams(document, path) if config.source == "hydra_overrides" else \
                flatten(document, path)
        except ConfigError as err:
            warn(err)
    return out


class ConfigCache:
    """Parsed configuration files kept between reloads (a server's), each under its stamp: (size,
    modification time) on a local disk, the listed size on an object store. A file whose stamp is
    unchanged is neither read nor parsed again, and a broken one is warned about once per version."""

    def __init__(self):
        self.entries: dict[str, tuple[tuple, dict[str, Scalar] | None]] = {}

    def stamp(self, listing: Listing, path: str) -> tuple:
        if listing.files is not None:
            return (listing.files.get(path),)
        try:
            info = os.stat(path)
        except OSError:
            return (None,)
        return info.st_size, info.st_mtime_ns

    def split(self, listing: Listing, found: dict[str, ConfigFile]):
        """({path: parsed (None: broken)} still valid, {path: stamp} to read again)."""
        kept, stale = {}, {}
        for path in found:
            stamp = self.stamp(listing, path)
            entry = self.entries.get(path)
            if entry is not None and entry[0] == stamp:
                kept[path] = entry[1]
            else:
                stale[path] = stamp
        for path in [path for path in self.entries if path not in found]:  # gone from the logdir
            del self.entries[path]
        return kept, stale


def discover_hparams(listing: Listing, hparams_file: str | None = None, warn=warn_unusable,
                     cache: ConfigCache | None = None,
                     directories: Mapping[str, str] | None = None) -> dict[str, dict[str, HParam]]:
    """{run: {key: HParam}} from the configuration files and path segments of `listing`'s runs (not
    from event files: see `logged_hparams`), by `PRECEDENCE`. `warn(ConfigError)` is called once per
    file that can't be used (default: a ConfigFileWarning). With a `cache` (kept by a server between
    reloads), unchanged files are taken from it.

    `directories` ({run: its directory}, below `listing.root`) replaces `listing.runs` for a caller
    that found runs itself (a server): `Listing(storage, [], root=ROOT)` is then enough locally (each
    directory is listed once), plus `files=` the store's {URL: size} listing on an object store."""
    wanted = config_files(hparams_file)
    if directories is None:
        directories = {run: _run_directory(listing, paths) for run, paths in listing.runs if paths and listing.is_dir}
    per_run, found = _files_of_runs(listing, directories, wanted)
    parsed = _parse_found(listing, found, cache, warn)
    of_file: dict[str, dict[str, HParam]] = {}  # each file's HParams made once (runs share parents' files)
    out: dict[str, dict[str, HParam]] = {}
    for run, (files, parts) in per_run.items():
        merged: dict[str, HParam] = {}
        for segment in parts:  # the lowest precedence, the deepest segment winning: applied first, shallowest first
            merged.update(_segment_params(segment))
        for path, config in reversed(files):  # in precedence order, nearest first: the first value of a key wins
            hparams = of_file.get(path)
            if hparams is None:
                hparams = of_file[path] = {key: HParam(value, config.source, path)
                                           for key, value in parsed.get(path, {}).items()}
            merged.update(hparams)
        out[run] = merged
    return out


@functools.lru_cache(maxsize=1 << 16)  # callers only read the dict
def _segment_params(segment: str) -> dict[str, HParam]:
    return {key: HParam(value, "path", segment) for key, value in (segment_hparams(segment) or {}).items()}


def _files_of_runs(listing: Listing, directories: Mapping[str, str], wanted: tuple[ConfigFile, ...]):
    """({run: ([(path, config)] by precedence, nearest first within a source; its path parts)},
    {path: config} of every file found), each directory looked at once."""
    rank = {config.name: i for i, config in enumerate(wanted)}
    finder, chains = _Finder(listing), _Chains(listing)
    in_directory: dict[str, list[tuple[str, ConfigFile]]] = {}
    per_run: dict[str, tuple[list[tuple[str, ConfigFile]], tuple[str, ...]]] = {}
    found: dict[str, ConfigFile] = {}
    for run, run_directory in directories.items():
        chain, parts = chains.of(run_directory)
        files = []
        for directory in chain:
            here = in_directory.get(directory)
            if here is None:
                here = in_directory[directory] = finder.files_in(directory, wanted)
                found.update(here)
            files.extend(here)
        if len(files) > 1:
            files.sort(key=lambda item: rank[item[1].name])  # stable: nearest first within each source
        per_run[run] = (files, parts)
    return per_run, found


def _parse_found(listing: Listing, found: dict[str, ConfigFile], cache: ConfigCache | None,
                 warn) -> dict[str, dict[str, Scalar]]:
    """{path: flat hparams} of the files found: read and parsed, or taken from `cache` when unchanged."""
    if cache is None:
        return _parsed(found, read_config_bytes(listing, list(found)), warn)
    kept, stale = cache.split(listing, found)
    fresh = _parsed({path: found[path] for path in stale}, read_config_bytes(listing, list(stale)), warn)
    for path, stamp in stale.items():
        cache.entries[path] = (stamp, fresh.get(path))
    return {**{path: values for path, values in kept.items() if values is not None}, **fresh}


def logged_hparams(session_starts: dict[int, bytes], run: str) -> dict[str, HParam]:
    """{key: HParam} of what add_hparams logged in a run (its session start infos, later files winning)."""
    from tensorboard.logdir.hparams import decode_plugin_data, hparam_value

    out: dict[str, HParam] = {}
    for _, content in sorted(session_starts.items()):
        for name, value in decode_plugin_data(content).session_start_info.hparams.items():
            plain = hparam_value(value)
            if plain is not None:
                out[name] = HParam(plain if not isinstance(plain, (list, dict)) else str(plain), "add_hparams", run)
    return out


def merge_sources(logged: dict[str, HParam], discovered: dict[str, HParam]) -> dict[str, HParam]:
    """One run's hparams from both: by `PRECEDENCE`, keys sorted."""
    rank = {source: i for i, source in enumerate(PRECEDENCE)}
    merged = dict(discovered)
    for key, hparam in logged.items():
        old = merged.get(key)
        if old is None or rank[hparam.source] <= rank[old.source]:
            merged[key] = hparam
    return dict(sorted(merged.items()))


def run_hparams(listing: Listing, runs: Iterable, hparams_file: str | None = None,
                warn=warn_unusable, discovered: dict | None = None) -> dict[str, dict[str, HParam]]:
    """{run: {key: HParam}} for each decoded run (a `RunData`) of `listing`: discovered (`discovered`:
    `discover_hparams`'s result when already known) and logged, merged by `PRECEDENCE`. Runs without
    any hyperparameter map to {}."""
    if discovered is None:
        discovered = discover_hparams(listing, hparams_file, warn)
    return {run.name: merge_sources(logged_hparams(run.session_starts, run.name), discovered.get(run.name, {}))
            for run in runs}


def plain_hparams(hparams: dict[str, dict[str, HParam]]) -> dict[str, dict[str, Scalar]]:
    """{run: {key: value}}: the values without their sources (what queries and groups compare)."""
    return {run: {key: hparam.value for key, hparam in values.items()} for run, values in hparams.items()}
