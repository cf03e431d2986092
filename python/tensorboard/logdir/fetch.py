"""Many objects of an object store at once: one recursive listing (with sizes) of a logdir, then the
event files fetched in batches through fsspec's `cat` (`cat_ranges` from an offset), which s3fs,
gcsfs and adlfs run concurrently, or, for s3:// with obstore installed, through obstore
(`logdir.fetch_obstore`). Object stores answer each request after tens of milliseconds, so reading files one
after another spends the time waiting; a batch waits once. Concurrency (files per batch) and bytes
in flight are both bounded. Callers go through `logdir.planner.batches`, which reads local disks itself."""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Iterator, Sequence

from tensorboard.logdir.fetch_obstore import fetcher_for

FSSPEC_CONCURRENCY = 64  # files fetched at once through fsspec: enough to hide ~30 ms per request, few enough
# for any pool
# through obstore (no pool to size, little CPU per request), more at once also hide the slowest answers of a batch
OBSTORE_CONCURRENCY = 256  # two batches of 128 (OBSTORE_BATCHES_AHEAD)
FETCH_HELD_BYTES = 256 << 20  # listed bytes held at once: the batch decoded and the batches fetched meanwhile
FSSPEC_BATCHES_AHEAD = 1  # batches fetched while the caller decodes one: botocore's CPU per request bounds s3fs
OBSTORE_BATCHES_AHEAD = 2  # through obstore the store's answers bound the read: a second batch in flight hides
# the wait at the start of each


@dataclass(frozen=True)
class ObjectFile:
    """One event file of a listing: its URL, its size when listed, and where to start reading it."""

    url: str
    size: int
    start: int = 0


def is_object_store(storage) -> bool:
    """True for fsspec storages (s3://, gs://, memory://, ...): those read through `fetch_batches`."""
    return hasattr(storage, "fs") and hasattr(storage, "protocol")


