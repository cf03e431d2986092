"""scan_tails (many files' new bytes scanned at once) finds, file by file, what scan_spans finds
scanning each alone: the same intact records, the same end of the whole records, and the same damage
(kind and byte offset): on intact files, files cut anywhere, and files with a byte flipped anywhere."""
from __future__ import annotations

import io
import warnings

import numpy as np
import pytest

from tensorboard.events.record import frame
from tensorboard.events.scan import CorruptEventFileError, TruncatedTailWarning, scan_spans
from tensorboard.events.scan_many import scan_tails


def alone(data: bytes) -> tuple[list[bytes], int, str | None]:
    """(payloads, bytes of whole intact records, damage message) as scan_spans reads `data`."""
    payloads, cut, damage = [], [], None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", TruncatedTailWarning)
        try:
            for buf, base, starts, ends in scan_spans(io.BytesIO(data), "f", on_truncated=cut.append):
                payloads += [bytes(buf[s:e]) for s, e in zip(starts.tolist(), ends.tolist())]
        except CorruptEventFileError as err:
            return payloads, int(err.offset), str(err)
    return payloads, cut[0] if cut else len(data), damage


def files(rng) -> list[bytes]:
    """Event-file bytes of mixed record lengths: intact, cut, and with one byte flipped."""
    out = []
    for _ in range(40):
        lengths = rng.choice([0, 3, 25, 25, 25, 300, 5000], size=int(rng.integers(0, 60)))
        data = bytearray(b"".join(frame(bytes(rng.integers(0, 256, n, dtype=np.uint8))) for n in lengths))
        kind = rng.integers(0, 3)
        if kind == 1 and data:
            data = data[:int(rng.integers(0, len(data)))]
        elif kind == 2 and data:
            data[int(rng.integers(0, len(data)))] ^= 1 << int(rng.integers(0, 8))
        out.append(bytes(data))
    out.append(b"not an event file at all, just some text")
    return out


def assert_each_scans_as_alone(tails: list[bytes]) -> None:
    """scan_tails of `tails` finds in each what scan_spans finds alone: records, whole bytes and damage."""
    joined, starts, ends, scans = scan_tails(tails)
    for data, scan in zip(tails, scans):
        payloads, consumed, damage = alone(data)
        found = [joined[s:e] for s, e in zip(starts[scan.first:scan.first + scan.count].tolist(),
                                             ends[scan.first:scan.first + scan.count].tolist())]
        assert found == payloads
        assert scan.consumed == consumed
        if damage is None:
            assert scan.damage is None
        else:
            message = scan.damage + (" (not an event file?)" if scan.in_header and not scan.consumed else "")
            assert scan.damage is not None and message in damage, (message, damage)


@pytest.mark.parametrize("seed", range(5))
def test_each_file_scans_as_it_does_alone(seed):
    assert_each_scans_as_alone(files(np.random.default_rng(seed)))


def test_no_tails_and_empty_tails():
    assert scan_tails([])[3] == []
    joined, starts, ends, scans = scan_tails([b"", frame(b"x"), b""])
    assert [(s.count, s.consumed, s.damage) for s in scans] == [(0, 0, None), (1, len(frame(b"x")), None),
                                                                (0, 0, None)]


def same_length_files(rng) -> list[bytes]:
    """Files of one byte length whose record chains differ (other splits of the bytes, a flipped length,
    a cut), among files that share one chain: a chain known from one file must not be taken for another's."""
    out = []
    for _ in range(30):
        first = int(rng.integers(0, 60))
        split = [first, 60 - first, 25]
        data = bytearray(b"".join(frame(bytes(rng.integers(0, 256, n, dtype=np.uint8))) for n in split))
        kind = rng.integers(0, 4)
        if kind == 1:  # a length field changed: the known chain's links no longer hold
            data[int(rng.integers(0, 8))] ^= 1 << int(rng.integers(0, 8))
        elif kind == 2:  # the last record's payload moved into a record of its own length: same bytes in all
            data = bytearray(data[:-16 - 25] + frame(bytes(25)))
        out.append(bytes(data))
    return out


@pytest.mark.parametrize("seed", range(5))
def test_files_of_one_length_with_other_chains_scan_as_alone(seed):
    rng = np.random.default_rng(100 + seed)
    for _ in range(2):  # the second scan meets the chains the first one saw
        assert_each_scans_as_alone(same_length_files(rng))
