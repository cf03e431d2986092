"""The record walk finds exactly the record offsets a one-record-at-a-time walk finds, whatever the
mix of record lengths: runs of one length (the stride guess), lengths changing at every record,
a record cut off at the end, garbage lengths, and buffers too short for a header."""
from __future__ import annotations

import struct

import numpy as np
import pytest

from tensorboard.events import scan as _scan


def one_at_a_time(buf: bytes, n: int) -> list[int]:
    out, p = [], 0
    while p + 12 <= n:
        out.append(p)
        p += 16 + struct.unpack_from("<Q", buf, p)[0]
    return out


def records(lengths) -> bytes:
    """Framed records (CRCs zero: the walk reads lengths only) with payloads of the given lengths."""
    return b"".join(struct.pack("<Q", n) + bytes(4) + bytes([7]) * n + bytes(4) for n in lengths)


def runs_of(rng, count: int) -> list[int]:
    """Lengths in runs of random sizes (1 to 3,000 records), as logs of a few tags give them."""
    out: list[int] = []
    while len(out) < count:
        out += [int(rng.integers(0, 60))] * int(rng.integers(1, 3000))
    return out[:count]


@pytest.mark.parametrize("seed", range(6))
def test_walk_matches_the_record_by_record_walk(seed):
    rng = np.random.default_rng(seed)
    shapes = {
        "one length": [25] * 20_000,
        "runs": runs_of(rng, 20_000),
        "every record another length": rng.integers(0, 200, 5_000).tolist(),
        "alternating": [10, 11] * 3_000,
        "short runs": sum(([int(x)] * int(rng.integers(1, 40)) for x in rng.integers(0, 90, 600)), []),
    }
    for name, lengths in shapes.items():
        buf = records(lengths)
        for n in (len(buf), len(buf) - int(rng.integers(1, 30)), int(rng.integers(0, len(buf)))):
            assert _scan.walk(buf, n).tolist() == one_at_a_time(buf, n), (name, n)


def test_walk_of_garbage_and_tiny_buffers():
    rng = np.random.default_rng(7)
    for size in (0, 5, 11, 12, 13, 100, 10_000):
        buf = rng.integers(0, 256, size, dtype=np.uint8).tobytes()
        assert _scan.walk(buf, len(buf)).tolist() == one_at_a_time(buf, len(buf))
    # a run of one length ending in an impossible length: the walk stops where the chain leaves the buffer
    buf = records([30] * 500) + struct.pack("<Q", 2**63) + bytes(40)
    assert _scan.walk(buf, len(buf)).tolist() == one_at_a_time(buf, len(buf))
