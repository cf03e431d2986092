"""The reader's sink of the reading pipeline (logdir.records): events into a RunData. Plain scalar and
HistogramProto events (what every logger writes most) are decoded straight from the record bytes;
anything else goes through protobuf."""
from __future__ import annotations

import struct
import warnings
from typing import BinaryIO

from tensorboard.events.record import CorruptEventFileError, DamagedFileWarning, not_an_event
from tensorboard.logdir.payloads import DamagedValueWarning
from tensorboard.logdir.records import RecordBlock, ScalarStretch, feed_stream
from tensorboard.logdir.run_data import RunData, histo_row

BULK_MIN = 64  # fewer plain scalars are cheaper one by one (the raw-byte path below is fast)

_D = struct.Struct("<d").unpack_from
_F = struct.Struct("<f").unpack_from
_HISTO_FIELDS = {0x09: 0, 0x11: 1, 0x19: 2, 0x21: 3, 0x29: 4}


def _varint(buf, pos: int) -> tuple[int, int]:
    """(value, next position) of the varint at `pos`."""
    result = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _tag_prefix(key: bytes, field_byte: int) -> str | None:
    """The tag when `key` is exactly <field 1: tag> followed by `field_byte`, else None."""
    if len(key) < 3 or key[0] != 0x0A or key[-1] != field_byte:
        return None
    length, pos = _varint(key, 1)
    if pos + length != len(key) - 1:
        return None
    try:
        return key[pos:pos + length].decode("utf-8")
    except UnicodeDecodeError:
        return None


