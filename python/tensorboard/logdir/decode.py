"""Decodes one event file into a RunData. Plain scalar and HistogramProto events (what every logger
writes most) are decoded straight from the record bytes; anything else goes through protobuf."""
from __future__ import annotations

import struct
import warnings
from typing import BinaryIO

from tensorboard.events.record import CorruptEventFileError, DamagedFileWarning, not_an_event
from tensorboard.events.scan import scan_spans
from tensorboard.logdir.payloads import DamagedValueWarning
from tensorboard.logdir.run_data import RunData, histo_row

_BULK_MIN = 64  # shorter chunks of plain scalars are cheaper one by one

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
    count = 0
    try:
        for buf, base, starts, ends in scan_spans(stream, path, on_truncated=on_truncated):
            spans = Spans(buf, starts, ends)
            count += decode_segments(run, spans, base, _segments(buf, starts, ends), path, file_id)
    except CorruptEventFileError as err:
        if not skip_damaged:
            raise
        warnings.warn(f"{err}; the rest of this file is skipped", DamagedFileWarning, stacklevel=2)
    return count


class Spans:
    """A buffer's intact records: payload starts and ends as arrays, and as Python lists once the
    one-by-one path asks for them (once for all the files a buffer holds)."""

    def __init__(self, buf: bytes, starts, ends):
        self.buf, self.starts, self.ends = buf, starts, ends
        self._lists = None

    def lists(self) -> tuple[list[int], list[int]]:
        if self._lists is None:
            self._lists = self.starts.tolist(), self.ends.tolist()
        return self._lists


def decode_segments(run: RunData, spans: Spans, base: int, segments, path: str, file_id: int) -> int:
    """Adds the records of `segments` ((lo, hi, bulk columns or None)) to `run`; returns how many.
    `base` is the file offset of spans.buf[0], for the offsets errors name."""
    count = 0
    for lo, hi, bulk in segments:
        if bulk is None or not _append_bulk(run, bulk, lo, hi, file_id):
            starts, ends = spans.lists()  # the one-by-one path works on Python ints
            _one_by_one(run, spans.buf, base, starts, ends, lo, hi, path, file_id)
        count += hi - lo
    return count


def _one_by_one(run: RunData, buf: bytes, base: int, starts: list[int], ends: list[int], lo: int, hi: int,
                path: str, file_id: int) -> None:
    """Decodes records lo..hi one at a time: raw-byte fast paths for scalars and HistogramProtos, else protobuf."""
    from tensorboard.src import event_pb2

    scalars = run.scalars
    s_tags, s_steps, s_walls = scalars.tags.append, scalars.steps.append, scalars.walls.append
    s_files, s_values = scalars.files.append, scalars.values.append  # purges edit columns in place
    scalar_keys, histo_keys = run.scalar_keys, run.histo_keys
    rules = run.rules
    d, f = _D, _F
    for i in range(lo, hi):
        start = pos = starts[i]
        end = ends[i]
        try:
            fast = None
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
                                if step < rules.most_recent_step:
                                    rules.summary_step(step, [scalars.tag_names[tid]])
                                else:
                                    rules.most_recent_step = step
                                s_tags(tid)
                                s_steps(step)
                                s_walls(wall)
                                s_files(file_id)
                                s_values(f(buf, end - 4)[0])
                                continue
                        fast = []
                        while pos < end:
                            if buf[pos] != 0x0A:
                                fast = None
                                break
                            vlen = buf[pos + 1]
                            if vlen & 0x80:
                                vlen, pos = _varint(buf, pos + 1)
                            else:
                                pos += 2
                            vend = pos + vlen
                            if vend > end:
                                fast = None
                                break
                            if buf[vend - 5] == 0x15:
                                key = buf[pos:vend - 4]
                                tid = scalar_keys.get(key)
                                if tid is None:
                                    tag = _tag_prefix(key, 0x15)
                                    if tag is not None:
                                        tid = scalar_keys[key] = scalars.tag_id(tag)
                                if tid is not None:
                                    fast.append((tid, f(buf, vend - 4)[0]))
                                    pos = vend
                                    continue
                            row = _fast_histo(buf, pos, vend, histo_keys)
                            if row is None:
                                fast = None
                                break
                            fast.append(row)
                            pos = vend
            if fast is None:
                event = event_pb2.Event.FromString(buf[start:end])
                run.process_event(event, file_id)
                continue
            if step < rules.most_recent_step:
                rules.summary_step(step, [scalars.tag_names[v[0]] if len(v) == 2 else v[1] for v in fast])
            else:
                rules.most_recent_step = step
            for v in fast:
                if len(v) == 2:
                    s_tags(v[0])
                    s_steps(step)
                    s_walls(wall)
                    s_files(file_id)
                    s_values(v[1])
                else:
                    run.histograms.add(v[1], step, wall, file_id, v[2])
        except CorruptEventFileError:
            raise
        except Exception as err:  # protobuf's DecodeError, a varint running off the end, ...
            # the record's checks passed, so the next one starts where it ends: only this one is lost
            warnings.warn(not_an_event(path, base + start - 12, err), DamagedValueWarning, stacklevel=2)


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


