"""The one reading pipeline every front door fills its runs through.

Records come scanned (every CRC checked) from a stream, chunk by chunk (`feed_stream`), or from the
bytes of many files at once (`ScannedFiles`). Either way the plain scalar events among them, the
layout every logger writes most, are decoded column-wise (`plain_columns`); the records are cut where
that mask flips (`segments`); and each stretch goes to a `RecordSink`: plain scalars as columns
(`ScalarStretch`), the rest as record spans the sink decodes one by one.

The reader's RunData (logdir.decode) and serving's RunState (serving.file_reading) are the two sinks: what
they keep differs (the reader keeps every value, serving samples as upstream's accumulator does), how
records reach them does not.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import BinaryIO, Callable, Iterator, NamedTuple, Protocol, Sequence

import numpy as np

from tensorboard.events.scan import scan_spans
from tensorboard.events.scan_many import TailScan, intact_spans, scan_tails
from tensorboard.logdir.bulk_decode import key_ids, plain_scalars


class Spans:
    """A buffer's intact records: payload starts and ends as arrays."""

    def __init__(self, buf: bytes, starts: np.ndarray, ends: np.ndarray):
        self.buf, self.starts, self.ends = buf, starts, ends

    def lists(self, lo: int, hi: int) -> tuple[list[int], list[int]]:
        """The payload starts and ends of records lo..hi as Python ints, what a one-by-one decoder indexes
        (only those: a joined buffer's few one-by-one records, a file's header and metadata events among
        thousands of plain scalars, no longer convert every record's)."""
        return self.starts[lo:hi].tolist(), self.ends[lo:hi].tolist()


class RecordBlock(NamedTuple):
    """One file's records within `spans`: `base` is the file offset of spans.buf[0] (what errors name)."""

    spans: Spans
    base: int
    path: str


class PlainColumns(NamedTuple):
    """The plain scalar events among a buffer's records, as columns over every record (meaningful where `ok`)."""

    ok: np.ndarray  # record i is a plain scalar event whose tag is UTF-8
    steps: np.ndarray
    walls: np.ndarray
    values: np.ndarray
    tag_of: np.ndarray  # index into tags (-1 where not ok)
    tags: list[str]
    keys: list[bytes]  # each tag as its bytes in the record


class ScalarStretch(NamedTuple):
    """Consecutive plain scalar events of one file, in file order: event i has tag `tags[tag_of[i]]`; tags
    are listed in the order they first appear."""

    tags: list[str]
    keys: list[bytes]
    tag_of: np.ndarray
    steps: np.ndarray
    walls: np.ndarray
    values: np.ndarray


class RecordSink(Protocol):
    """What a run store offers the pipeline."""

    def add_scalars(self, stretch: ScalarStretch) -> bool:
        """Adds the stretch column-wise; False, having added nothing, when it must go one by one (steps
        that purge, a tag that holds another kind)."""

    def add_records(self, block: RecordBlock, lo: int, hi: int) -> None:
        """Decodes records lo..hi of `block` one at a time; a record that holds no Event is left out, reported."""


def plain_columns(buf: bytes, starts: np.ndarray, ends: np.ndarray, min_plain: int = 0) -> PlainColumns | None:
    """The plain scalar columns of the records at starts..ends, or None where fewer than `min_plain` are
    plain scalars (column-wise decoding does not pay there) or their tags can't be told apart."""
    if len(starts) < max(min_plain, 1):
        return None
    ok, steps, walls, values, key_start, key_len = plain_scalars(buf, starts, ends)
    plain = np.flatnonzero(ok)
    if not len(plain) or len(plain) < min_plain:
        return None
    grouped = key_ids(np.frombuffer(buf, np.uint8), key_start[plain], key_len[plain])
    if grouped is None:  # a hash collision: every record one by one
        return None
    inverse, _, keys = grouped
    tag_of = np.full(len(ok), -1, np.int64)
    tag_of[plain] = inverse
    tags = []
    for i, key in enumerate(keys):
        try:
            tags.append(key.decode("utf-8"))
        except UnicodeDecodeError:  # a damaged tag: its records go one by one, where each spoils only itself
            tags.append("")
            ok[tag_of == i] = False
    return PlainColumns(ok, steps, walls, values, tag_of, tags, list(keys))


