"""The system monitor's thread: it samples into the run, ends at close(), at exit and in a forked child,
and what it writes is read back the same by our reader and upstream's."""
from __future__ import annotations

import os
import threading
import time

import pytest
from upstream import metadata_fields, upstream_run
from waiting import REPO_PYTHON, eventually, run_python

import tensorboard
from tensorboard import system
from tensorboard.reader import SummaryReader

pytest.importorskip("psutil")
MONITOR_THREAD = "tensorboard-system-monitor"


def monitor_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == MONITOR_THREAD]


def system_scalars(logdir) -> dict[str, list[int]]:
    frame = SummaryReader(str(logdir)).scalars
    if frame.empty:
        return {}
    frame = frame[frame.tag.str.startswith("system/")]
    return {tag: list(group.step) for tag, group in frame.groupby("tag")}


def test_samples_land_in_the_run_at_consecutive_steps_until_close(tmp_path):
    writer = tensorboard.SummaryWriter(str(tmp_path), system_metrics=0.1, metadata=False)
    monitor = writer.system_monitor
    assert monitor.running and len(monitor_threads()) == 1
    assert eventually(lambda: monitor.samples >= 3)
    writer.add_scalar("loss", 0.5, 1)
    writer.close()
    assert not monitor.running and not monitor_threads()
    written = monitor.samples
    tags = system_scalars(tmp_path)
    steps = tags["system/cpu/process_percent"]
    assert steps[0] == 0 and steps == sorted(set(steps))  # a slot missed while held up is skipped, never repeated
    assert len(steps) == written
    assert "system/network/sent_mib_per_s" in tags  # rates from the second sample on


def test_steps_times_interval_is_the_time_since_the_start(tmp_path):
    # Slots count from the monitor's start, not from sample 0, which a busy host may take late: so the
    # bound is a clock read before the writer (and its monitor) started.
    before = time.time()
    writer = tensorboard.SummaryWriter(str(tmp_path), system_metrics=0.1, metadata=False)
    assert eventually(lambda: writer.system_monitor.samples >= 4)
    writer.close()
    frame = SummaryReader(str(tmp_path), extra_columns={"wall_time"}).scalars
    frame = frame[frame.tag == "system/cpu/machine_percent"]
    assert list(frame.step) == sorted(set(frame.step)) and len(frame) >= 4
    for step, wall in zip(frame.step, frame.wall_time):
        assert wall - before >= step * 0.1 - 1e-3  # never before its slot (a sample runs late, not early)


def test_a_closed_file_is_never_reopened_by_the_monitor(tmp_path):
    writer = tensorboard.FileWriter(str(tmp_path))
    monitor = system.monitor(writer, interval=0.1)
    writer.close()
    assert not monitor.running
    assert len([name for name in os.listdir(tmp_path) if "tfevents" in name]) == 1


def test_monitor_stop_is_idempotent_and_the_writer_goes_on(tmp_path):
    with tensorboard.SummaryWriter(str(tmp_path), metadata=False) as writer:
        monitor = system.monitor(writer, interval=0.1)
        monitor.stop()
        monitor.stop()
        assert not monitor.running
        writer.add_scalar("loss", 1.0, 0)
    assert "loss" in set(SummaryReader(str(tmp_path)).scalars.tag)


def test_the_thread_ends_at_exit_without_close_and_the_samples_are_written(tmp_path):
    result = run_python(f"""
        import tensorboard
        from waiting import eventually
        writer = tensorboard.SummaryWriter({str(tmp_path)!r}, system_metrics=0.1, metadata=False, flush_secs=3600)
        writer.add_scalar("loss", 0.5, 0)
        assert eventually(lambda: writer.system_monitor.samples >= 2)
        print("sampled", writer.system_monitor.samples)
        """, tmp_path, PYTHONPATH=f"{REPO_PYTHON}{os.pathsep}{os.path.join(REPO_PYTHON, '..', 'tests')}")
    assert result.returncode == 0, result.stderr
    sampled = int(result.stdout.split()[-1])
    assert len(system_scalars(tmp_path)["system/cpu/process_percent"]) >= sampled