def _segments(buf: bytes, starts, ends):
    """(lo, hi, bulk columns or None): runs of plain scalar records (bulk) and of everything else."""
    columns = bulk_columns(buf, starts, ends)
    if columns is None:
        return [(0, len(starts), None)]
    return split_segments(*columns, 0, len(starts))


def bulk_columns(buf: bytes, starts, ends):
    """(plain-scalar mask, bulk columns) of the records at starts..ends, or None where too few records
    are plain scalars for column-wise decoding to pay (they all go one by one)."""
    if len(starts) < _BULK_MIN:
        return None
    import numpy as np

    from tensorboard.logdir.bulk_decode import key_ids, plain_scalars

    ok, steps, walls, values, key_start, key_len = plain_scalars(buf, starts, ends)
    idx = np.flatnonzero(ok)
    if len(idx) < _BULK_MIN:
        return None
    grouped = key_ids(np.frombuffer(buf, np.uint8), key_start[idx], key_len[idx])
    if grouped is None:
        return None
    inverse, first, keys = grouped
    key_of = np.full(len(starts), -1, np.int64)
    key_of[idx] = inverse
    return ok, (steps, walls, values, key_of, keys)


def split_segments(ok, bulk, lo: int, hi: int):
    """Records lo..hi cut where `ok` flips: (lo, hi, bulk) for runs of plain scalars, (lo, hi, None) else."""
    import numpy as np

    if hi <= lo:
        return []
    flips = np.flatnonzero(np.diff(ok[lo:hi].astype(np.int8))) + 1 + lo
    bounds = [lo, *flips.tolist(), hi]
    return [(a, b, bulk if ok[a] else None) for a, b in zip(bounds[:-1], bounds[1:])]


def _append_bulk(run: RunData, bulk, lo: int, hi: int, file_id: int) -> bool:
    """Appends records lo..hi (all plain scalars) column-wise; False when they need the per-event path."""
    import numpy as np

    steps, walls, values, key_of, keys = bulk
    seg_steps = steps[lo:hi]
    if not run.rules.purges_none(seg_steps):  # steps that purge go through the per-event path
        return False
    store = run.scalars
    seg_keys = key_of[lo:hi]
    used, first = np.unique(seg_keys, return_index=True)
    tag_of_key = {}
    for k in used[np.argsort(first)]:  # new tags get ids in order of first appearance, as one by one would
        tag = keys[k].decode("utf-8", errors="strict")
        tag_of_key[int(k)] = store.tag_id(tag)
        run.scalar_keys.setdefault(b"\x0a" + bytes([len(keys[k])]) + keys[k] + b"\x15", tag_of_key[int(k)])
    lookup = np.zeros(int(used.max()) + 1, np.int32)
    for k, tid in tag_of_key.items():
        lookup[k] = tid
    store.tags.frombytes(lookup[seg_keys].astype(np.int32).tobytes())
    store.steps.frombytes(seg_steps.astype(np.int64).tobytes())
    store.walls.frombytes(walls[lo:hi].astype(np.float64).tobytes())
    store.files.frombytes(np.full(hi - lo, file_id, np.int32).tobytes())
    store.values.frombytes(values[lo:hi].astype(np.float64).tobytes())
    run.rules.added(int(seg_steps[-1]), float(walls[hi - 1]))
    return True
