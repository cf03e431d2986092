"""The one planner for reading many files of a logdir, on a local disk or in an object store: `batches`
hands their bytes over in batches of one shape, [(file, bytes or None)], in the order of the files; None
marks a file too large to hold, which the caller streams on its own (or refuses). `streams_alone` says
when a file's new bytes are read on their own, in chunks, instead of together with other files'. The
reader's runs (`logdir.read`), configuration files (`logdir.hparams_sources`) and the UI's object-store
roots read through `batches`; the UI's local reloads (which stat each file first) take `streams_alone`.

Each bound is defined once, where its mechanism lives:
- `decode_many.DECODE_GROUP_BYTES`: bytes scanned and decoded together. A file (or a file's new bytes)
  with more is decoded alone anyway, so a local one is streamed in chunks rather than held.
- `LOCAL_READ_AHEAD_BYTES` (here): bytes of small local files read ahead of their decode.
- `fetch.FETCH_HELD_BYTES`: listed bytes of object-store files held at once (the batch decoded and the
  batches fetched meanwhile); a file larger than one batch's share is streamed by ranges.
- `fetch.FSSPEC_CONCURRENCY`, `fetch.OBSTORE_CONCURRENCY`: object-store files fetched at once;
  `fetch.FSSPEC_BATCHES_AHEAD`, `fetch.OBSTORE_BATCHES_AHEAD`: batches fetched while one is decoded.
Object stores answer each request after tens of milliseconds, so their files are fetched many at a time
(`logdir.fetch`); a local disk answers at once, so its files are read one after another."""
from __future__ import annotations

import functools
import logging
import os
from typing import Iterator, Literal, Sequence, Union

from tensorboard.events.storage import LocalStorage, local_path
from tensorboard.logdir import fetch
from tensorboard.logdir.fetch import ObjectFile

logger = logging.getLogger("tensorboard.logdir")

LOCAL_READ_AHEAD_BYTES = 8 << 20  # bytes of small local files read ahead of their decode, held at once

Payload = Union[bytes, None, OSError]  # a file's bytes; None: to be streamed; OSError: unreadable ("return")
Batch = list[tuple[ObjectFile, Payload]]
OnError = Literal["raise", "return"]


def batches(storage, files: Sequence[ObjectFile], concurrency: int | None = None, max_bytes: int | None = None,
            *, alone_above: int | None = None, on_error: OnError = "raise") -> Iterator[Batch]:
    """Batches of (file, its bytes from `file.start`) in the order of `files`.

    A file of more than `alone_above` bytes comes alone with None instead of bytes (None: a local file of
    more than DECODE_GROUP_BYTES, an object of more than a batch's share of `max_bytes`). On an object
    store, files are fetched `concurrency` at a time (None: the fetch path's default) with at most
    `max_bytes` listed bytes held (None: FETCH_HELD_BYTES); local files are read in batches of about
    LOCAL_READ_AHEAD_BYTES.

    `on_error`: "raise" ends the batches with the first OSError (after the batches before it; locally,
    after the files before it too); "return" hands a file that cannot be read with its OSError instead of
    bytes, and goes on with the others (on an object store, a batch whose fetch fails is fetched again
    file by file)."""
    if on_error not in ("raise", "return"):
        raise ValueError(f'on_error must be "raise" or "return", not {on_error!r}')
    if fetch.is_object_store(storage):
        held = max_bytes or fetch.FETCH_HELD_BYTES
        if on_error == "raise":
            return fetch.fetch_batches(storage, files, concurrency, held, alone_above)
        return _fetched_file_by_file_on_error(storage, list(files), concurrency, held, alone_above)
    return _local_batches(storage, files, alone_above, on_error)


def streams_alone(new_bytes: int) -> bool:
    """True when a file's `new_bytes` are more than one decode group: read on their own, in chunks,
    instead of held together with other files' bytes."""
    return new_bytes > _decode_group_bytes()


