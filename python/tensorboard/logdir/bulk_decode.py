"""Column-at-a-time decoding of plain scalar events (wall_time, step, one tag + simple_value), the bulk
of most logs: NumPy reads every field of a chunk's records at once instead of one event at a time."""
from __future__ import annotations

import numpy as np

from tensorboard.events.byte_rows import byte_rows

_MAX_STEP_BYTES = 5  # steps below 2**35 decode here; larger ones take the per-event path
_HASH_MUL = np.uint64(0x100000001B3)


def plain_scalars(buf: bytes, starts, ends):
    """(ok mask, steps, walls, values, key starts, key lengths, key hashes) for the chunk's records.

    `ok[i]` is True when record i is exactly Event{wall_time, step, summary{value{tag, simple_value}}}
    (the layout every logger writes for a scalar; no step field at step 0); the other columns are
    meaningful only there.
    """
    data = np.frombuffer(buf, np.uint8)
    last = len(data) - 1
    s = np.asarray(starts, np.int64)
    e = np.asarray(ends, np.int64)

    # Every byte read lies in [s, s + 21) or [e - 5, e): bounds are checked per index only when some record
    # is too short or too close to the buffer's edge for that to hold (two passes fewer per column read).
    inside = not len(s) or (int(s.max()) + 21 <= len(data) and int(e.min()) >= 5 and int(e.max()) <= len(data))

    def at(index):
        return data[index] if inside else data[np.clip(index, 0, last)]

    has_step = at(s + 9) == 0x10  # step 0 is left out of the event (protobuf's default)
    ok = (e - s >= 20) & (at(s) == 0x09) & (has_step | (at(s + 9) == 0x2A))
    p = s + 10  # first step byte
    steps = np.zeros(len(s), np.int64)
    width = np.zeros(len(s), np.int64)
    done = ~has_step
    for k in range(_MAX_STEP_BYTES):
        byte = at(p + k).astype(np.int64)
        take = ~done
        steps[take] |= (byte[take] & 0x7F) << (7 * k)
        ends_here = take & (byte < 0x80)
        width[ends_here] = k + 1
        done |= ends_here
    ok &= done
    q = np.where(has_step, p + width, s + 9)  # the summary field
    ok &= at(q) == 0x2A
    ok &= (at(q + 1) < 0x80) & (q + 2 + at(q + 1) == e)
    ok &= (at(q + 2) == 0x0A) & (at(q + 3) < 0x80) & (q + 4 + at(q + 3) == e)
    key_len = at(q + 5).astype(np.int64)
    ok &= (at(q + 4) == 0x0A) & (key_len < 0x80) & (q + 6 + key_len + 5 == e) & (at(e - 5) == 0x15)
    walls = at(s[:, None] + 1 + np.arange(8)).view("<f8").ravel()
    values = at(e[:, None] - 4 + np.arange(4)).view("<f4").ravel().astype(np.float64)
    key_start = q + 6
    return ok, steps, walls, values, key_start, key_len


def key_ids(data: np.ndarray, key_start: np.ndarray, key_len: np.ndarray):
    """(inverse, first index, keys as bytes) grouping equal tag keys exactly (hash, then verified)."""
    longest = int(key_len.max()) if len(key_len) else 0
    cols = np.arange(longest)
    if (len(key_len) and (key_len == longest).all() and int(key_start.min()) >= 0
            and int(key_start.max()) + longest <= len(data)):  # keys of one length (one tag, mostly): rows, whole
        matrix = byte_rows(data, key_start, longest)
    else:
        matrix = data[np.clip(key_start[:, None] + cols, 0, len(data) - 1)]
        matrix[cols[None, :] >= key_len[:, None]] = 0
    peeled = _peel(matrix, key_len)
    if peeled is not None:
        return peeled
    h = key_len.astype(np.uint64)
    with np.errstate(over="ignore"):
        for k in range(longest):
            h = h * _HASH_MUL + matrix[:, k].astype(np.uint64)
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    same = (matrix == matrix[first[inverse]]).all(axis=1) & (key_len == key_len[first[inverse]])
    if not same.all():
        return None  # a hash collision: let the caller fall back
    keys = [bytes(matrix[i, :key_len[i]]) for i in first]
    return inverse.ravel(), first, keys


_PEEL_KEYS = 8  # distinct keys found by comparing with one key at a time; more: by hash


def _peel(matrix: np.ndarray, key_len: np.ndarray):
    """key_ids' result for a chunk of at most _PEEL_KEYS distinct keys (a chunk's records mostly share
    a few tags): each key's records found by comparing every row with it, no hashing or sort; None when
    there are more keys, or its first records hold more than half as many (no comparisons wasted)."""
    head = min(len(key_len), 64)  # a sample first: a chunk of many keys shows them in its first records
    if len({matrix[i].tobytes() + bytes([int(key_len[i])]) for i in range(head)}) > _PEEL_KEYS // 2:
        return None
    inverse = np.full(len(key_len), -1, np.intp)
    firsts: list[int] = []
    rest = np.arange(len(key_len))
    while len(rest):
        if len(firsts) == _PEEL_KEYS:
            return None
        first = int(rest[0])
        same = (matrix[rest] == matrix[first]).all(axis=1) & (key_len[rest] == key_len[first]) \
            if len(rest) < len(key_len) else (matrix == matrix[first]).all(axis=1) & (key_len == key_len[first])
        inverse[rest[same]] = len(firsts)
        firsts.append(first)
        rest = rest[~same]
    keys = [bytes(matrix[i, :key_len[i]]) for i in firsts]
    return inverse, np.asarray(firsts, np.intp), keys