def test_a_forked_child_has_no_monitor_and_the_parent_keeps_its_own(tmp_path):
    result = run_python(f"""
        import os, threading, tensorboard
        writer = tensorboard.SummaryWriter({str(tmp_path)!r}, system_metrics=0.1, metadata=False)
        pid = os.fork()
        if pid == 0:
            names = [t.name for t in threading.enumerate()]
            writer.system_monitor.stop()  # does nothing here, and returns
            writer.add_scalar("child", 1.0, 0)
            writer.close()
            os._exit(3 if "tensorboard-system-monitor" in names or writer.system_monitor.running else 0)
        _, status = os.waitpid(pid, 0)
        print("child", os.waitstatus_to_exitcode(status), "parent running", writer.system_monitor.running)
        writer.close()
        """, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["child", "0", "parent", "running", "True"]


def test_a_bad_interval_is_refused_before_any_file_is_written(tmp_path):
    for bad in (0, 0.01, -1, float("nan"), float("inf"), "5"):
        with pytest.raises(ValueError, match="system_metrics"):
            tensorboard.SummaryWriter(str(tmp_path / "run"), system_metrics=bad)
    assert not (tmp_path / "run").exists()
    with pytest.raises(TypeError, match="writer must be"):
        system.monitor(object())


@pytest.mark.parametrize("variable, value", [("TB_SYSTEM_METRICS", "maybe"), ("TB_RUN_METADATA", "2")])
def test_a_bad_environment_value_names_the_variable(tmp_path, monkeypatch, variable, value):
    monkeypatch.setenv(variable, value)
    with pytest.raises(ValueError, match=variable):
        tensorboard.SummaryWriter(str(tmp_path))


def test_the_environment_turns_both_on_for_a_writer_we_did_not_make(tmp_path, monkeypatch):
    monkeypatch.setenv("TB_SYSTEM_METRICS", "1")
    monkeypatch.setenv("TB_SYSTEM_METRICS_INTERVAL", "0.1")
    monkeypatch.delenv("TB_RUN_METADATA", raising=False)
    from tensorboard.summary.writer.event_file_writer import EventFileWriter  # torch's writer's class

    writer = EventFileWriter(str(tmp_path))
    assert len(monitor_threads()) == 1

    def sampled() -> bool:
        writer.flush()
        return "system/cpu/process_percent" in system_scalars(tmp_path)

    assert eventually(sampled)
    writer.close()
    assert not monitor_threads()
    reader = SummaryReader(str(tmp_path))
    assert reader.metadata["."]["host"]
    assert "system/cpu/process_percent" in set(reader.scalars.tag)


def test_upstream_reads_the_system_tags_and_the_metadata_as_ours(tmp_path, monkeypatch):
    monkeypatch.delenv("TB_RUN_METADATA", raising=False)
    with tensorboard.SummaryWriter(str(tmp_path), system_metrics=0.1) as writer:
        for step in range(3):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
        assert eventually(lambda: writer.system_monitor.samples >= 3)
    ours = SummaryReader(str(tmp_path), extra_columns={"wall_time"})
    theirs = upstream_run(tmp_path)
    frame = ours.scalars
    for tag in set(frame.tag):
        mine = frame[frame.tag == tag]
        assert [[int(s), float(v)] for s, v in zip(mine.step, mine.value)] == \
            [[step, value] for step, _, value in theirs["scalars"][tag]], tag
    assert {tag for tag in theirs["scalars"] if tag.startswith("system/")} == \
        {tag for tag in frame.tag if tag.startswith("system/")}
    assert theirs["metadata"]["run/metadata"]["plugin_name"] == "text"
    fields = ours.metadata["."]
    assert metadata_fields(theirs) == fields
    table = theirs["tensors"]["run/metadata"][0][2]["values"][0]
    assert fields["host"] in table and fields["command"].replace("|", "\\|") in table