def _decode_group_bytes() -> int:
    """decode_many.DECODE_GROUP_BYTES, imported on use: the decoders import NumPy, which reading a
    configuration file through `batches` does not need."""
    from tensorboard.logdir.decode_many import DECODE_GROUP_BYTES  # pylint: disable=import-outside-toplevel

    return DECODE_GROUP_BYTES


FIRST_READ_BYTES = 1 << 16  # what a local file's first read asks for


def _read_at_most(read, limit: int) -> bytes:
    """At most `limit` bytes by `read(n)`, asked for in two reads: a small file (a configuration file, a
    short run's event file) costs a small buffer, where one read(limit) would allocate `limit` bytes
    first (an mmap and munmap of a MiB or more: 20 us of a 30 us read)."""
    first = read(min(limit, FIRST_READ_BYTES))
    if len(first) < FIRST_READ_BYTES or len(first) >= limit:  # the file ended (a short read is its end), or enough
        return first
    parts, left = [first], limit - len(first)
    while left > 0:
        part = read(left)
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _read_file(storage, entry: ObjectFile, limit: int) -> bytes:
    """At most `limit` bytes of the file from `entry.start`. A local file is read with os.open and os.read:
    a buffered file object costs three times as much for the small files a sweep holds by the thousand
    (20,000 configuration files: 0.13 s against 0.35-0.49 s)."""
    if isinstance(storage, LocalStorage):
        fd = os.open(local_path(entry.url), _OPEN_FLAGS)
        try:
            if entry.start:
                os.lseek(fd, entry.start, os.SEEK_SET)
            return _read_at_most(functools.partial(os.read, fd), limit)
        finally:
            os.close(fd)
    with storage.open_read(entry.url) as stream:
        if entry.start:
            stream.seek(entry.start)
        return _read_at_most(stream.read, limit)


def _local_batches(storage, files: Sequence[ObjectFile], alone_above: int | None,
                   on_error: OnError) -> Iterator[Batch]:
    """Local files read one after another and handed over about LOCAL_READ_AHEAD_BYTES at a time, so that
    `logdir.decode_many` scans and decodes small ones as one."""
    batch: Batch = []
    held = 0
    small = _decode_group_bytes() if alone_above is None else alone_above
    for entry in files:
        try:
            data = _read_file(storage, entry, small + 1)
        except OSError as err:
            if on_error == "return":
                batch.append((entry, err))
                continue
            if batch:  # the files before it are decoded first, as when each file is read in turn
                yield batch
            raise
        if len(data) > small:
            if batch:
                yield batch
                batch, held = [], 0
            yield [(entry, None)]
            continue
        batch.append((entry, data))
        held += len(data)
        if held >= LOCAL_READ_AHEAD_BYTES:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch


def _fetched_file_by_file_on_error(storage, files: list[ObjectFile], concurrency: int | None, max_bytes: int,
                                   alone_above: int | None) -> Iterator[Batch]:
    """fetch_batches, with a batch whose fetch fails fetched again file by file: a file that cannot be read
    (gone since the listing, no permission) comes with its error, and the others with their bytes."""
    position = 0
    got = fetch.fetch_batches(storage, files, concurrency, max_bytes, alone_above)
    while True:
        try:
            batch: Batch = next(got)
        except StopIteration:
            return
        except OSError as err:
            failed, _ = fetch.plan_fetches(files[position:], concurrency or fetch.default_concurrency(storage),
                                           max_bytes, fetch.default_ahead(storage), alone_above)[0]
            logger.warning("%s; fetching the %d files of its batch one by one", err, len(failed))
            batch = []
            for entry in files[position:position + len(failed)]:
                try:
                    batch.extend(next(fetch.fetch_batches(storage, [entry], concurrency, max_bytes, alone_above)))
                except OSError as one:
                    batch.append((entry, one))
            got = fetch.fetch_batches(storage, files[position + len(batch):], concurrency, max_bytes, alone_above)
        position += len(batch)
        yield batch
