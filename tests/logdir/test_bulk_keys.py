"""logdir.bulk_decode.key_ids groups records by their exact tag bytes, whichever way it takes: one key at a
time for a few distinct keys, by hash for many; keys that share a prefix or differ in length only
stay apart, and each record's group names its own key."""
from __future__ import annotations

import numpy as np
import pytest

from tensorboard.logdir import bulk_decode


def layout(keys: list[bytes]):
    """(buffer, key starts, key lengths) of `keys` one after another, with a byte between them."""
    data, starts = bytearray(), []
    for key in keys:
        data += b"\xff"
        starts.append(len(data))
        data += key
    lengths = np.asarray([len(k) for k in keys], np.int64)
    return np.frombuffer(bytes(data), np.uint8), np.asarray(starts, np.int64), lengths


@pytest.mark.parametrize("distinct", [1, 2, 3, 8, 9, 40])
def test_each_record_gets_the_group_of_its_own_key(distinct):
    rng = np.random.default_rng(distinct)
    vocabulary = [b"loss", b"loss/", b"los", b"loss\x00", b"acc", b"", b"lr"]
    vocabulary += [b"tag/%d" % i for i in range(distinct)]
    chosen = vocabulary[:distinct]
    keys = [chosen[int(i)] for i in rng.integers(0, distinct, 500)]
    data, starts, lengths = layout(keys)
    inverse, first, found = bulk_decode.key_ids(data, starts, lengths)
    assert sorted(found) == sorted(set(keys))
    assert [found[g] for g in inverse.tolist()] == keys
    assert [keys[i] for i in first.tolist()] == found


def test_the_one_key_and_the_hash_ways_agree():
    keys = [b"a", b"b", b"ab", b"a", b"b"] * 20
    data, starts, lengths = layout(keys)
    peeled = bulk_decode.key_ids(data, starts, lengths)
    hashed = bulk_decode.key_ids(*layout(keys + [b"k%d" % i for i in range(20)]))
    assert [peeled[2][g] for g in peeled[0].tolist()] == keys
    assert [hashed[2][g] for g in hashed[0].tolist()][:len(keys)] == keys


@pytest.mark.parametrize("keys", [[b"loss"] * 50, [b"loss", b"lost", b"acc!"] * 20,
                                  [b"ab", b"ab", b"cd"] * 40 + [b"ab"]])
def test_keys_of_one_length_to_the_buffers_end(keys):
    """Keys all of one length are taken as whole rows (the last one ends the buffer); the groups are the same."""
    data, starts, lengths = layout(keys)
    assert int(starts[-1] + lengths[-1]) == len(data)
    inverse, first, found = bulk_decode.key_ids(data, starts, lengths)
    assert [found[g] for g in inverse.tolist()] == keys
    assert [keys[i] for i in first.tolist()] == found
