"""Reads a wandb offline run's `.wandb` file (runs inside .venv-ecosystem, where wandb is installed).

The file is wandb's transaction log: a 7-byte header (":W&B", magic 0xBEE1, version 0), then
LevelDB-log-style 32 KiB blocks of records (CRC-32 of type byte + data, length, type FULL/FIRST/
MIDDLE/LAST) holding serialized `wandb_internal_pb2.Record`s. wandb 0.31 writes it from its Go core
and ships no Python reader, so this one reads it; every checksum is verified.
"""
from __future__ import annotations

import json
import struct
import zlib

HEADER = struct.Struct("<4sHB")
RECORD = struct.Struct("<IHB")
BLOCK = 32768
FULL, FIRST, MIDDLE, LAST = 1, 2, 3, 4


def records(path: str) -> list[bytes]:
    """Every record's payload, in order; ValueError on a bad header or checksum."""
    with open(path, "rb") as f:
        data = f.read()
    ident, magic, version = HEADER.unpack_from(data)
    if (ident, magic, version) != (b":W&B", 0xBEE1, 0):
        raise ValueError(f"{path}: not a wandb transaction log (header {data[:7]!r})")
    out, parts, pos = [], [], HEADER.size
    while pos + RECORD.size <= len(data):
        room = BLOCK - pos % BLOCK
        if room < RECORD.size:  # a block's tail too short for a record header is padding
            pos += room
            continue
        checksum, length, kind = RECORD.unpack_from(data, pos)
        if kind == 0 and length == 0:  # zero padding at the end of the last block
            break
        payload = data[pos + RECORD.size:pos + RECORD.size + length]
        if zlib.crc32(payload, zlib.crc32(bytes([kind]))) != checksum:
            raise ValueError(f"{path}: bad checksum at offset {pos}")
        pos += RECORD.size + length
        parts.append(payload)
        if kind in (FULL, LAST):
            out.append(b"".join(parts))
            parts = []
    return out


def history(path: str) -> list[dict]:
    """The run's history rows: {key: value} (values decoded from JSON)."""
    from wandb.proto import wandb_internal_pb2

    rows = []
    for raw in records(path):
        record = wandb_internal_pb2.Record.FromString(raw)
        if record.WhichOneof("record_type") == "history":
            rows.append({(item.key or "/".join(item.nested_key)): json.loads(item.value_json)
                         for item in record.history.item})
    return rows
