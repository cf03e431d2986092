"""FileWriter and SummaryWriter: the seeds' APIs, keyword aliases, bad input, exit and fork behaviour."""
import math
import os
import socket
import subprocess
import sys

import numpy as np
import pytest
from upstream import CLASSIC, upstream_read, upstream_run
from waiting import run_python

import tensorboard
from tensorboard import reader
from tensorboard.src import event_pb2, graph_pb2, summary_pb2

REPO_PYTHON = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "python")


def scalar_summary(tag, value):
    return summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])


def steps_values(logdir, tag, run="."):
    return [(s, v) for s, _, v in upstream_run(logdir, run)["scalars"][tag]]


def test_file_writer_low_level_api(tmp_path):
    writer = tensorboard.FileWriter(str(tmp_path))
    assert writer.get_logdir() == str(tmp_path)
    writer.add_summary(scalar_summary("train-accuracy", 0.5))
    writer.add_summary(scalar_summary("train-accuracy", 0.75).SerializeToString(), global_step=1)
    writer.add_summary(scalar_summary("train-accuracy", 0.875), global_step=2, walltime=1234.5)
    event = event_pb2.Event(step=3)
    event.summary.value.add(tag="train-accuracy", simple_value=1.0)
    writer.add_event(event)
    graph = graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="a", op="Const"),
                                     graph_pb2.NodeDef(name="b", op="Relu", input=["a"])])
    writer.add_graph(graph)
    with pytest.raises(ValueError, match="^status: expected one of STATUS_UNSPECIFIED, START, STOP, CHECKPOINT, "
                                         "got 'start'"):
        writer.add_session_log("start", 4)
    writer.close()
    writer.close()
    assert steps_values(tmp_path, "train-accuracy") == [(0, 0.5), (1, 0.75), (2, 0.875), (3, 1.0)]
    view = upstream_run(tmp_path)
    assert view["scalars"]["train-accuracy"][2][1] == 1234.5
    assert [n["name"] for n in view["graph"]["node"]] == ["a", "b"]
    assert view["graph"]["node"][1]["input"] == ["a"]


def test_reopen_starts_a_new_file(tmp_path):
    writer = tensorboard.FileWriter(str(tmp_path))
    writer.add_summary(scalar_summary("x", 1.0), 1)
    writer.close()
    writer.reopen()
    writer.add_summary(scalar_summary("x", 2.0), 2)
    writer.close()
    assert len([p for p in os.listdir(tmp_path) if "tfevents" in p]) == 2
    assert steps_values(tmp_path, "x") == [(1, 1.0), (2, 2.0)]


def test_add_summary_rejects_other_things(tmp_path):
    with tensorboard.FileWriter(str(tmp_path)) as writer:
        with pytest.raises(TypeError, match="summary"):
            writer.add_summary("not a summary")
        with pytest.raises(ValueError, match="summary"):
            writer.add_summary(b"\xff\xff")
        with pytest.raises(TypeError, match="global_step"):
            writer.add_summary(scalar_summary("x", 1.0), global_step="3")
        with pytest.raises(TypeError, match="event"):
            writer.add_event(scalar_summary("x", 1.0))
        writer.add_summary(scalar_summary("x", 1.0), 5)
    assert steps_values(tmp_path, "x") == [(5, 1.0)]


def test_add_scalar_value_types_and_aliases(tmp_path):
    with tensorboard.SummaryWriter(logdir=str(tmp_path)) as writer:
        writer.add_scalar("loss", 1.5, 0)
        writer.add_scalar("loss", np.float32(2.5), np.int64(1))
        writer.add_scalar("loss", 3, global_step=2)
        writer.add_scalar(tag="loss", scalar_value=np.array(4.5), global_step=3.0)
        writer.add_scalar("loss", value=[5.5], global_step=4, walltime=99.0)
        writer.add_scalar("nan", float("nan"), 0)
        writer.add_scalar("inf", -math.inf, 0)
        writer.add_scalar("big", 1e300, 0)
    assert steps_values(tmp_path, "loss") == [(0, 1.5), (1, 2.5), (2, 3.0), (3, 4.5), (4, 5.5)]
    view = upstream_run(tmp_path)
    assert math.isnan(view["scalars"]["nan"][0][2])
    assert view["scalars"]["inf"][0][2] == -math.inf
    assert view["scalars"]["big"][0][2] == math.inf  # float32 overflow, as protobuf rounds it
    assert view["scalars"]["loss"][4][1] == 99.0


