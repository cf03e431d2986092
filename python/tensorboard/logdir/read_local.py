"""Local event files in the batches an object store's fetch gives (`logdir.fetch.fetch_batches`): small
files' bytes read one after another and handed over together, so that `logdir.decode_many` scans and
decodes them as one; a larger file handed over alone, without bytes, to be streamed in chunks."""
from __future__ import annotations

from typing import Iterator, Sequence

from tensorboard.logdir import decode_many
from tensorboard.logdir.fetch import ObjectFile

READ_AHEAD_BYTES = 8 << 20  # bytes of small files read ahead of their decode, held at once


def local_batches(storage, files: Sequence[ObjectFile]) -> Iterator[list[tuple[ObjectFile, bytes | None]]]:
    """Batches of (file, its bytes) in the order of `files`, of about READ_AHEAD_BYTES each; a file of more
    than decode_many.DECODE_GROUP_BYTES (decoded alone anyway) comes alone with None instead of bytes: the caller
    streams it."""
    batch: list[tuple[ObjectFile, bytes | None]] = []
    held = 0
    small = decode_many.DECODE_GROUP_BYTES
    for entry in files:
        try:
            with storage.open_read(entry.url) as stream:
                data = stream.read(small + 1)
        except OSError:  # the files before it are decoded first, as when each file is read in turn
            if batch:
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
        if held >= READ_AHEAD_BYTES:
            yield batch
            batch, held = [], 0
    if batch:
        yield batch
