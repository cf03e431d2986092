"""Per-record CRC-32C of many equal-length payloads at once, in NumPy.

CRC-32C is affine: crc(d) = crc(L zero bytes) ^ lin(d), where lin is the table-driven CRC with a zero
start and no final xor. lin is linear in the bytes, so byte i of an L-byte payload contributes
lin(byte at i, then L-1-i zeros), a 256-entry table per position. A column of payload bytes is one
table lookup across every record, so a group of N short records costs L vectorised lookups instead
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
    tables = _position_tables(length)
    columns = np.ascontiguousarray(byte_rows(data, starts, length).T)
    # A position holding the same byte in every record (a field's key, a tag, the high bytes of a
    # wall time: most of a logger's scalar event) adds the same term to every record's CRC: once.
    same = (columns == columns[:, :1]).all(axis=1)
    constant = _zeros_crc(length)
    for i in np.flatnonzero(same).tolist():
        constant ^= int(tables[i][columns[i, 0]])
    acc = np.full(n, constant, np.uint32)
    for i in np.flatnonzero(~same).tolist():
        acc ^= tables[i][columns[i]]
    return acc