def test_log_dir_alias_and_comment(tmp_path, monkeypatch):
    # As in tensorboardX and torch: comment names the default run, an explicit logdir wins.
    writer = tensorboard.SummaryWriter(log_dir=str(tmp_path / "run"), comment="_lr0.1")
    writer.close()
    assert writer.get_logdir() == str(tmp_path / "run")
    assert os.path.isdir(writer.get_logdir())
    monkeypatch.chdir(tmp_path)
    with tensorboard.SummaryWriter(comment="_lr0.1") as writer:
        writer.add_scalar("loss", 1.0, 0)
    (run,) = os.listdir(tmp_path / "runs")
    assert run.endswith("_" + socket.gethostname() + "_lr0.1")
    assert os.path.join("runs", run) == writer.get_logdir()
    with pytest.raises(TypeError, match="logdir"):
        tensorboard.SummaryWriter(str(tmp_path / "a"), log_dir=str(tmp_path / "b"))


def test_unknown_keyword_is_an_error_and_write_to_disk_false_writes_nothing(tmp_path):
    with pytest.raises(TypeError, match="flush_sec"):
        tensorboard.SummaryWriter(str(tmp_path / "typo"), flush_sec=5)
    assert not (tmp_path / "typo").exists()
    with tensorboard.SummaryWriter(str(tmp_path / "quiet"), write_to_disk=False) as writer:
        writer.add_scalar("loss", 1.0, 0)
    assert not (tmp_path / "quiet").exists()
    with tensorboard.SummaryWriter(str(tmp_path / "mxboard"), verbose=False) as writer:
        writer.add_scalar("loss", 1.0, 0)
    assert writer.dropped_events == 0
    assert reader.read_scalars(str(tmp_path / "mxboard"))["."]["loss"][0][2] == 1.0


