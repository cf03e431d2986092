"""Record scanning: walks an event file in large chunks, checks both CRCs of every record natively,
and hands out payload spans (no per-record objects), so decoders can work on the raw bytes."""
from __future__ import annotations

import struct
import warnings
from typing import TYPE_CHECKING, BinaryIO, Iterator, NamedTuple

from tensorboard.events.crc32c import MASK_DELTA, crc32c
from tensorboard.events.crc_columns import COLUMN_MAX_LENGTH, COLUMN_MIN_RECORDS, crc_columns
from tensorboard.events.record import (
    HEADER_SIZE,
    MAX_RECORD_BYTES,
    CorruptEventFileError,
    Record,
    TruncatedRecordError,
    TruncatedTailWarning,
    read_bounded,
    truncated_tail,
)

if TYPE_CHECKING:  # numpy is imported when a scan runs: importing the writer does not need it
    import numpy as np

_LEN = struct.Struct("<Q").unpack_from
CHUNK_BYTES = 1 << 20  # 1 MiB: big enough to amortise reads and NumPy calls, small enough to keep memory flat


def scan_spans(stream: BinaryIO, path: str | None, chunk_bytes: int = CHUNK_BYTES,
               on_truncated=None, start: int = 0, warn_truncated: bool = True) -> Iterator[tuple]:
    """Yields (buffer, file offset of buffer[0], payload starts, payload ends as int64 arrays) per chunk;
    `start` is the file offset of the stream's position (offsets in errors and warnings are the file's).

    Raises CorruptEventFileError (naming `path` and the record's byte offset) on a CRC mismatch or
    an impossible length, after yielding the records before it. When the file ends inside a record
    it stops, calls `on_truncated(offset)` and, with `warn_truncated`, warns TruncatedTailWarning (a
    reader of a file still being written passes False: a cut tail is no damage there).
    """
    read = stream.read
    buf = b""
    base = start  # file offset of buf[0]
    need = 0  # bytes the pending record at buf[0] needs in all
    heads_ok: dict[int, int] = {}  # record length -> its verified masked CRC
    eof = False
    while not eof:
        want = max(chunk_bytes, need - len(buf))
        more = read_bounded(read, want) if want > chunk_bytes else read(want)
        if len(more) < want:
            eof = True
        buf = buf + more if buf else more
        chunk = _chunk_records(buf, heads_ok)
        if chunk is None:
            if eof:
                break
            need = 12
            continue
        starts, ends, pending = chunk.starts, chunk.ends, chunk.pending
        if len(starts):
            mv = memoryview(buf)
            bad = _first_bad_payload(buf, mv, starts, ends)
            mv.release()
            if bad is not None:  # hand out the good records before the damage, then report it
                if bad:
                    yield buf, base, starts[:bad], ends[:bad]
                _corrupt(path, base + int(starts[bad]) - 12, "payload CRC mismatch")
            yield buf, base, starts, ends
        if chunk.damage is not None:
            offset = base + chunk.damage_at
            _corrupt(path, offset, chunk.damage if offset else chunk.damage + " (not an event file?)")
        consumed = pending if pending is not None else (int(ends[-1]) + 4 if len(ends) else 0)
        if pending is not None:
            need = 16 + int(_LEN(buf, pending)[0])
            if need - 16 > MAX_RECORD_BYTES:  # the length itself, as the header check and read_records judge it
                _corrupt(path, base + pending, _impossible(need - 16))
        else:
            need = 0
        buf = buf[consumed:]
        base += consumed
    if buf:
        if on_truncated is not None:
            on_truncated(base)
        if warn_truncated:
            warnings.warn(truncated_tail(path, base, len(buf)), TruncatedTailWarning, stacklevel=3)


class _Chunk(NamedTuple):
    """What a buffer of records holds: the payload spans of its whole records, the offset of a record
    that continues past its end (None: none), and a damaged header right after the records."""

    starts: np.ndarray
    ends: np.ndarray
    pending: int | None
    damage: str | None
    damage_at: int  # buffer offset the damage is reported at