def _histo(buf, pos: int, end: int):
    """(min, max, num, sum, sum_squares, limits, counts) of a HistogramProto at buf[pos:end], or None."""
    import numpy as np

    fields = [0.0, 0.0, 0.0, 0.0, 0.0]
    limits = counts = None
    while pos < end:
        key = buf[pos]
        slot = _HISTO_FIELDS.get(key)
        if slot is not None:
            fields[slot] = _D(buf, pos + 1)[0]
            pos += 9
        elif key == 0x32 or key == 0x3A:
            length, pos = _varint(buf, pos + 1)
            if length % 8 or pos + length > end:
                return None
            if (limits if key == 0x32 else counts) is not None:
                return None  # one field in several packed chunks (valid, rare): let protobuf join them
            column = np.frombuffer(buf, "<f8", length // 8, pos).astype(np.float64)
            if key == 0x32:
                limits = column
            else:
                counts = column
            pos += length
        else:
            return None  # unpacked repeated doubles or unknown fields: let protobuf decode it
    empty = np.zeros(0, np.float64)
    return (*fields, empty if limits is None else limits, empty if counts is None else counts)


def decode_file(run: RunData, stream: BinaryIO, path: str, file_id: int, skip_damaged: bool = False,
                on_truncated=None) -> int:
    """Adds every event of `stream` to `run`; returns the number of events read."""
    sink = RunDataSink(run, file_id)
    try:
        for _ in feed_stream(sink, stream, path, min_plain=BULK_MIN, on_truncated=on_truncated):
            pass
    except CorruptEventFileError as err:
        if not skip_damaged:
            raise
        warnings.warn(f"{err}; the rest of this file is skipped", DamagedFileWarning, stacklevel=2)
    return sink.count


class RunDataSink:
    """The pipeline's sink (logdir.records.RecordSink) for one file of a RunData: plain scalars column-wise,
    other records by the raw-byte decoder below, protobuf where that can't."""

    def __init__(self, run: RunData, file_id: int):
        self.run, self.file_id, self.count = run, file_id, 0

    def add_scalars(self, stretch: ScalarStretch) -> bool:
        if not _append_bulk(self.run, stretch, self.file_id):
            return False
        self.count += len(stretch.steps)
        return True

    def add_records(self, block: RecordBlock, lo: int, hi: int) -> None:
        starts, ends = block.spans.lists(lo, hi)  # the one-by-one path works on Python ints
        _one_by_one(self.run, block.spans.buf, block.base, starts, ends, 0, hi - lo, block.path, self.file_id)
        self.count += hi - lo


def _one_by_one(run: RunData, buf: bytes, base: int, starts: list[int], ends: list[int], lo: int, hi: int,
                path: str, file_id: int) -> None:
    """Decodes records lo..hi one at a time: raw-byte fast paths for scalars and HistogramProtos, else protobuf.
    (Longer than most functions here: the per-record fast path is inlined, as it runs once per record.)"""
    from tensorboard.src import event_pb2

    scalars = run.scalars
    s_tags, s_steps, s_walls = scalars.tags.append, scalars.steps.append, scalars.walls.append
    s_files, s_values = scalars.files.append, scalars.values.append  # purges edit columns in place
    scalar_keys = run.scalar_keys
    summary_step = run.rules.summary_step
    d, f = _D, _F
    for i in range(lo, hi):
        start = pos = starts[i]
        end = ends[i]
        try:
            values = None
            if pos < end:
                b = buf[pos]
                wall = 0.0
                step = 0
                if b == 0x09:
                    wall = d(buf, pos + 1)[0]
                    pos += 9
                    b = buf[pos] if pos < end else 0
                if b == 0x10:
                    step = buf[pos + 1]
                    if not step & 0x80:
                        pos += 2
                    elif not buf[pos + 2] & 0x80:  # steps below 16384: two bytes, decoded inline
                        step = (step & 0x7F) | (buf[pos + 2] << 7)
                        pos += 3
                    else:
                        step, pos = _varint(buf, pos + 1)
                        if step >= 1 << 63:
                            step -= 1 << 64
                    b = buf[pos] if pos < end else 0
                if b == 0x2A:
                    length = buf[pos + 1]
                    if length & 0x80:
                        length, pos = _varint(buf, pos + 1)
                    else:
                        pos += 2
                    if pos + length == end:
                        # the common case first: one plain scalar value (cached tag key)
                        if buf[pos] == 0x0A and buf[end - 5] == 0x15 and buf[pos + 1] == end - pos - 2:
                            tid = scalar_keys.get(buf[pos + 2:end - 4])
                            if tid is not None:
                                summary_step(step, (scalars.tag_names[tid],))
                                s_tags(tid)
                                s_steps(step)
                                s_walls(wall)
                                s_files(file_id)
                                s_values(f(buf, end - 4)[0])
                                continue
                        values = _summary_values(run, buf, pos, end)
            if values is None:
                run.process_event(event_pb2.Event.FromString(buf[start:end]), file_id)
            else:
                _add_values(run, values, step, wall, file_id)
        except Exception as err:  # protobuf's DecodeError, a varint running off the end, ...
            # the record's checks passed, so the next one starts where it ends: only this one is lost
            warnings.warn(not_an_event(path, base + start - 12, err), DamagedValueWarning, stacklevel=2)


def _summary_values(run: RunData, buf: bytes, pos: int, end: int) -> list[tuple] | None:
    """The Summary at buf[pos:end] as (tag id, value) for plain scalars and (-1, tag, row) for plain
    HistogramProtos; None when any value is something else (the record then goes through protobuf)."""
    scalars, scalar_keys, histo_keys = run.scalars, run.scalar_keys, run.histo_keys
    values: list[tuple] = []
    while pos < end:
        if buf[pos] != 0x0A:
            return None
        vlen = buf[pos + 1]
        if vlen & 0x80:
            vlen, pos = _varint(buf, pos + 1)
        else:
            pos += 2
        vend = pos + vlen
        if vend > end:
            return None
        if buf[vend - 5] == 0x15:
            key = buf[pos:vend - 4]
            tid = scalar_keys.get(key)
            if tid is None:
                tag = _tag_prefix(key, 0x15)
                if tag is not None:
                    tid = scalar_keys[key] = scalars.tag_id(tag)
            if tid is not None:
                values.append((tid, _F(buf, vend - 4)[0]))
                pos = vend
                continue
        row = _fast_histo(buf, pos, vend, histo_keys)
        if row is None:
            return None
        values.append(row)
        pos = vend
    return values


def _add_values(run: RunData, values: list[tuple], step: int, wall: float, file_id: int) -> None:
    """One event's values from _summary_values, after the purge rules for its step."""
    scalars = run.scalars
    run.rules.summary_step(step, [scalars.tag_names[v[0]] if len(v) == 2 else v[1] for v in values])
    for v in values:
        if len(v) == 2:
            scalars.tags.append(v[0])
            scalars.steps.append(step)
            scalars.walls.append(wall)
            scalars.files.append(file_id)
            scalars.values.append(v[1])
        else:
            run.histograms.add(v[1], step, wall, file_id, v[2])


def _fast_histo(buf, pos: int, vend: int, histo_keys: dict):
    """(-1, tag, histogram row) for a Summary.Value holding only a tag and a HistogramProto, or None."""
    if buf[pos] != 0x0A:
        return None
    tlen, p = _varint(buf, pos + 1)
    p += tlen
    if p >= vend or buf[p] != 0x2A:
        return None
    hlen, hstart = _varint(buf, p + 1)
    if hstart + hlen != vend:
        return None
    key = buf[pos:p + 1]
    tag = histo_keys.get(key)
    if tag is None:
        tag = _tag_prefix(key, 0x2A)
        if tag is None:
            return None
        histo_keys[key] = tag
    parsed = _histo(buf, hstart, vend)
    return None if parsed is None else (-1, tag, histo_row(*parsed))


def _append_bulk(run: RunData, stretch: ScalarStretch, file_id: int) -> bool:
    """Appends a stretch of plain scalars column-wise; False when they need the per-event path."""
    import numpy as np

    if not run.rules.purges_none(stretch.steps):  # steps that purge go through the per-event path
        return False
    store = run.scalars
    lookup = np.empty(len(stretch.tags), np.int32)
    for i, (tag, key) in enumerate(zip(stretch.tags, stretch.keys)):  # new tags get ids in order of first
        lookup[i] = store.tag_id(tag)  # appearance, as one by one would
        run.scalar_keys.setdefault(b"\x0a" + _varint_bytes(len(key)) + key + b"\x15", int(lookup[i]))
    store.tags.frombytes(lookup[stretch.tag_of].tobytes())
    store.steps.frombytes(stretch.steps.astype(np.int64).tobytes())
    store.walls.frombytes(stretch.walls.astype(np.float64).tobytes())
    store.files.frombytes(np.full(len(stretch.steps), file_id, np.int32).tobytes())
    store.values.frombytes(stretch.values.astype(np.float64).tobytes())
    run.rules.added(int(stretch.steps[-1]), float(stretch.walls[-1]))
    return True


def _varint_bytes(value: int) -> bytes:
    """`value` as a protobuf varint (a tag's length in the key the one-by-one path looks up)."""
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
