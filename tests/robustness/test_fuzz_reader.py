"""Fuzzing our reader with damaged event files: bit flips, truncations, insertions, random bytes and
bogus (CRC-valid) huge lengths. It may only yield events, warn TruncatedTailWarning, or raise
CorruptEventFileError with a byte offset inside the file; it never loops and never allocates for a
length the file does not have."""
from __future__ import annotations

import io
import random
import struct
import threading
import tracemalloc
import warnings

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings

import tensorboard
from tensorboard import reader
from tensorboard.events import record, scan
from tensorboard.events.crc32c import masked_crc32c
from tensorboard.src import summary_pb2

MUTATIONS = 5000  # mutated files per run (a second or two of reading)


def base_file(tmp_path) -> bytes:
    with tensorboard.FileWriter(tmp_path) as writer:
        for i in range(40):
            writer.add_summary(summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=f"t{i % 3}",
                                                                                   simple_value=i / 7)]), i)
        writer.add_session_log("START", 5, msg="restart \u2603")
        path = writer.path
    return open(path, "rb").read()


class Stream(io.BytesIO):
    """A BytesIO that records the largest read request (so a read of a bogus length shows up)."""

    largest_read = 0

    def read(self, size=-1):
        self.largest_read = max(self.largest_read, size if size is not None else -1)
        return super().read(size)


def read_all(data: bytes, name: str = "events.out.tfevents.fuzz") -> tuple[int, str]:
    """Reads `data` as an event file; ('ok'|'truncated'|'corrupt') and the number of events yielded."""
    events = reader.EventFileReader(name, storage=_BytesStorage(data))
    count = 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            for _ in events:
                count += 1
        except reader.CorruptEventFileError as err:
            assert 0 <= err.offset < len(data), (err.offset, len(data))
            assert f"at byte {err.offset}" in str(err)
            return count, "corrupt"
    assert all(issubclass(w.category, reader.TruncatedTailWarning) for w in caught), [str(w.message) for w in caught]
    if caught:
        assert events.truncated_at is not None and events.truncated_at < len(data)
        return count, "truncated"
    return count, "ok"


class _BytesStorage:
    def __init__(self, data: bytes):
        self.data = data
        self.streams: list[Stream] = []

    def open_read(self, path):
        stream = Stream(self.data)
        self.streams.append(stream)
        return stream


def mutate(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(6)
    buf = bytearray(data)
    if kind == 0:  # bit flips
        for _ in range(rng.randint(1, 8)):
            pos = rng.randrange(len(buf))
            buf[pos] ^= 1 << rng.randrange(8)
    elif kind == 1:  # truncation
        del buf[rng.randrange(len(buf)):]
    elif kind == 2:  # random bytes inserted
        pos = rng.randrange(len(buf) + 1)
        buf[pos:pos] = rng.randbytes(rng.randint(1, 64))
    elif kind == 3:  # a range overwritten
        pos = rng.randrange(len(buf))
        n = rng.randint(1, 32)
        buf[pos:pos + n] = rng.randbytes(n)
    elif kind == 4:  # a CRC-valid header with a random (often huge) length spliced in at a record boundary
        offsets = [r.offset for r in scan.read_records(io.BytesIO(data))]
        pos = rng.choice(offsets)
        length = rng.choice([rng.randrange(1 << 16), 1 << 40, (1 << 40) + 1, (1 << 64) - 1, rng.randrange(1 << 63)])
        raw = struct.pack("<Q", length)
        buf[pos:pos + 12] = raw + struct.pack("<I", masked_crc32c(raw))
    else:  # pure noise
        buf = bytearray(rng.randbytes(rng.randint(0, 400)))
    return bytes(buf)


def test_mutated_event_files(tmp_path):
    data = base_file(tmp_path)
    intact_count, outcome = read_all(data)
    assert outcome == "ok" and intact_count == 42
    rng = random.Random(5)
    outcomes = {"ok": 0, "truncated": 0, "corrupt": 0}
    done = threading.Event()

    def run():
        for _ in range(MUTATIONS):
            _, result = read_all(mutate(data, rng))
            outcomes[result] += 1
        done.set()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(300)
    assert done.is_set(), "the reader looped or hung on a mutated file"
    assert sum(outcomes.values()) == MUTATIONS
    assert outcomes["corrupt"] > 0 and outcomes["truncated"] > 0
    print(f"\nfuzz: {MUTATIONS} mutated files: {outcomes}")


def test_bogus_huge_length_does_not_allocate(tmp_path):
    data = base_file(tmp_path)
    second = list(scan.read_records(io.BytesIO(data)))[1].offset
    for length in (1 << 40, (1 << 40) - 1, 1 << 35):
        raw = struct.pack("<Q", length)
        bad = data[:second] + raw + struct.pack("<I", masked_crc32c(raw)) + data[second + 12:]
        storage = _BytesStorage(bad)
        tracemalloc.start()
        try:
            with warnings.catch_warnings(record=True):
                warnings.simplefilter("always")
                count = sum(1 for _ in reader.EventFileReader("events.out.tfevents.x", storage=storage))
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert count == 1  # the file_version record; the rest is one "record" that runs past the end
        assert peak < 64 << 20, peak  # bounded by the real file (and one read chunk), not by the length
        assert max(s.largest_read for s in storage.streams) <= 1 << 24


@pytest.mark.parametrize("where", ["first", "second"])
def test_an_impossible_length_with_a_valid_crc_is_reported_as_such(tmp_path, where):
    data = base_file(tmp_path)
    at = 0 if where == "first" else list(scan.read_records(io.BytesIO(data)))[1].offset
    raw = struct.pack("<Q", 1 << 62)
    bad = data[:at] + raw + struct.pack("<I", masked_crc32c(raw)) + data[at + 12:]
    with pytest.raises(reader.CorruptEventFileError, match=rf"at byte {at}.*impossible record length {1 << 62} "):
        list(reader.EventFileReader("events.out.tfevents.x", storage=_BytesStorage(bad)))
    with pytest.raises(record.CorruptRecordError, match=f"impossible record length {1 << 62} "):
        list(scan.read_records(io.BytesIO(bad)))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2048))
def test_arbitrary_bytes(data):
    read_all(data)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=200), max_size=10), st.integers(min_value=0, max_value=4000))
def test_valid_framing_of_arbitrary_payloads_then_cut(payloads, cut):
    """CRC-valid records whose payloads are not Events are corruption; a cut is a truncated tail."""
    data = b"".join(record.frame(p) for p in payloads)
    read_all(data[:cut] if cut < len(data) else data)