def _chunk_records(buf: bytes, heads_ok: dict[int, int]) -> _Chunk | None:
    """The records of `buf` (which starts at a record) with their headers checked; None when not even one
    record's header is in it."""
    import numpy as np

    from tensorboard.events.byte_rows import byte_rows  # NumPy's: imported where NumPy is

    positions = walk(buf, len(buf))  # the record chain: each record's length says where the next starts
    if not len(positions):
        return None
    heads = byte_rows(np.frombuffer(buf, np.uint8), positions, 12)
    lengths = heads[:, :8].view("<u8").ravel()
    head_crcs = heads[:, 8:].view("<u4").ravel()
    bad_head = _first_bad_head(buf, positions, lengths, head_crcs, heads_ok)
    damage = None
    if bad_head is not None:
        damage = head_damage(int(lengths[bad_head]), int(head_crcs[bad_head]), heads_ok)
        positions, lengths = positions[:bad_head], lengths[:bad_head]
    ends = positions + 12 + lengths.astype(np.int64)
    pending = None
    if len(positions) and ends[-1] + 4 > len(buf):  # the last record continues in the next read
        pending, positions, ends, lengths = int(positions[-1]), positions[:-1], ends[:-1], lengths[:-1]
    if pending is not None:
        damage_at = pending
    else:
        damage_at = int(positions[-1]) + 16 + int(lengths[-1]) if len(positions) else 0
    return _Chunk(positions + 12, ends, pending, damage, damage_at)


_STRIDE_FIRST = 64  # records a stride guess checks at first; doubled while guesses hold, up to _STRIDE_MOST
_STRIDE_MOST = 1 << 16
_STEP_BY_STEP = 32  # records walked one at a time after a guess that held for fewer than this


RECORD_CHUNK_BYTES = 64 << 10  # what read_records scans at a time: a stream being appended to is read on lazily


def read_records(stream: BinaryIO, path: str | None = None) -> Iterator[Record]:
    """Yields every complete record of `stream`, checking both CRCs (through `scan_spans`,
    RECORD_CHUNK_BYTES at a time).

    Raises TruncatedRecordError when the stream ends inside a record, and
    CorruptRecordError (with the byte offset) for anything else that is wrong.
    """
    cut: list[int] = []
    for buf, base, starts, ends in scan_spans(stream, path, RECORD_CHUNK_BYTES, on_truncated=cut.append,
                                              warn_truncated=False):
        for start, end in zip(starts.tolist(), ends.tolist()):
            yield Record(base + start - HEADER_SIZE, buf[start:end])
    if cut:
        raise TruncatedRecordError("file ends inside a record", cut[0], path)


def walk(buf: bytes, n: int):
    """Offsets (int64 array) of the records in buf[:n] whose 12-byte header is there: each length says
    where the next record starts.

    Logs repeat record lengths (a scalar tag's events differ only when the step's varint grows), so
    the walk guesses that the next records have the current one's length and checks all their
    lengths at once; the guess holds up to the first record of another length, where the walk goes
    on. Where lengths vary from record to record it steps one record at a time.
    """
    import numpy as np

    from tensorboard.events.byte_rows import byte_rows  # NumPy's: imported where NumPy is

    data = np.frombuffer(buf, np.uint8, count=n)
    length_at = _LEN
    parts: list = []
    single: list[int] = []
    p = 0
    batch = _STRIDE_FIRST
    while p + 12 <= n:
        stride = 16 + length_at(buf, p)[0]
        fit = (n - 12 - p) // stride + 1  # records of this stride whose header lies in buf[:n]
        if fit < 4 or batch < _STRIDE_FIRST:
            previous = -1
            for _ in range(_STEP_BY_STEP if batch < _STRIDE_FIRST else 1):  # one at a time
                if p + 12 > n:
                    break
                length = length_at(buf, p)[0]
                if length == previous:  # two records alike: guess again from the second
                    break
                single.append(p)
                p += 16 + length
                previous = length
            batch = _STRIDE_FIRST
            continue
        k = min(fit, batch)
        guess = p + stride * np.arange(k, dtype=np.int64)
        lengths = byte_rows(data, guess, 8).view("<u8").ravel()
        held = np.flatnonzero(lengths != stride - 16)
        m = int(held[0]) if len(held) else k  # guess[m] starts a record of another length
        if single:
            parts.append(np.asarray(single, np.int64))
            single = []
        parts.append(guess[:m])
        p += stride * m
        batch = min(batch * 2, _STRIDE_MOST) if m == k else (_STRIDE_FIRST if m >= _STEP_BY_STEP else 0)
    if single:
        parts.append(np.asarray(single, np.int64))
    return np.concatenate(parts) if parts else np.zeros(0, np.int64)


