"""Following the files being written (Logdir.follow, between reloads): what was appended to a file that
grew since it was first read shows at once, read as a reload reads it; anything else (a file read once,
a new file, a replaced or rewritten file) waits for the next reload, which then serves what upstream's
loader serves."""
from __future__ import annotations

import os

from test_provider import _event, _header, assert_same, ours, upstream

from tensorboard.serving.ingester import follow_tick

E = "exp"
LIVE = 60.0


def steps(provider, run="a"):
    data = provider.read_scalars(None, experiment_id=E, plugin_name="scalars", downsample=10_000)
    return [d.step for d in data.get(run, {}).get("loss", [])]


def append(path, first, last):
    with open(path, "ab") as f:
        f.write(b"".join(_event(s, loss=float(s)) for s in range(first, last)))


def live_logdir(tmp_path):
    """A run whose file grew after its first read: (path, store, provider), steps 0..19 served."""
    (tmp_path / "a").mkdir()
    path = tmp_path / "a" / "events.out.tfevents.1.host"
    path.write_bytes(_header() + b"".join(_event(s, loss=float(s)) for s in range(10)))
    store, provider = ours(tmp_path)
    append(path, 10, 20)
    store.reload()
    assert steps(provider) == list(range(20))
    return path, store, provider


def test_appended_points_of_a_file_being_written_show_before_the_next_reload(tmp_path):
    path, store, provider = live_logdir(tmp_path)
    append(path, 20, 35)
    assert store.follow(LIVE) == 1
    assert steps(provider) == list(range(35))
    assert store.follow(LIVE) == 0  # nothing new
    store.reload()
    assert steps(provider) == list(range(35))
    assert assert_same(provider, upstream(tmp_path)[1]) == 1


def test_a_file_read_once_or_quiet_for_long_is_left_to_the_reload(tmp_path):
    (tmp_path / "a").mkdir()
    path = tmp_path / "a" / "events.out.tfevents.1.host"
    path.write_bytes(_header() + _event(0, loss=0.0))
    store, provider = ours(tmp_path)
    append(path, 1, 5)
    assert store.follow(LIVE) == 0  # read once: not known to be written to
    store.reload()
    append(path, 5, 8)
    assert store.follow(0.0) == 0  # grew, but not within the window
    assert store.follow(LIVE) == 1
    assert steps(provider) == list(range(8))


def test_new_files_and_runs_wait_for_the_reload(tmp_path):
    path, store, provider = live_logdir(tmp_path)
    (tmp_path / "a" / "events.out.tfevents.2.host").write_bytes(_header() + _event(100, loss=1.0))
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "events.out.tfevents.1.host").write_bytes(_header() + _event(0, loss=1.0))
    assert store.follow(LIVE) == 0
    assert steps(provider) == list(range(20)) and steps(provider, "b") == []
    store.reload()
    assert steps(provider, "b") == [0] and steps(provider)[-1] == 100
    assert assert_same(provider, upstream(tmp_path)[1]) == 2


def test_a_replaced_or_rewritten_file_waits_for_the_reload(tmp_path):
    path, store, provider = live_logdir(tmp_path)
    os.remove(path)  # a new file under the same name: another inode
    path.write_bytes(_header() + b"".join(_event(s, loss=-float(s)) for s in range(30)))
    assert store.follow(LIVE) == 0
    assert steps(provider) == list(range(20))
    store.reload()
    assert assert_same(provider, upstream(tmp_path)[1]) == 1
    append(path, 30, 31)
    store.reload()
    with open(path, "r+b") as f:  # the same inode, rewritten in place: the bytes before the read point differ
        f.write(_header() + b"".join(_event(s, loss=2.0 * s) for s in range(40)))
    assert store.follow(LIVE) == 0
    store.reload()
    assert assert_same(provider, upstream(tmp_path)[1]) == 1


def test_damage_in_the_appended_bytes_ends_the_file_as_a_reload_does(tmp_path):
    path, store, provider = live_logdir(tmp_path)
    good = b"".join(_event(s, loss=float(s)) for s in range(20, 25))
    bad = bytearray(_event(25, loss=25.0))
    bad[-1] ^= 0xFF  # the payload's CRC no longer matches
    with open(path, "ab") as f:
        f.write(good + bytes(bad) + _event(26, loss=26.0))
    assert store.follow(LIVE) == 1
    assert steps(provider) == list(range(25))
    store.reload()
    assert assert_same(provider, upstream(tmp_path)[1]) == 1


def test_no_follow_while_a_reload_runs(tmp_path):
    path, store, provider = live_logdir(tmp_path)
    append(path, 20, 25)
    with store._reload_lock:
        assert store.follow(LIVE) == 0
    assert store.follow(LIVE) == 1


def test_files_being_written_are_read_ten_times_per_reload_interval_at_most_every_tenth_of_a_second():
    assert [follow_tick(i) for i in (5.0, 1.0, 0.5, 30.0)] == [0.5, 0.1, 0.1, 3.0]
