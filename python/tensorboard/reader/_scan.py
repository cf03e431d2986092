"""Record scanning: walks an event file in large chunks, checks both CRCs of every record natively,
and hands out payload spans (no per-record objects), so decoders can work on the raw bytes."""
from __future__ import annotations

import struct
import warnings
from typing import BinaryIO, Iterator

from tensorboard.crc32c import crc32c
from tensorboard.record import MAX_RECORD_BYTES, CorruptRecordError, _read_bounded

_HEAD = struct.Struct("<QI").unpack_from
_U32 = struct.Struct("<I").unpack_from
CHUNK_BYTES = 1 << 22  # 4 MiB: big enough to amortise reads, small enough to keep memory flat


class CorruptEventFileError(CorruptRecordError):
    """An event file is damaged before its end (bad CRC, impossible length, unparsable event)."""


class TruncatedTailWarning(UserWarning):
    """An event file ends inside a record (its writer was killed mid-write); the partial record is skipped."""


class DamagedFileWarning(UserWarning):
    """A damaged event file was cut short at the damage because the caller asked to skip damaged files."""


def _masked(data) -> int:
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def scan_spans(stream: BinaryIO, path: str, chunk_bytes: int = CHUNK_BYTES,
               on_truncated=None) -> Iterator[tuple[bytes, int, list[int], list[int]]]:
    """Yields (buffer, file offset of buffer[0], payload starts, payload ends) for every complete record.

    Raises CorruptEventFileError (naming `path` and the record's byte offset) on a CRC mismatch or
    an impossible length; warns TruncatedTailWarning (and calls `on_truncated(offset)`) and stops
    when the file ends inside a record.
    """
    read = stream.read
    head, mask_delta = _HEAD, 0xA282EAD8
    buf = b""
    base = 0  # file offset of buf[0]
    eof = False
    while not eof:
        more = read(chunk_bytes)
        if not more:
            eof = True
        buf = buf[0:] + more if buf else more
        n = len(buf)
        pos = 0
        starts: list[int] = []
        ends: list[int] = []
        sa, ea = starts.append, ends.append
        mv = memoryview(buf)
        while pos + 12 <= n:
            length, length_crc = head(buf, pos)
            c = crc32c(mv[pos:pos + 8])
            if ((((c >> 15) | (c << 17)) + mask_delta) & 0xFFFFFFFF) != length_crc:
                _corrupt(path, base + pos, "length CRC mismatch" if base + pos else
                         "length CRC mismatch (not an event file?)")
            if length > MAX_RECORD_BYTES:
                _corrupt(path, base + pos, f"implausible record length {length}")
            end = pos + 12 + length
            if end + 4 > n:
                if length + 16 > chunk_bytes and not eof:  # one record bigger than a chunk: read it whole
                    rest = _read_bounded(read, end + 4 - n)
                    mv.release()
                    buf = buf + rest
                    n = len(buf)
                    mv = memoryview(buf)
                    if end + 4 > n:
                        eof = True
                        break
                else:
                    break
            c = crc32c(mv[pos + 12:end])
            if ((((c >> 15) | (c << 17)) + mask_delta) & 0xFFFFFFFF) != _U32(buf, end)[0]:
                _corrupt(path, base + pos, "payload CRC mismatch")
            sa(pos + 12)
            ea(end)
            pos = end + 4
        mv.release()
        if starts:
            yield buf, base, starts, ends
        buf = buf[pos:]
        base += pos
        if eof and buf:
            if on_truncated is not None:
                on_truncated(base)
            warnings.warn(f"{path} at byte {base}: file ends inside a record ({len(buf)} bytes); "
                          "skipping the partial record", TruncatedTailWarning, stacklevel=3)
    return


def _corrupt(path: str, offset: int, message: str) -> None:
    raise CorruptEventFileError(message, offset, path)
