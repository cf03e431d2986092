"""The suite's persistent upstream reader (tests/upstream.py): every read is fresh from disk, it keeps no file
of a logdir open between reads, a server that died is started again, and stop() ends it."""
import os
import signal
from pathlib import Path

import pytest
from upstream import _UpstreamReader

import tensorboard


@pytest.fixture
def reader():
    """A reader of the test's own (not the session's), stopped at the end."""
    own = _UpstreamReader()
    yield own
    own.stop()
    assert own.pid() is None


def open_paths(pid: int) -> list[str]:
    return [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]


def scalars(reader, logdir: Path) -> list:
    return [value for _, _, value in reader.read(str(logdir))["runs"]["."]["scalars"]["loss"]]


def test_each_read_sees_what_was_written_since_the_last(reader, tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("loss", 1.0, 0)
        writer.flush()
        assert scalars(reader, tmp_path) == [1.0]
        writer.add_scalar("loss", 2.0, 1)
    assert scalars(reader, tmp_path) == [1.0, 2.0]
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:  # a second file in the same run
        writer.add_scalar("loss", 3.0, 2)
    assert scalars(reader, tmp_path) == [1.0, 2.0, 3.0]


def test_no_file_of_the_logdir_stays_open_after_a_read(reader, tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path / "run")) as writer:
        writer.add_scalar("loss", 1.0, 0)
        writer.add_histogram("weights", [1.0, 2.0, 3.0], 0)
        writer.add_image("picture", [[[0.5]]], 0)
        writer.add_embedding([[1.0, 2.0], [3.0, 4.0]], metadata=["a", "b"], tag="points")
    assert set(reader.read(str(tmp_path))["runs"]) >= {"run"}
    assert not [path for path in open_paths(reader.pid()) if path.startswith(str(tmp_path))]


def test_a_server_that_died_is_started_again(reader, tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("loss", 1.0, 0)
    assert scalars(reader, tmp_path) == [1.0]
    first = reader.pid()
    os.kill(first, signal.SIGKILL)
    assert scalars(reader, tmp_path) == [1.0]
    assert reader.pid() not in (None, first)


def test_a_failed_read_names_the_logdir_and_the_server_goes_on(reader, tmp_path):
    bad, good = tmp_path / "bad", tmp_path / "good"
    bad.mkdir()
    (bad / "projector_config.pbtxt").write_text("this is not a text proto {")
    with tensorboard.SummaryWriter(str(good)) as writer:
        writer.add_scalar("loss", 1.0, 0)
    assert scalars(reader, good) == [1.0]
    server = reader.pid()
    with pytest.raises(AssertionError, match=f"upstream reader failed on {bad}"):
        reader.read(str(bad))
    assert scalars(reader, good) == [1.0] and reader.pid() == server


def test_only_local_directories_are_read():
    from upstream import upstream_read

    with pytest.raises(ValueError, match="local directories only"):
        upstream_read("s3://bucket/logs")


def test_a_read_gives_the_parts_asked_for(reader, tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("loss", 1.0, 0)
        writer.add_embedding([[1.0, 2.0]], tag="points")
    everything = reader.read(str(tmp_path))["runs"]["."]
    assert {"files", "scalars", "tensors", "metadata", "projector"} <= set(everything)
    (classic,) = reader.read(str(tmp_path), ("classic",))["runs"].values()
    assert classic["scalars"] == everything["scalars"]
    assert not {"files", "tensors", "metadata", "projector"} & set(classic)
    with pytest.raises(AssertionError, match=r"no such part \['steps'\]"):
        reader.read(str(tmp_path), ("steps",))
