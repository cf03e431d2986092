"""TFRecord framing: round trips, truncated tails and corruption with offsets."""
import io
import struct

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tensorboard.events import record, scan
from tensorboard.events.crc32c import masked_crc32c


def frames(payloads):
    return b"".join(record.frame(p) for p in payloads)


def test_frame_layout():
    data = record.frame(b"abc")
    (length,) = struct.unpack("<Q", data[:8])
    assert length == 3
    assert struct.unpack("<I", data[8:12])[0] == masked_crc32c(data[:8])
    assert data[12:15] == b"abc"
    assert struct.unpack("<I", data[15:19])[0] == masked_crc32c(b"abc")


@given(st.lists(st.binary(max_size=300), max_size=20))
def test_frame_many_equals_frames_and_reads_back(payloads):
    data = record.frame_many(payloads)
    assert data == frames(payloads)
    got = [r.payload for r in scan.read_records(io.BytesIO(data))]
    assert got == payloads


def test_offsets_are_record_starts():
    data = frames([b"a", b"bcd", b""])
    offsets = [r.offset for r in scan.read_records(io.BytesIO(data))]
    assert offsets == [0, 17, 36]


@pytest.mark.parametrize("cut", [1, 11, 12, 14, 16])
def test_truncated_tail_is_reported_after_complete_records(cut):
    data = frames([b"first", b"second"])
    second_start = 12 + 5 + 4
    stream = io.BytesIO(data[: second_start + cut])
    reader = scan.read_records(stream, "f")
    assert next(reader).payload == b"first"
    with pytest.raises(record.TruncatedRecordError) as err:
        next(reader)
    assert err.value.offset == second_start


def test_payload_corruption_names_offset():
    data = bytearray(frames([b"first", b"second", b"third"]))
    data[21 + 12 + 2] ^= 0x01  # a byte inside "second"
    reader = scan.read_records(io.BytesIO(bytes(data)), "events.x")
    assert next(reader).payload == b"first"
    with pytest.raises(record.CorruptRecordError, match="events.x at byte 21: payload CRC mismatch"):
        next(reader)


def test_length_corruption_is_not_read_as_a_huge_record():
    data = bytearray(frames([b"first"]))
    data[3] = 0xFF
    with pytest.raises(record.CorruptRecordError, match="length CRC mismatch"):
        list(scan.read_records(io.BytesIO(bytes(data))))
