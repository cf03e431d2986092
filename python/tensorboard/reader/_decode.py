"""Decodes one event file into a RunData. Plain scalar and HistogramProto events (what every logger
writes most) are decoded straight from the record bytes; anything else goes through protobuf."""
from __future__ import annotations

import struct
import warnings
from typing import BinaryIO

from tensorboard.reader._scan import CorruptEventFileError, DamagedFileWarning, scan_spans
from tensorboard.reader._store import RunData, histo_row

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
    from tensorboard.src import event_pb2

    scalars = run.scalars
    scalar_keys, histo_keys = run.scalar_keys, run.histo_keys
    d, f = _D, _F
    count = 0
    try:
        for buf, base, starts, ends in scan_spans(stream, path, on_truncated=on_truncated):
            s_tags, s_steps, s_walls = scalars.tags.append, scalars.steps.append, scalars.walls.append
            s_files, s_values = scalars.files.append, scalars.values.append  # purges edit columns in place
            for i in range(len(starts)):
                start = pos = starts[i]
                end = ends[i]
                count += 1
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
                            if step & 0x80:
                                step, pos = _varint(buf, pos + 1)
                                if step >= 1 << 63:
                                    step -= 1 << 64
                            else:
                                pos += 2
                            b = buf[pos] if pos < end else 0
                        if b == 0x2A:
                            length = buf[pos + 1]
                            if length & 0x80:
                                length, pos = _varint(buf, pos + 1)
                            else:
                                pos += 2
                            if pos + length == end:
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
                    if step < run.most_recent_step:
                        run.before_summary(step, [scalars.tag_names[v[0]] if len(v) == 2 else v[1] for v in fast])
                    run.most_recent_step = step
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
                    raise CorruptEventFileError(f"record is not an Event ({err})", base + start - 12, path) from None
    except CorruptEventFileError as err:
        if not skip_damaged:
            raise
        warnings.warn(f"{err}; the rest of this file is skipped", DamagedFileWarning, stacklevel=2)
    return count


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
