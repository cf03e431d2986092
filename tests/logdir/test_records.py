"""The one reading pipeline (logdir.records) under both of its sinks: the reader's (SummaryReader) and
the UI's (serving's Logdir). Plain scalar stretches whose tags are long (lengths that take two varint
bytes, and more than 255 bytes) or not UTF-8, between other records, read back as upstream's reader
and its data provider see them; a damaged tag spoils only its own records."""
from __future__ import annotations

import struct
import warnings

import pytest
from upstream import upstream_run

from tensorboard.events.record import frame
from tensorboard.logdir.records import PlainColumns, ScannedFiles, feed_stream, stretch
from tensorboard.reader import SummaryReader
from tensorboard.src import event_pb2

LONG_TAGS = ("t" * 130, "u" * 300)  # 2-byte lengths; longer than a byte can count


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


def _field(key: int, payload: bytes) -> bytes:
    return bytes([key]) + _varint(len(payload)) + payload


def _scalar(step: int, tag: str | bytes, value: float) -> bytes:
    """A plain scalar event's record, encoded by hand (protobuf refuses a tag that is not UTF-8)."""
    tag_bytes = tag.encode() if isinstance(tag, str) else tag
    summary_value = _field(0x0A, tag_bytes) + b"\x15" + struct.pack("<f", value)
    event = b"\x09" + struct.pack("<d", 1000.0 + step) + b"\x10" + _varint(step) \
        + _field(0x2A, _field(0x0A, summary_value))
    return frame(event)


def _logdir(tmp_path, records: list[bytes]):
    header = frame(event_pb2.Event(wall_time=999.0, file_version="brain.Event:2").SerializeToString())
    (tmp_path / "events.out.tfevents.1.host").write_bytes(header + b"".join(records))
    return tmp_path


def _ours(logdir) -> dict[str, list[tuple[int, float]]]:
    frame_ = SummaryReader(str(logdir)).scalars
    return {tag: list(zip(rows.step.tolist(), rows.value.tolist())) for tag, rows in frame_.groupby("tag")}


def _served(logdir) -> dict[str, list[tuple[int, float]]]:
    from tensorboard import context
    from tensorboard.serving.ingester import size_guidance
    from tensorboard.serving.provider import StandaloneDataProvider
    from tensorboard.serving.served_logdir import Logdir

    store = Logdir({str(logdir): None}, *size_guidance(None))
    store.reload()
    provider = StandaloneDataProvider(store, str(logdir))
    read = provider.read_scalars(context.RequestContext(), experiment_id="", plugin_name="scalars",
                                 downsample=100_000)
    return {tag: [(d.step, d.value) for d in data] for tag, data in read.get(".", {}).items()}


def _upstream(logdir) -> dict[str, list[tuple[int, float]]]:
    return {tag: [(step, value) for step, _, value in rows] for tag, rows in upstream_run(logdir)["scalars"].items()}


def test_long_tags_in_stretches_read_as_upstream_reads_them(tmp_path):
    records = [_scalar(step, LONG_TAGS[step % 2], float(step)) for step in range(200)]
    records += [_scalar(200, "short", 1.5)]
    logdir = _logdir(tmp_path, records)
    expected = _upstream(logdir)
    assert sorted(expected) == sorted([*LONG_TAGS, "short"])
    assert _ours(logdir) == expected
    assert _served(logdir) == expected


def test_a_tag_that_is_no_utf8_spoils_only_its_own_records(tmp_path):
    records = [_scalar(step, "loss", float(step)) for step in range(100)]
    records[40] = _scalar(40, b"lo\xffss", 40.0)  # inside a stretch of plain scalars
    logdir = _logdir(tmp_path, records)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ours = _ours(logdir)
    assert [step for step, _ in ours["loss"]] == [s for s in range(100) if s != 40]
    assert any("record is not an Event" in str(w.message) and "it is left out" in str(w.message) for w in caught)
    assert _served(logdir) == ours


def test_stretches_list_tags_in_the_order_they_first_appear():
    import numpy as np

    columns = PlainColumns(np.ones(5, bool), np.arange(5), np.zeros(5), np.arange(5.0),
                           np.array([2, 0, 2, 1, 0]), ["a", "b", "c"], [b"a", b"b", b"c"])
    cut = stretch(columns, 0, 5)
    assert cut.tags == ["c", "a", "b"]
    assert [cut.tags[i] for i in cut.tag_of] == ["c", "a", "c", "b", "a"]


class _Recording:
    """A sink that keeps what the pipeline hands it, in order."""

    def __init__(self):
        self.calls: list[tuple] = []

    def add_scalars(self, stretch_) -> bool:
        self.calls.append(("scalars", [stretch_.tags[i] for i in stretch_.tag_of], stretch_.steps.tolist()))
        return True

    def add_records(self, block, lo: int, hi: int) -> None:
        starts, ends = block.spans.lists(lo, hi)
        self.calls.append(("records", [event_pb2.Event.FromString(block.spans.buf[s:e]).step
                                       for s, e in zip(starts, ends)]))


@pytest.mark.parametrize("min_plain", [0, 64])
def test_a_stream_and_a_batch_hand_a_sink_the_same_stretches(tmp_path, min_plain):
    text = event_pb2.Event(step=7, wall_time=1.0)
    text.summary.value.add(tag="note").metadata.plugin_data.plugin_name = "text"  # not a plain scalar
    data = b"".join([_scalar(s, "a" if s % 3 else "b", float(s)) for s in range(100)]
                    + [frame(text.SerializeToString())]
                    + [_scalar(s, "a", float(s)) for s in range(100, 180)])
    path = str(tmp_path / "f")
    (tmp_path / "f").write_bytes(data)
    by_stream = _Recording()
    with open(path, "rb") as stream:
        offsets = list(feed_stream(by_stream, stream, path, min_plain=min_plain))
    assert offsets[-1] == len(data)
    by_batch = _Recording()
    fed = ScannedFiles([b"", data], min_plain).feed(1, by_batch, path)
    assert fed.count == 181 and fed.left == 0
    assert by_stream.calls == by_batch.calls
    kinds = [call[0] for call in by_stream.calls]
    assert kinds == ["scalars", "records", "scalars"]
