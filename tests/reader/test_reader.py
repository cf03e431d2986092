"""Our reader: logdir walking, CRC checks, truncated tails, corruption offsets."""
import os
import warnings

import pytest

import tensorboard
from tensorboard import reader


def write_run(logdir, n=10):
    with tensorboard.SummaryWriter(logdir, metadata=False) as writer:  # the events counted are the scalars
        for i in range(n):
            writer.add_scalar("loss", i / 2, i)
        path = writer.file_writer.path
    return path


def test_read_scalars_by_run(tmp_path):
    write_run(tmp_path / "a", 3)
    write_run(tmp_path / "b", 2)
    scalars = reader.read_scalars(tmp_path)
    assert {run: [(s, v) for s, _, v in rows["loss"]] for run, rows in scalars.items()} == {
        "a": [(0, 0.0), (1, 0.5), (2, 1.0)], "b": [(0, 0.0), (1, 0.5)]}


def test_symlinked_runs_are_read_as_upstream_reads_them_and_loops_end(tmp_path, monkeypatch):
    from upstream import upstream_read

    logdir = tmp_path / "logdir"
    write_run(logdir / "local", 3)
    write_run(tmp_path / "elsewhere" / "run", 2)
    os.symlink(tmp_path / "elsewhere" / "run", logdir / "linked")
    scalars = reader.read_scalars(logdir)
    assert sorted(scalars) == sorted(upstream_read(logdir)["runs"]) == ["linked", "local"]
    assert [v for _, _, v in scalars["linked"]["loss"]] == [0.0, 0.5]
    os.symlink(logdir, logdir / "local" / "loop")  # upstream follows this until the path is too long
    assert sorted(reader.read_scalars(logdir)) == ["linked", "local"]
    monkeypatch.chdir(logdir)  # a relative root: "." and "./" name the logdir itself
    for root in (".", "./", "local/.."):
        assert sorted(reader.read_scalars(root)) == ["linked", "local"], root


def test_truncated_tail_is_skipped_and_reported(tmp_path):
    path = write_run(tmp_path, 5)
    size = os.path.getsize(path)
    with open(path, "r+b") as f:
        f.truncate(size - 3)
    events_reader = reader.EventFileReader(path)
    with pytest.warns(reader.TruncatedTailWarning):
        events = list(events_reader)
    assert [e.step for e in events[1:]] == [0, 1, 2, 3]
    assert events_reader.truncated_at is not None and events_reader.truncated_at < size


def test_corruption_in_the_middle_raises_with_offset(tmp_path):
    path = write_run(tmp_path, 5)
    data = bytearray(open(path, "rb").read())
    data[60] ^= 0xFF
    open(path, "wb").write(bytes(data))
    with pytest.raises(reader.CorruptEventFileError, match=r"at byte \d+"):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            list(reader.read_events(path))


def test_non_event_payload_is_corruption(tmp_path):
    from tensorboard.events import record

    path = tmp_path / "events.out.tfevents.1.h.1.0"
    path.write_bytes(record.frame(b"\xff\xff\xff"))
    with pytest.raises(reader.CorruptEventFileError, match="not an Event"):
        list(reader.read_events(path))


def test_a_frame_changed_by_the_caller_leaves_the_next_one_as_read(tmp_path):
    """Each access gives a frame of its own (a shallow copy where pandas copies on write, a deep one before)."""
    write_run(tmp_path / "a", 3)
    summary = reader.SummaryReader(str(tmp_path))
    first = summary.scalars
    first.loc[0, "value"] = -1.0
    first["step"] += 100
    again = summary.get_events("scalars")
    assert again["value"].tolist() == [0.0, 0.5, 1.0] and again["step"].tolist() == [0, 1, 2]
    assert first["value"].tolist()[0] == -1.0