def check_bounds(concurrency, max_bytes) -> None:
    """A clear error for a `concurrency` or `max_bytes` that is not None or a positive int."""
    for name, value in (("concurrency", concurrency), ("max_bytes", max_bytes)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise ValueError(f"{name} must be a positive int (or None for the default), not {value!r}")


def reading_options(url: str, storage_options: dict | None, concurrency: int | None = None) -> dict:
    """`storage_options` for reading `url`: on S3, a connection pool as large as the concurrency (botocore
    keeps 10 connections by default, which would cap it) unless the caller chose one."""
    options = dict(storage_options or {})
    if url.split("://", 1)[0] in ("s3", "s3a") and "://" in url:
        config = dict(options.get("config_kwargs") or {})
        config.setdefault("max_pool_connections", concurrency or FSSPEC_CONCURRENCY)
        options["config_kwargs"] = config
    return options


def list_files(storage, root: str) -> dict[str, int]:
    """{URL: size} of every file below `root`, from one recursive listing (S3: ListObjectsV2 pages of
    1,000 keys) instead of a listing per directory; fsspec's listing cache is refreshed first."""
    fetcher = object_fetcher(storage)
    if fetcher is not None:
        return fetcher.list(root)
    fs = storage.fs
    fs.invalidate_cache()
    found = fs.find(storage.strip_protocol(root), withdirs=False, detail=True)
    return {f"{storage.protocol}://{path}": int(info.get("size") or 0)
            for path, info in found.items() if info.get("type", "file") != "directory"}


def object_fetcher(storage):
    """The obstore fetcher that lists and fetches `storage`'s objects (s3:// when obstore is installed, unless
    TB_OBJECT_STORE=fsspec), or None: fsspec's own `find` and `cat` do."""
    return fetcher_for(storage.protocol, getattr(storage.fs, "storage_options", {}))


def default_ahead(storage) -> int:
    """Batches fetched while the caller decodes one: OBSTORE_BATCHES_AHEAD through obstore, else
    FSSPEC_BATCHES_AHEAD."""
    return OBSTORE_BATCHES_AHEAD if object_fetcher(storage) is not None else FSSPEC_BATCHES_AHEAD


def default_concurrency(storage) -> int:
    """Files fetched at once when the caller chose no number: OBSTORE_CONCURRENCY through obstore, else
    FSSPEC_CONCURRENCY."""
    return OBSTORE_CONCURRENCY if object_fetcher(storage) is not None else FSSPEC_CONCURRENCY


def plan_batches(files: Sequence[ObjectFile], concurrency: int, max_bytes: int,
                 alone_above: int | None = None) -> list[list[int]]:
    """Consecutive groups of indices of `files`: at most `concurrency` files and `max_bytes` listed
    bytes each (a file larger than `max_bytes`, or than `alone_above` when smaller, alone, in a group of
    its own)."""
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, not {concurrency}")
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be at least 1, not {max_bytes}")
    alone = max_bytes if alone_above is None else min(alone_above, max_bytes)
    batches: list[list[int]] = []
    current: list[int] = []
    held = 0
    for i, f in enumerate(files):
        size = max(f.size - f.start, 0)
        if current and (len(current) >= concurrency or held + size > max_bytes or size > alone or held > alone):
            batches.append(current)
            current, held = [], 0
        current.append(i)
        held += size
    if current:
        batches.append(current)
    return batches


def _fetch(storage, files: list[ObjectFile]) -> list[bytes]:
    """The bytes of `files` (from each one's start to its current end), fetched concurrently."""
    want = [f for f in files if f.size > f.start or f.size == 0]
    if not want:
        return [b""] * len(files)
    fs = storage.fs
    paths = [storage.strip_protocol(f.url) for f in want]
    ranged = any(f.start for f in want)
    fetcher = object_fetcher(storage)
    if fetcher is not None:
        got = fetcher.fetch([f.url for f in want], [f.start for f in want], [f.size for f in want], ranged)
    elif ranged:  # reads from an offset: ranged GETs up to the listed ends
        got = fs.cat_ranges(paths, [f.start for f in want], [f.size for f in want], batch_size=len(want),
                            on_error="return")
    else:  # whole objects: plain GETs (a range without an end would cost a HEAD each on s3fs)
        # s3fs splits big objects into concurrent ranges after a HEAD for the size (unless its listing
        # cache holds it, as it does not on a dask worker); one GET per file is what a batch wants
        extra = {"max_concurrency": 1} if getattr(fs, "max_concurrency", 1) > 1 else {}
        whole = fs.cat(paths, on_error="return", batch_size=len(want), **extra)
        got = [whole[path] if isinstance(whole, dict) else whole for path in paths]
    out = iter(got)
    result = []
    for f in files:
        if not (f.size > f.start or f.size == 0):
            result.append(b"")
            continue
        data = next(out)
        if isinstance(data, BaseException):
            if isinstance(data, FileNotFoundError):
                raise FileNotFoundError(f"{f.url}: listed, then gone before it was read") from data
            raise data
        result.append(data)
    return result


def fetch_batches(storage, files: Sequence[ObjectFile], concurrency: int | None = None,
                  max_bytes: int = FETCH_HELD_BYTES,
                  alone_above: int | None = None) -> Iterator[list[tuple[ObjectFile, bytes | None]]]:
    """Yields batches of (file, bytes) in the order of `files`, each of at most `concurrency` files
    (None: `default_concurrency`), fetched concurrently. While the caller works on one batch, the next
    ones (`default_ahead`) are fetched, so the store's wait overlaps the caller's decoding; the batches
    held hold at most `max_bytes` listed bytes. A file larger than a batch's share of `max_bytes` (or
    than `alone_above`, when given and smaller) comes alone with None instead of bytes: the caller streams
    it (`storage.open_read`) or leaves it.
    """
    files = list(files)
    ahead = default_ahead(storage)
    plan = plan_fetches(files, concurrency or default_concurrency(storage), max_bytes, ahead, alone_above)
    fetched = [k for k, (_, fetch) in enumerate(plan) if fetch]  # the batches fetched, in order
    running: dict[int, _Prefetch] = {}  # plan index -> its fetch under way

    def fetch_now(batch: list[int]) -> list:
        return _fetch(storage, [files[i] for i in batch])

    def launch(first: int, count: int) -> None:  # fetched[first:first + count], each once
        for k in fetched[first:first + count]:
            if k not in running:
                running[k] = _Prefetch(fetch_now, plan[k][0])

    taken = 0
    try:
        for k, (batch, fetch) in enumerate(plan):
            if not fetch:
                yield [(files[batch[0]], None)]
                continue
            if k in running:
                data = running.pop(k).take()
            else:  # the first batch: fetched here, the next ones meanwhile
                launch(taken + 1, ahead - 1)
                data = fetch_now(batch)
            taken += 1
            launch(taken, ahead)
            yield list(zip((files[i] for i in batch), data))
            del data
    finally:
        for prefetch in running.values():
            prefetch.close()


def plan_fetches(files: Sequence[ObjectFile], concurrency: int, max_bytes: int,
                 ahead: int = FSSPEC_BATCHES_AHEAD, alone_above: int | None = None) -> list[tuple[list[int], bool]]:
    """fetch_batches' batches: (indices of `files`, False for a file streamed instead of fetched). With
    `ahead` batches in flight, each holds `concurrency // ahead` files, so that at most `concurrency`
    requests are under way."""
    per_batch = max(max_bytes // (ahead + 1), 1)  # the batch decoded and the batches fetched meanwhile
    alone = per_batch if alone_above is None else min(alone_above, per_batch)
    return [(batch, not (len(batch) == 1 and files[batch[0]].size - files[batch[0]].start > alone))
            for batch in plan_batches(files, max(concurrency // ahead, 1), per_batch, alone)]


class _Prefetch:
    """One batch fetched in a background thread, taken when the caller gets to it."""

    def __init__(self, fetch, batch: list[int]):
        self._result: tuple[bool, object] | None = None

        def run() -> None:
            try:
                self._result = True, fetch(batch)
            except BaseException as err:  # handed to the caller, raised where it takes the batch
                self._result = False, err

        self._thread = threading.Thread(target=run, name="tensorboard-fetch", daemon=True)
        self._thread.start()

    def take(self) -> list:
        """The batch's bytes, once fetched (a failed fetch's error is raised here)."""
        self._thread.join()
        (ok, value), self._result = self._result, None
        if not ok:
            raise value
        return value

    def close(self) -> None:
        """Waits for the fetch (no thread outlives the read) and drops what it got."""
        self._thread.join()
        self._result = None