def segments(columns: PlainColumns | None, lo: int, hi: int) -> list[tuple[int, int, bool]]:
    """Records lo..hi cut where the plain-scalar mask flips: (lo, hi, plain) each."""
    if hi <= lo:
        return []
    if columns is None:
        return [(lo, hi, False)]
    ok = columns.ok
    flips = np.flatnonzero(np.diff(ok[lo:hi].astype(np.int8))) + 1 + lo
    bounds = [lo, *flips.tolist(), hi]
    return [(a, b, bool(ok[a])) for a, b in zip(bounds[:-1], bounds[1:])]


def stretch(columns: PlainColumns, lo: int, hi: int) -> ScalarStretch:
    """Records lo..hi (all plain scalars) as a ScalarStretch; one tag, the usual case, without a sort."""
    ids = columns.tag_of[lo:hi]
    first = int(ids[0])
    if (ids == first).all():
        used, tag_of = [first], np.zeros(hi - lo, np.intp)
    else:
        unique, first_at, inverse = np.unique(ids, return_index=True, return_inverse=True)
        order = np.argsort(first_at, kind="stable")  # tags in order of first appearance
        rank = np.empty(len(order), np.intp)
        rank[order] = np.arange(len(order))
        used, tag_of = unique[order].tolist(), rank[inverse.ravel()]
    return ScalarStretch([columns.tags[i] for i in used], [columns.keys[i] for i in used], tag_of,
                         columns.steps[lo:hi], columns.walls[lo:hi], columns.values[lo:hi])


def feed(sink: RecordSink, block: RecordBlock, columns: PlainColumns | None, lo: int, hi: int) -> int:
    """Records lo..hi of `block` into `sink`, in order; returns how many."""
    for a, b, plain in segments(columns, lo, hi):
        if not (plain and sink.add_scalars(stretch(columns, a, b))):
            sink.add_records(block, a, b)
    return hi - lo


def feed_stream(sink: RecordSink, stream: BinaryIO, path: str, start: int = 0, min_plain: int = 0,
                on_truncated: Callable[[int], None] | None = None, warn_truncated: bool = True) -> Iterator[int]:
    """Feeds the records of `stream` (at file offset `start`) into `sink` chunk by chunk, yielding the file
    offset after each chunk's whole records. Damage raises CorruptEventFileError after the records before
    it are fed; a file that ends inside a record is events.scan.scan_spans' to report."""
    for buf, base, starts, ends in scan_spans(stream, path, on_truncated=on_truncated, start=start,
                                              warn_truncated=warn_truncated):
        feed(sink, RecordBlock(Spans(buf, starts, ends), base, path), plain_columns(buf, starts, ends, min_plain),
             0, len(starts))
        yield base + (int(ends[-1]) + 4 if len(ends) else 0)


@dataclass
class FedFile:
    """What one file of a ScannedFiles gave: its records fed, and the TailScan that says how many of its
    bytes were whole intact records and what is wrong after them."""

    count: int
    scan: TailScan
    size: int  # the bytes it was given

    @property
    def left(self) -> int:
        """Bytes after the whole intact records: a record the bytes end inside of, or damage."""
        return self.size - self.scan.consumed


class ScannedFiles:
    """The bytes of many files (or of their new tails), scanned together and their plain scalars decoded
    column-wise together; `feed(i, ...)` gives file i's records to a sink. Files are fed in any order
    the caller likes, each once."""

    def __init__(self, payloads: Sequence[bytes], min_plain: int = 0):
        self._sizes = sizes = [len(p) for p in payloads]
        joined, starts, ends, self._scans = scan_tails(list(payloads))
        self._bases = np.cumsum([0] + sizes[:-1]).tolist()
        starts, ends = intact_spans(starts, ends, self._scans)
        self._first = np.cumsum([0] + [t.count for t in self._scans[:-1]]).tolist()
        self._spans = Spans(joined, starts, ends)
        self._columns = plain_columns(joined, starts, ends, min_plain)

    def feed(self, i: int, sink: RecordSink, path: str, offset: int = 0) -> FedFile:
        """File i's intact records into `sink`; `offset` is the file offset its bytes start at."""
        scan = self._scans[i]
        lo = self._first[i]
        block = RecordBlock(self._spans, offset - self._bases[i], path)
        return FedFile(feed(sink, block, self._columns, lo, lo + scan.count), scan, self._sizes[i])
