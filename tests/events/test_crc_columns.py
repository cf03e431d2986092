"""Column-wise CRC-32C equals the native CRC of each payload, for every length the reader groups."""
import numpy as np

from tensorboard.events.crc32c import crc32c, crc32c_python
from tensorboard.events.crc_columns import COLUMN_MAX_LENGTH, crc_columns, crc_rows


def test_matches_native_crc_for_every_short_length():
    rng = np.random.default_rng(7)
    for length in list(range(0, 33)) + [47, 64, 100, COLUMN_MAX_LENGTH]:
        data = rng.integers(0, 256, size=50 * (length + 3), dtype=np.uint8)
        starts = np.arange(50) * (length + 3) + 1  # unaligned, with gaps
        got = crc_columns(data, starts, length)
        want = [crc32c(data[s:s + length].tobytes()) for s in starts]
        assert got.tolist() == want
        assert want[0] == crc32c_python(data[starts[0]:starts[0] + length].tobytes())


def test_structured_payloads():
    payloads = [bytes(40), b"\xff" * 40, bytes(range(40)), bytes(range(40))[::-1]]
    data = np.frombuffer(b"".join(payloads), np.uint8)
    assert crc_columns(data, np.arange(4) * 40, 40).tolist() == [crc32c(p) for p in payloads]


def test_payloads_alike_but_for_a_few_bytes():
    """A logger's scalar events share most bytes (keys, tag, the high bytes of the wall time): each record still
    gets its own CRC, whether a position varies in one record, in some, or in none."""
    rng = np.random.default_rng(11)
    base = rng.integers(0, 256, size=30, dtype=np.uint8)
    records = np.tile(base, (64, 1))
    records[:, 3] = rng.integers(0, 256, size=64)  # varies everywhere
    records[17, 20] ^= 0x40  # one record differs at one position
    records[40:, 29] = 7  # some records
    for rows in (records, records[:1], np.tile(base, (16, 1))):  # and all alike
        data = np.concatenate([np.zeros(5, np.uint8), rows.ravel()])
        starts = 5 + np.arange(len(rows)) * rows.shape[1]
        assert crc_columns(data, starts, rows.shape[1]).tolist() == [crc32c(r.tobytes()) for r in rows]


def test_rows_sharing_most_bytes():
    """Records of one tag differ in a few positions (step, value): only those are looked up, the rest is
    the first record's native CRC; identical rows, one row and a lone varying column included."""
    rng = np.random.default_rng(3)
    for records, length in ((1, 30), (5, 1), (200, 37), (1000, 64)):
        rows = np.tile(rng.integers(0, 256, length, dtype=np.uint8), (records, 1))
        assert crc_rows(rows).tolist() == [crc32c(rows[0].tobytes())] * records
        for positions in ([length - 1], [0, length // 2], list(range(length))[-5:]):
            rows[:, positions] = rng.integers(0, 256, (records, len(positions)), dtype=np.uint8)
            assert crc_rows(rows).tolist() == [crc32c(row.tobytes()) for row in rows]
