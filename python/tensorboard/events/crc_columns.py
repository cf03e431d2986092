"""Per-record CRC-32C of many equal-length payloads at once, in NumPy.

CRC-32C is affine: crc(d) = crc(L zero bytes) ^ lin(d), where lin is the table-driven CRC with a zero
start and no final xor. lin is linear in the bytes, so byte i of an L-byte payload contributes
lin(byte at i, then L-1-i zeros), a 256-entry table per position. Hence crc(d) = crc(f) ^ lin(d ^ f)
for the first payload f: one native CRC of f, then a table lookup across every record for each byte
position where some payload differs from f. Records of one tag share most of their bytes (the tag, the
field tags, often the wall time), so a group of N short records costs a few vectorised lookups instead
of N native calls. Every record gets its own CRC: this is a full check, not a combined one.
"""
from __future__ import annotations

from functools import lru_cache

from tensorboard.events.crc32c import TABLE, crc32c

COLUMN_MAX_LENGTH = 192  # longer payloads: one native call per record is already cheaper per byte
COLUMN_MIN_RECORDS = 16  # fewer records: the per-call overhead of native CRCs is smaller than NumPy's


@lru_cache(maxsize=64)
def _position_tables(length: int):
    """(length, 256) uint32: row i maps a byte at position i to its linear CRC contribution."""
    import numpy as np

    table = np.asarray(TABLE, np.uint32)
    out = np.empty((length, 256), np.uint32)
    out[length - 1] = table
    for i in range(length - 2, -1, -1):  # one more zero byte after position i
        after = out[i + 1]
        out[i] = table[after & 0xFF] ^ (after >> 8)
    out.setflags(write=False)
    return out


@lru_cache(maxsize=256)
def _zeros_crc(length: int) -> int:
    return crc32c(bytes(length))


def crc_columns(data, starts, length: int):
    """uint32 CRC-32C of each `length`-byte payload data[start:start+length] (data: uint8 array)."""
    import numpy as np

    from tensorboard.events.byte_rows import byte_rows  # NumPy's: imported where NumPy is

    n = len(starts)
    if length == 0 or n == 0:
        return np.full(n, _zeros_crc(length), np.uint32)
    rows = byte_rows(data, starts, length)  # a view of `data`: each record's bytes, a row
    return _from_first(rows.T.copy(), rows[0])


def crc_rows(rows):
    """uint32 CRC-32C of each row of `rows`, a (records, length) uint8 array of payloads."""
    import numpy as np

    n, length = rows.shape
    if length == 0 or n == 0:
        return np.full(n, _zeros_crc(length), np.uint32)
    return _from_first(rows.T.copy(), rows[0])  # a copy whatever the shape: _from_first overwrites it


def _from_first(columns, first):
    """The CRCs of the payloads whose bytes are `columns` (length x records, a fresh array, overwritten
    here), from the first payload's: a lookup only at the positions where some payload differs from it."""
    import numpy as np

    first = np.array(first, np.uint8)
    acc = np.full(columns.shape[1], crc32c(first.tobytes()), np.uint32)
    columns ^= first[:, None]
    tables = _position_tables(len(first))
    for position in np.flatnonzero(columns.any(axis=1)).tolist():
        acc ^= tables[position][columns[position]]
    return acc