def test_dict_value_writes_one_sub_run_per_key(tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        for step in range(3):
            writer.add_scalar("accuracy", {"train": 0.5 + step / 10, "valid": 0.4 + step / 10}, step)
        writer.add_scalars("loss/all", {"a": 1.0, "b": 2.0}, 7)
    runs = upstream_read(tmp_path)["runs"]
    # MXBoard's and tensorboardX's layout: <logdir>/<tag>/<key>, each under the main tag
    assert {k for k, v in runs.items() if v.get("scalars")} == {
        "accuracy/train", "accuracy/valid", "loss/all/a", "loss/all/b"}
    train = [(s, round(v, 6)) for s, _, v in runs["accuracy/train"]["scalars"]["accuracy"]]
    assert train == [(0, 0.5), (1, 0.6), (2, 0.7)]
    assert runs["loss/all/b"]["scalars"]["loss/all"][0][0::2] == [7, 2.0]


@pytest.mark.parametrize("kwargs, error, name", [
    (dict(tag=3, value=1.0), TypeError, "tag"),
    (dict(tag="", value=1.0), ValueError, "tag"),
    (dict(tag="x", value="high"), TypeError, "value"),
    (dict(tag="x", value=None), TypeError, "value"),
    (dict(tag="x", value=1.0, global_step=float("nan")), ValueError, "global_step"),
    (dict(tag="x", value=1.0, global_step=2**63), ValueError, "global_step"),
    (dict(tag="x", value=1.0, global_step="1"), TypeError, "global_step"),
    (dict(tag="x", value=1.0, walltime="now"), TypeError, "walltime"),
    (dict(tag="x", value=np.zeros(3)), (TypeError, ValueError), "value"),
])
def test_bad_scalars_fail_early_and_lose_nothing(tmp_path, kwargs, error, name):
    writer = tensorboard.SummaryWriter(str(tmp_path))
    writer.add_scalar("good", 1.0, 0)
    with pytest.raises(error, match=name):
        writer.add_scalar(**kwargs)
    writer.add_scalar("good", 2.0, 1)
    writer.close()
    assert steps_values(tmp_path, "good") == [(0, 1.0), (1, 2.0)]


def test_purge_step_drops_later_events_in_upstream(tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        for step in range(10):
            writer.add_scalar("loss", float(step), step)
    with tensorboard.SummaryWriter(str(tmp_path), purge_step=5) as writer:
        for step in range(5, 8):
            writer.add_scalar("loss", 100.0 + step, step)
    assert steps_values(tmp_path, "loss") == [(0, 0.0), (1, 1.0), (2, 2.0), (3, 3.0), (4, 4.0),
                                               (5, 105.0), (6, 106.0), (7, 107.0)]


def test_files_rolled_over_in_one_second_sort_before_the_runs_next_writer(tmp_path):
    """Rollovers (max_file_bytes) within a second must not stamp files in the future: upstream reads a
    run's files in name order, so a reopened writer's or a purge_step restart's file would come first."""
    writer = tensorboard.SummaryWriter(str(tmp_path), max_file_bytes=300)
    for step in range(40):
        writer.add_scalar("x", float(step), step)
    writer.close()
    assert len(os.listdir(tmp_path)) > 3  # several rollovers, mostly within one second
    writer.add_scalar("x", 99.0, 40)  # reopens: a new file in the same run
    writer.close()
    assert [s for s, _ in steps_values(tmp_path, "x")] == list(range(41))
    with tensorboard.SummaryWriter(str(tmp_path), purge_step=20) as restarted:
        for step in range(20, 25):
            restarted.add_scalar("x", 100.0 + step, step)
    assert steps_values(tmp_path, "x") == [(s, float(s)) for s in range(20)] + [(s, 100.0 + s) for s in range(20, 25)]


def test_queued_events_are_flushed_at_interpreter_exit(tmp_path):
    result = run_python(f"""
        import tensorboard
        w = tensorboard.SummaryWriter({str(tmp_path)!r}, flush_secs=3600, max_queue=10**6)
        for i in range(5000):
            w.add_scalar("x", float(i), i)
        # no close(): the atexit hook must write everything
        """, tmp_path)
    assert result.returncode == 0, result.stderr
    assert len(reader.read_scalars(tmp_path)["."]["x"]) == 5000
    assert len(upstream_run(tmp_path, parts=CLASSIC)["scalars"]["x"]) == 5000


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX-only")
def test_writer_used_after_fork_gets_its_own_file(tmp_path):
    result = run_python(f"""
        import os, tensorboard
        w = tensorboard.SummaryWriter({str(tmp_path)!r}, metadata=False)
        w.add_scalar("x", 1.0, 1)
        pid = os.fork()
        if pid == 0:
            w.add_scalar("x", 2.0, 2)
            w.close()
            os._exit(0)
        os.waitpid(pid, 0)
        w.add_scalar("x", 3.0, 3)
        w.close()
        """, tmp_path)
    assert result.returncode == 0, result.stderr
    files = sorted(p for p in os.listdir(tmp_path) if "tfevents" in p)
    assert len(files) == 2
    per_file = {f: [e.step for e in reader.read_events(tmp_path / f) if e.HasField("summary")] for f in files}
    assert sorted(per_file.values()) == [[1, 3], [2]]
    assert sorted(s for s, _ in steps_values(tmp_path, "x")) == [1, 2, 3]


HPARAMS_THEN_KILLED = """
import os, sys, tensorboard
writer = tensorboard.SummaryWriter(sys.argv[1], flush_secs=3600, max_queue=10**6)
writer.add_hparams({"lr": 0.1, "opt": "adam"}, {"hp/acc": 0.9}, run_name="trial0")
os._exit(0)  # killed between trials: no close, no exit flush
"""


def test_an_hparams_session_is_on_disk_when_the_call_returns(tmp_path):
    """As torch and tensorboardX do, the session's writer is closed inside the call: a process killed
    right after keeps the session, and a sweep keeps no thread or file per session."""
    subprocess.run([sys.executable, "-c", HPARAMS_THEN_KILLED, str(tmp_path / "killed")], check=True,
                   env={**os.environ, "PYTHONPATH": REPO_PYTHON}, timeout=120)
    run = upstream_read(tmp_path / "killed")["runs"]["trial0"]
    assert {"_hparams_/session_start_info", "_hparams_/session_end_info"} <= set(run["metadata"])
    assert [(s, v) for s, _, v in run["scalars"]["hp/acc"]] == [(0, pytest.approx(0.9))]

    import threading

    with tensorboard.SummaryWriter(str(tmp_path / "sweep")) as writer:
        writer.add_scalar("warmup", 1.0, 0)
        threads = threading.active_count()
        with pytest.warns(UserWarning, match="time-stamped sub-run"):
            for trial in range(30):  # one writer, 30 sessions: the first in the run, then time stamps
                writer.add_hparams({"lr": trial / 100}, {"hp/acc": trial / 30})
        assert threading.active_count() == threads
    runs = upstream_read(tmp_path / "sweep")["runs"]
    assert len([name for name in runs if name != "."]) == 29
    assert "_hparams_/session_start_info" in runs["."]["metadata"]


def test_a_run_name_holds_one_set_of_hparams(tmp_path):
    """The dashboard keeps a run's first hparams: more metrics for the same hparams are fine, other
    hparams under the same run_name would pair them with the wrong metrics, so they raise."""
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_hparams({"lr": 0.1}, {"hp/acc": 0.5}, run_name="same", global_step=1)
        writer.add_hparams({"lr": 0.1}, {"hp/acc": 0.6}, run_name="same", global_step=2)
        with pytest.raises(ValueError, match="run_name 'same' already holds a session with other hparams"):
            writer.add_hparams({"lr": 0.2}, {"hp/acc": 0.7}, run_name="same", global_step=3)
    run = upstream_read(tmp_path)["runs"]["same"]
    assert [(s, v) for s, _, v in run["scalars"]["hp/acc"]] == [(1, 0.5), (2, pytest.approx(0.6))]


def test_a_failed_hparams_call_leaves_its_run_name_free(tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        (tmp_path / "trial").write_text("not a directory")  # the run's directory cannot be made
        with pytest.raises(OSError):
            writer.add_hparams({"lr": 0.1}, {"hp/acc": 0.5}, run_name="trial")
        (tmp_path / "trial").unlink()
        writer.add_hparams({"lr": 0.2}, {"hp/acc": 0.6}, run_name="trial")  # nothing was logged under it
    assert [v for _, _, v in upstream_read(tmp_path)["runs"]["trial"]["scalars"]["hp/acc"]] == [pytest.approx(0.6)]


@pytest.mark.parametrize("run_name, error, message", [
    ("/abs", ValueError, "run_name '/abs' would name a run outside the logdir"),
    ("a/../b", ValueError, "run_name 'a/../b' would name a run outside the logdir"),
    ("a//b", ValueError, "run_name 'a//b' has an empty or '.' path part"),
    ("./a", ValueError, r"run_name '\./a' has an empty or '\.' path part"),
    ("", ValueError, "run_name: must not be empty"),
    (3, TypeError, "run_name: expected str, got int"),
])
def test_run_name_follows_the_sub_run_rule_of_add_scalars(tmp_path, run_name, error, message):
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        with pytest.raises(error, match="^" + message):
            writer.add_hparams({"lr": 0.1}, {"m": 1.0}, run_name=run_name)
        with pytest.raises(error, match="^" + message.replace("run_name", "main_tag", 1)):
            writer.add_scalars(run_name, {"k": 1.0})


def test_run_name_dot_is_the_writers_own_run(tmp_path):
    """torch users pass run_name="." to keep the session in the writer's run: it is that run's session."""
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("m", 0.5, 3)
        writer.add_hparams({"lr": 0.1}, {"m": 1.0}, run_name=".")
        with pytest.warns(UserWarning, match="goes to a time-stamped sub-run"):  # as with run_name=None
            writer.add_hparams({"lr": 0.2}, {"m": 1.0}, run_name=".")
    runs = upstream_read(tmp_path)["runs"]
    assert len(runs) == 2 and [v for _, _, v in runs["."]["scalars"]["m"]] == [0.5]  # linked to the curve


def test_a_metric_links_to_a_curve_however_this_writer_logged_it(tmp_path):
    """A metric naming a scalar tag this writer logged in its run (a plain or summary scalar, a
    new-style tensor, an add_summary, an earlier session's point) adds no point to that curve."""
    from tensorboard import summary

    logs = {"plain": lambda w: w.add_scalar("m", 1.0, 5),
            "display_name": lambda w: w.add_scalar("m", 1.0, 5, display_name="M"),
            "summary": lambda w: w.add_summary(summary.scalar("m", 1.0), 5),
            "summary_bytes": lambda w: w.add_summary(summary.scalar("m", 1.0).SerializeToString(), 5),
            "session": lambda w: w.add_hparams({"lr": 0.1}, {"m": 1.0}, global_step=5),
            "none": lambda w: None}
    for name, log in logs.items():
        with tensorboard.SummaryWriter(str(tmp_path / name)) as writer:
            log(writer)
            writer.add_hparams({"lr": 0.1}, {"m": 2.0}, global_step=9)
    runs = upstream_read(tmp_path)["runs"]
    for name in logs:
        assert [s for s, _, _ in runs[name]["scalars"]["m"]] == ([9] if name == "none" else [5]), name


def test_an_add_racing_with_another_threads_close_reopens(tmp_path):
    """A close() landing between an add's look at the writer and its write: the add goes to a new
    file, as any add after close() does, rather than raising WriterClosedError."""
    writer = tensorboard.SummaryWriter(str(tmp_path))
    writer.add_scalar("x", 0.0, 0)
    file_writer = writer.file_writer
    inner = file_writer._writer
    original = inner.write

    def close_first(event):
        inner.write = original
        file_writer.close()  # the other thread's close() wins the race
        return original(event)

    inner.write = close_first
    writer.add_scalar("x", 1.0, 1)
    writer.close()
    assert [(s, v) for s, _, v in upstream_read(tmp_path)["runs"]["."]["scalars"]["x"]] == [(0, 0.0), (1, 1.0)]
