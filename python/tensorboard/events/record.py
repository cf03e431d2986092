"""TFRecord framing: length, masked CRC of the length, payload, masked CRC of the payload.

Writing frames bytes here; reading (`events.scan`, and `scan.read_records` record by record) goes through
the one scanner, which checks both CRCs and tells a truncated tail (a writer died mid-record) apart
from corruption. The errors and warnings of every reader are defined here.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass

from tensorboard.events.crc32c import MASK_DELTA, crc32c, masked_crc32c

_LENGTH = struct.Struct("<Q")
_CRC = struct.Struct("<I")
HEADER_SIZE = 12  # uint64 length + uint32 masked crc
FOOTER_SIZE = 4
# No event we write comes near this; a larger length means a corrupt header that
# slipped past its CRC, and reading it would allocate unbounded memory.
MAX_RECORD_BYTES = 1 << 40


def frame(payload: bytes) -> bytes:
    """One record's bytes for `payload`."""
    header = _LENGTH.pack(len(payload))
    return b"".join((header, _CRC.pack(masked_crc32c(header)), payload, _CRC.pack(masked_crc32c(payload))))


_header_cache: dict[int, bytes] = {}


def _header(length: int) -> bytes:
    """Length and its masked CRC; cached, since a run's events repeat a few lengths."""
    header = _header_cache.get(length)
    if header is None:
        raw = _LENGTH.pack(length)
        header = raw + _CRC.pack(masked_crc32c(raw))
        if len(_header_cache) < 4096:
            _header_cache[length] = header
    return header


def frame_many(payloads) -> bytes:
    """Records for every payload, concatenated (one write instead of many)."""
    pack_crc, crc, cache, header = _CRC.pack, crc32c, _header_cache, _header
    parts = []
    extend = parts.extend
    for payload in payloads:
        head = cache.get(len(payload)) or header(len(payload))
        c = crc(payload)  # masked inline (as crc32c.mask): this loop runs once per event
        extend((head, payload, pack_crc((((c >> 15) | (c << 17)) + MASK_DELTA) & 0xFFFFFFFF)))
    return b"".join(parts)


class RecordError(ValueError):
    """A record that fails its checks; `offset` is where the record starts in the file."""

    def __init__(self, message: str, offset: int, path: str | None = None):
        where = f"{path} at byte {offset}" if path else f"byte {offset}"
        super().__init__(f"{where}: {message}")
        self.offset = offset
        self.path = path


class CorruptRecordError(RecordError):
    """A CRC mismatch or impossible length before the end of the data."""


class TruncatedRecordError(RecordError):
    """The data ends inside a record: the writer stopped mid-write."""


class CorruptEventFileError(CorruptRecordError):
    """An event file is damaged before its end (bad CRC, impossible length, unparsable event)."""


NOT_AN_EVENT = "record is not an Event"  # a record whose checks pass but whose payload protobuf can't parse


def not_an_event(path: str, offset: int, reason: object) -> str:
    """The one line that reports such a record, left out by the readers that read past it."""
    return f"{path} at byte {offset}: {NOT_AN_EVENT} ({reason}); it is left out"


def truncated_tail(path: str, offset: int, left: int) -> str:
    """The one line that reports a file ending inside a record (`left` bytes of it from `offset`)."""
    return f"{path} at byte {offset}: file ends inside a record ({left} bytes); skipping the partial record"


class TruncatedTailWarning(UserWarning):
    """An event file ends inside a record (its writer was killed mid-write); the partial record is skipped."""


class DamagedFileWarning(UserWarning):
    """A damaged event file was cut short at the damage because the caller asked to skip damaged files."""


@dataclass(frozen=True)
class Record:
    offset: int
    payload: bytes


_READ_CHUNK = 1 << 24


def read_bounded(read, size: int) -> bytes:
    """Up to `size` bytes, read in chunks: a bogus huge length costs memory only for the bytes really there."""
    if size <= _READ_CHUNK:
        return read(size)
    parts = []
    remaining = size
    while remaining:
        part = read(min(remaining, _READ_CHUNK))
        if not part:
            break
        parts.append(part)
        remaining -= len(part)
    return b"".join(parts)