def _impossible(length: int) -> str:
    return f"impossible record length {length} (more than {MAX_RECORD_BYTES} bytes)"


def head_damage(length: int, head_crc: int, heads_ok: dict) -> str:
    """What is wrong with a record header `_first_bad_head` found: its length CRC, or a length no record has."""
    if heads_ok.get(length) == head_crc and length > MAX_RECORD_BYTES:
        return _impossible(length)
    return "length CRC mismatch"


def _first_bad_head(buf: bytes, positions, lengths, head_crcs, heads_ok: dict) -> int | None:
    """Index of the first record whose length CRC is wrong (or length implausible), or None."""
    import numpy as np

    wrong = np.flatnonzero(bad_heads(lengths, head_crcs, heads_ok))
    return int(wrong[0]) if len(wrong) else None


def bad_heads(lengths, head_crcs, heads_ok: dict):
    """Mask of the records whose length CRC is wrong or whose length no record may have; `heads_ok`
    caches the masked CRC of each length seen."""
    import numpy as np

    distinct = np.unique(lengths)
    for length in distinct.tolist():
        if length not in heads_ok:
            c = crc32c(struct.pack("<Q", length))
            heads_ok[length] = (((c >> 15) | (c << 17)) + MASK_DELTA) & 0xFFFFFFFF
    if len(distinct) > 64:
        expected = np.fromiter((heads_ok[x] for x in lengths.tolist()), np.uint64, len(lengths))
    else:  # few lengths: each record's by its place among them
        table = np.asarray([heads_ok[x] for x in distinct.tolist()], np.uint64)
        expected = table[np.searchsorted(distinct, lengths)]
    return (expected != head_crcs) | (lengths > MAX_RECORD_BYTES)


def _corrupt(path: str, offset: int, message: str) -> None:
    raise CorruptEventFileError(message, offset, path)


def _first_bad_payload(buf: bytes, mv: memoryview, starts, ends) -> int | None:
    """Index of the first record whose payload CRC is wrong, or None; every record's CRC is checked."""
    import numpy as np

    wrong = np.flatnonzero(bad_payloads(buf, mv, starts, ends))
    return int(wrong[0]) if len(wrong) else None


def bad_payloads(buf: bytes, mv: memoryview, starts, ends):
    """Mask of the records whose payload CRC is wrong.

    Short payloads are grouped by length and their CRCs computed column-wise in NumPy (see
    _crc_columns); long ones, or lengths with few records, go one native call per record.
    """
    import numpy as np

    from tensorboard.events.byte_rows import byte_rows  # NumPy's: imported where NumPy is

    wrong = np.zeros(len(starts), bool)
    if not len(starts):
        return wrong
    data = np.frombuffer(buf, np.uint8)
    s = np.asarray(starts, np.int64)
    e = np.asarray(ends, np.int64)
    stored = byte_rows(data, e, 4).view("<u4").ravel().astype(np.uint64)
    rot = (stored - MASK_DELTA) & 0xFFFFFFFF  # unmask: subtract the delta, rotate left by 15
    unmasked = (((rot >> 17) | (rot << 15)) & 0xFFFFFFFF).astype(np.uint32)
    lengths = e - s
    order = np.argsort(lengths, kind="stable")
    cuts = np.flatnonzero(np.diff(lengths[order])) + 1
    for group in np.split(order, cuts):
        length = int(lengths[group[0]])
        if length <= COLUMN_MAX_LENGTH and len(group) >= COLUMN_MIN_RECORDS:
            wrong[group] = crc_columns(data, s[group], length) != unmasked[group]
        else:
            wrong[group] = [crc32c(mv[int(s[i]):int(e[i])]) != int(unmasked[i]) for i in group.tolist()]
    return wrong
