"""Many scalar events of one tag at once, framed: the bytes `record.frame(wire.scalar_event(...))` gives
each point, built column-wise in NumPy. A reduction over seeds writes hundreds of thousands of points
that are all known at once; encoding them one call at a time would cost more than everything else."""
from __future__ import annotations

import struct

import numpy as np

from tensorboard.events.crc32c import MASK_DELTA, masked_crc32c
from tensorboard.events.crc_columns import crc_rows
from tensorboard.events.wire import scalar_prefix

_VARINT_BOUNDS = np.array([1 << (7 * k) for k in range(1, 10)], np.uint64)  # the smallest value of each longer varint


def scalar_records(tag: str, steps, values, walls) -> bytes:
    """The framed records of scalar events of `tag`, one per (step, value, wall time), in order.

    Raises:
        OverflowError: a finite value beyond float32's range (the event stores a float32; a caller
            that wants it logged anyway writes it through `SummaryWriter.add_scalar`).
        ValueError: the three columns differ in length.
    """
    steps = np.asarray(steps, np.int64)
    values = np.asarray(values, np.float64)
    walls = np.asarray(walls, np.float64)
    if not len(steps) == len(values) == len(walls):
        raise ValueError(f"tag {tag!r}: {len(steps)} steps, {len(values)} values, {len(walls)} wall times")
    with np.errstate(over="ignore"):
        floats = values.astype("<f4")
    beyond = np.isfinite(values) & ~np.isfinite(floats)
    if beyond.any():
        at = int(np.flatnonzero(beyond)[0])
        raise OverflowError(f"tag {tag!r}: {float(values[at])!r} at step {int(steps[at])} is beyond float32's range")
    unsigned = steps.view(np.uint64)  # a negative step as its 10-byte two's complement, as wire.varint
    lengths = np.where(steps == 0, 0, 1 + np.searchsorted(_VARINT_BOUNDS, unsigned, side="right"))
    prefix = np.frombuffer(scalar_prefix(tag), np.uint8)
    cuts = [0, *(np.flatnonzero(np.diff(lengths)) + 1).tolist(), len(steps)]
    return b"".join(_records(prefix, unsigned[lo:hi], int(lengths[lo]), floats[lo:hi], walls[lo:hi])
                    for lo, hi in zip(cuts, cuts[1:]) if hi > lo)


def _records(prefix: np.ndarray, steps: np.ndarray, varint_bytes: int, floats: np.ndarray, walls: np.ndarray) -> bytes:
    """Records whose steps' varints are all `varint_bytes` long (0: step 0, which the event leaves out)."""
    rows = len(steps)
    size = 9 + (1 + varint_bytes if varint_bytes else 0) + len(prefix) + 4
    head = struct.pack("<Q", size)
    records = np.empty((rows, 12 + size + 4), np.uint8)  # the payloads are built in place, not copied in
    records[:, :12] = np.frombuffer(head + struct.pack("<I", masked_crc32c(head)), np.uint8)
    payload = records[:, 12:12 + size]
    payload[:, 0] = 0x09  # Event.wall_time, a double
    payload[:, 1:9] = walls.astype("<f8").view(np.uint8).reshape(rows, 8)
    at = 9
    if varint_bytes:
        payload[:, 9] = 0x10  # Event.step, a varint
        for i in range(varint_bytes):
            group = (steps >> np.uint64(7 * i)) & np.uint64(0x7F)
            payload[:, 10 + i] = group | np.uint64(0x80 if i < varint_bytes - 1 else 0)
        at = 10 + varint_bytes
    payload[:, at:at + len(prefix)] = prefix
    payload[:, -4:] = floats.view(np.uint8).reshape(rows, 4)
    crcs = crc_rows(payload).astype(np.uint64)  # a lookup per byte position that varies: step, value, wall time
    masked = (((crcs >> np.uint64(15)) | (crcs << np.uint64(17))) + np.uint64(MASK_DELTA)) & np.uint64(0xFFFFFFFF)
    records[:, 12 + size:] = masked.astype("<u4").view(np.uint8).reshape(rows, 4)
    return records.tobytes()
