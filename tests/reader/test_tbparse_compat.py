"""SummaryReader gives tbparse's DataFrames, value for value, on logdirs written by us, tensorboardX,
torch.utils.tensorboard and upstream's v1 *_pb functions (tbparse runs in .venv-upstream)."""
import numpy as np
import pytest
from tbparse_ref import assert_same, tbparse_frames, write_peer_logdirs, write_peer_logs
from upstream import upstream_read

import tensorboard
from tensorboard.reader import SummaryReader

KINDS = ("scalars", "tensors", "histograms", "text", "hparams")
PEERS = ("tbx", "torch", "v1")  # the other writers (tests/tools/write_peer_logs.py)
ALL_EXTRAS = {"wall_time", "dir_name", "file_name", "min", "max", "num", "sum", "sum_squares"}


def write_ours(logdir):
    rng = np.random.default_rng(3)
    with tensorboard.SummaryWriter(str(logdir)) as writer:
        for step in range(6):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
            writer.add_scalar("acc/train", step / 10, step)
            writer.add_histogram("weights", rng.normal(size=300), step)
            writer.add_text("note", f"step {step}", step)
        writer.add_hparams({"lr": 0.01, "opt": "sgd", "deep": False}, {"hp/metric": 0.25})


@pytest.fixture(scope="module")
def mixed_logdir(tmp_path_factory):
    """One logdir with a run from every writer (and a nested one)."""
    root = tmp_path_factory.mktemp("mixed")
    write_ours(root / "ours")
    write_ours(root / "ours" / "nested")
    write_peer_logdirs([(mode, root / mode) for mode in PEERS])
    return root


def test_upstream_reads_the_mixed_logdir(mixed_logdir):
    runs = upstream_read(mixed_logdir)["runs"]
    assert {"ours", "tbx", "torch", "v1"} <= set(runs)


@pytest.mark.parametrize("kwargs", [{}, {"extra_columns": ALL_EXTRAS}, {"extra_columns": {"file_name"}},
                                    {"pivot": True}, {"pivot": True, "extra_columns": ALL_EXTRAS}],
                         ids=["long", "long-extras", "long-file", "pivot", "pivot-extras"])
def test_frames_equal_tbparse(mixed_logdir, kwargs):
    theirs = tbparse_frames(mixed_logdir, **kwargs)
    reader = SummaryReader(mixed_logdir, **kwargs)
    for kind in KINDS:
        ours = reader.get_events(kind)
        assert not ours.empty, kind
        assert_same(ours, theirs[kind])
    tags = {kind: reader.tags[kind] for kind in KINDS}
    assert sorted(tags.pop("hparams")) == sorted(theirs["tags"].pop("hparams"))  # a protobuf map's order
    assert tags == theirs["tags"] and "note/text_summary" in tags["text"]  # torch's and tensorboardX's text tag


@pytest.mark.parametrize("mode", PEERS)
def test_each_writer_alone(mixed_logdir, mode):
    logdir = mixed_logdir / mode  # the peer's run, read as a logdir of its own
    theirs = tbparse_frames(logdir, extra_columns={"wall_time"})
    reader = SummaryReader(logdir, extra_columns={"wall_time"})
    for kind in KINDS:
        if isinstance(theirs[kind], str) or theirs[kind].empty:
            assert reader.get_events(kind).empty, kind
        else:
            assert_same(reader.get_events(kind), theirs[kind])


def test_one_file_as_log_path(mixed_logdir):
    path = next((mixed_logdir / "tbx").glob("events.out.tfevents.*"))
    theirs = tbparse_frames(path, extra_columns={"dir_name", "file_name"})
    assert_same(SummaryReader(path, extra_columns={"dir_name", "file_name"}).scalars, theirs["scalars"])


def test_large_logs_take_the_bulk_path_and_still_equal_tbparse(tmp_path):
    """Thousands of plain scalar records (decoded column-wise) mixed with histograms and text (one by one)."""
    with tensorboard.SummaryWriter(str(tmp_path / "big")) as writer:
        for step in range(0, 60000, 17):  # steps from 1 to 3 varint bytes
            writer.add_scalar("a", step * 0.5, step)
            writer.add_scalar("b/c", -step, step)
            if step % 1700 == 0:
                writer.add_histogram("h", np.arange(step % 50 + 1.0), step)
                writer.add_text("t", f"at {step}", step)
    write_peer_logs("tbx", tmp_path / "tbx")
    kwargs = {"extra_columns": {"wall_time", "dir_name"}}
    theirs = tbparse_frames(tmp_path, **kwargs)
    reader = SummaryReader(tmp_path, **kwargs)
    assert len(reader.scalars) > 7000
    for kind in KINDS:
        assert_same(reader.get_events(kind), theirs[kind])


def test_a_restart_keeps_tensors_and_text_as_tbparse_does(tmp_path):
    """A restart (purge_step's SessionLog.START) purges scalars; tensors (tensor scalars, text) are never
    purged by EventAccumulator, and so not by tbparse: the frames, dtypes and tags equal tbparse's."""
    with tensorboard.SummaryWriter(str(tmp_path), metadata=False) as writer:
        for step in range(10):
            writer.add_scalar("loss", float(step), step)
            writer.add_scalar("acc", step / 10, step, new_style=True)
            writer.add_text("note", f"first {step}", step)
        writer.file_writer.add_session_log("START", global_step=5)
        for step in range(5, 8):
            writer.add_scalar("loss", 100.0 + step, step)
            writer.add_scalar("acc", 1.0 + step, step, new_style=True)
            writer.add_text("note", f"second {step}", step)
    theirs = tbparse_frames(tmp_path)
    reader = SummaryReader(tmp_path)
    for kind in ("scalars", "tensors", "text"):
        assert_same(reader.get_events(kind), theirs[kind])
    assert len(reader.scalars) == 8 and len(reader.tensors) == len(reader.text) == 13
    assert reader.tensors["value"].dtype == np.float64
    assert {kind: reader.tags[kind] for kind in KINDS} == theirs["tags"]


def test_each_files_hyperparameters_as_tbparse_reads_them(tmp_path):
    """Two sessions logging hyperparameters into one run directory (a resumed Lightning version_0): tbparse
    reads each file's session start info, so both sets of values are rows."""
    from tensorboard import summary

    for lr, batch in ((0.1, 32), (0.01, 64)):
        with tensorboard.FileWriter(str(tmp_path)) as writer:
            for part in summary.hparams({"lr": lr, "bs": batch, "opt": "sgd"}, {"hp/metric": 0.5}):
                writer.add_summary(part, 0)
    for kwargs in ({}, {"extra_columns": {"file_name"}}, {"pivot": True},
                   {"pivot": True, "extra_columns": {"file_name"}}):
        theirs = tbparse_frames(tmp_path, **kwargs)
        reader = SummaryReader(tmp_path, **kwargs)
        assert_same(reader.hparams, theirs["hparams"])
        assert reader.tags["hparams"] == sorted(theirs["tags"]["hparams"])
    long = SummaryReader(tmp_path, extra_columns={"file_name"}).hparams
    assert sorted(long[long.tag == "lr"]["value"]) == [0.01, 0.1]
