"""Differential tests: `tensorboard.summary.writer.event_file_writer` (ours, on our core) vs upstream's own module.

Upstream's file is loaded from the renderer copy under a module name of its own, so the same
calls run through both implementations in one process; what they write is read back with
upstream's event file loader (and with upstream's full reader in .venv-upstream).
"""
from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from upstream import upstream_read
from waiting import eventually, module_from_file

from tensorboard import upstream_path
from tensorboard.compat.proto import event_pb2 as upstream_event_pb2
from tensorboard.compat.proto import summary_pb2 as upstream_summary_pb2
from tensorboard.events import event_file as core
from tensorboard.src import event_pb2 as our_event_pb2
from tensorboard.src import summary_pb2 as our_summary_pb2
from tensorboard.summary.writer import event_file_writer as ours

REPO = Path(__file__).resolve().parents[3]
UPSTREAM_FILE = os.path.join(upstream_path.upstream_dir(), "summary", "writer", "event_file_writer.py")


def _load_upstream():
    return module_from_file("upstream_event_file_writer", UPSTREAM_FILE)


UPSTREAM = _load_upstream()
IMPLS = {"upstream": UPSTREAM.EventFileWriter, "ours": ours.EventFileWriter}


def _events(logdir) -> list:
    """Every event of the one event file in `logdir`, as written: upstream's raw loader, no data migration."""
    (path,) = _event_files(logdir)
    return _file_events(path)


def _file_events(path) -> list:
    from tensorboard.backend.event_processing import event_file_loader

    return [upstream_event_pb2.Event.FromString(raw)
            for raw in event_file_loader.RawEventFileLoader(str(path)).Load()]


def _event_files(logdir) -> list[Path]:
    return sorted(p for p in Path(logdir).iterdir() if "tfevents" in p.name)


def _scalar_event(tag: str, value: float, step: int, pb2=upstream_event_pb2, summary_pb2=upstream_summary_pb2):
    return pb2.Event(wall_time=1000.0 + step, step=step,
                     summary=summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)]))


_poll = eventually


def _without_wall_time(event) -> bytes:
    copy = upstream_event_pb2.Event.FromString(event.SerializeToString())
    copy.ClearField("wall_time")
    return copy.SerializeToString()


def test_the_module_is_ours_and_upstream_reference_is_upstreams():
    assert ours.__file__.startswith(str(REPO / "python")), ours.__file__
    assert UPSTREAM.EventFileWriter is not ours.EventFileWriter
    assert "tensorboard_renderer" in UPSTREAM_FILE


def test_file_name_pattern_and_first_record_match_upstream(tmp_path):
    """Same file name pattern (suffix included) and the same first record, visible right after construction."""
    names, headers = {}, {}
    for name, cls in IMPLS.items():
        logdir = tmp_path / name / "new" / "dir"  # created by the writer, like upstream's makedirs
        writer = cls(str(logdir), filename_suffix=".v2")
        (path,) = _event_files(logdir)
        names[name] = path.name
        (headers[name],) = _events(logdir)  # flushed by the constructor, before any add_event
        writer.close()
    pattern = rf"events\.out\.tfevents\.(\d{{10}})\.{re.escape(socket.gethostname())}\.{os.getpid()}\.(\d+)\.v2"
    for name in IMPLS:
        assert re.fullmatch(pattern, names[name]), names[name]
        assert abs(int(names[name].split(".")[3]) - time.time()) < 3600
    assert headers["ours"].file_version == headers["upstream"].file_version == "brain.Event:2"
    assert headers["ours"].source_metadata.writer == "tensorboard.summary.writer.event_file_writer"
    assert _without_wall_time(headers["ours"]) == _without_wall_time(headers["upstream"])
    assert headers["ours"].wall_time > 0 and headers["upstream"].wall_time > 0


def _mixed_events():
    """Events of the kinds torch and upstream's summary code send: summaries, steps, a graph, metadata."""
    events = [_scalar_event("loss", 0.5 * i, i) for i in range(25)]
    events.append(upstream_event_pb2.Event(wall_time=2000.0, graph_def=b"\x0a\x05\x0a\x03abc"))
    events.append(upstream_event_pb2.Event(
        wall_time=2001.0, tagged_run_metadata=upstream_event_pb2.TaggedRunMetadata(tag="step1", run_metadata=b"xy")))
    events.append(upstream_event_pb2.Event(wall_time=2002.0, step=2 ** 40, summary=upstream_summary_pb2.Summary(
        value=[upstream_summary_pb2.Summary.Value(tag="hist", histo=upstream_summary_pb2.HistogramProto(
            min=-1.0, max=2.0, num=3, sum=1.0, sum_squares=5.0, bucket_limit=[0.0, 2.0], bucket=[1.0, 2.0]))])))
    return events


def test_same_events_read_back_after_flush_and_after_close(tmp_path):
    got = {}
    for name, cls in IMPLS.items():
        writer = cls(str(tmp_path / name), max_queue_size=4, flush_secs=1000)
        for event in _mixed_events():
            writer.add_event(event)
        writer.flush()
        after_flush = [e.SerializeToString() for e in _events(tmp_path / name)[1:]]
        writer.close()
        after_close = [e.SerializeToString() for e in _events(tmp_path / name)[1:]]
        assert after_flush == after_close
        got[name] = after_close
    assert got["ours"] == got["upstream"] == [e.SerializeToString() for e in _mixed_events()]
    # upstream's complete reader (its own interpreter) sees the same scalars in both
    views = {name: upstream_read(tmp_path / name)["runs"]["."] for name in IMPLS}
    assert views["ours"]["scalars"] == views["upstream"]["scalars"]
    assert views["ours"]["scalars"]["loss"] == [[i, 1000.0 + i, pytest.approx(0.5 * i)] for i in range(25)]
    assert views["ours"]["histograms"] == views["upstream"]["histograms"]
    assert views["ours"]["graph"] == views["upstream"]["graph"] == {"node": [{"name": "abc"}]}
    assert list(views["ours"]["files"].values()) == list(views["upstream"]["files"].values()) == [29]


def test_events_of_either_proto_class(tmp_path):
    """Ours takes upstream's Event and ours (same wire format); upstream's only takes its own. Both refuse others."""
    writer = ours.EventFileWriter(str(tmp_path / "ours"))
    writer.add_event(_scalar_event("a", 1.0, 1))
    writer.add_event(_scalar_event("a", 2.0, 2, our_event_pb2, our_summary_pb2))
    with pytest.raises(TypeError, match="Event"):
        writer.add_event(upstream_summary_pb2.Summary())
    with pytest.raises(TypeError, match="Event"):
        writer.add_event(b"\x08\x01")
    writer.close()
    events = _events(tmp_path / "ours")[1:]
    assert [(e.step, e.summary.value[0].simple_value) for e in events] == [(1, 1.0), (2, 2.0)]

    theirs = UPSTREAM.EventFileWriter(str(tmp_path / "upstream"))
    with pytest.raises(TypeError):
        theirs.add_event(_scalar_event("a", 2.0, 2, our_event_pb2, our_summary_pb2))
    with pytest.raises(TypeError):
        theirs.add_event(upstream_summary_pb2.Summary())
    theirs.close()


def test_close_is_idempotent_and_use_after_close_raises_oserror_in_both(tmp_path):
    for name, cls in IMPLS.items():
        writer = cls(str(tmp_path / name))
        writer.add_event(_scalar_event("x", 1.0, 1))
        writer.close()
        writer.close()  # a no-op, in both
        with pytest.raises(OSError, match="closed"):
            writer.add_event(_scalar_event("x", 2.0, 2))
        with pytest.raises(OSError, match="closed"):
            writer.flush()
        assert writer.get_logdir() == str(tmp_path / name)
        assert [e.step for e in _events(tmp_path / name)[1:]] == [1], name


def test_get_logdir_returns_what_was_given(tmp_path):
    for name, cls in IMPLS.items():
        logdir = str(tmp_path / name) + "/"
        writer = cls(logdir)
        assert writer.get_logdir() == logdir
        writer.close()


def test_reopen_continues_in_a_new_file_where_upstream_has_no_reopen(tmp_path):
    """torch's FileWriter.reopen() calls EventFileWriter.reopen(): upstream has none (AttributeError); ours does
    what torch documents: nothing while open, a new event file in the same logdir after close()."""
    theirs = UPSTREAM.EventFileWriter(str(tmp_path / "upstream"))
    assert not hasattr(theirs, "reopen")
    theirs.close()

    writer = ours.EventFileWriter(str(tmp_path / "ours"), filename_suffix=".s")
    writer.add_event(_scalar_event("x", 1.0, 1))
    first = writer.path
    writer.reopen()  # open: nothing happens
    assert writer.path == first
    writer.close()
    writer.reopen()
    writer.add_event(_scalar_event("x", 2.0, 2))
    writer.close()
    files = _event_files(tmp_path / "ours")
    assert [str(p) for p in files] == [first, writer.path] and files[1].name.endswith(".s")
    steps = [[(e.step, e.file_version, e.source_metadata.writer) for e in _file_events(p)] for p in files]
    header = (0, "brain.Event:2", "tensorboard.summary.writer.event_file_writer")
    assert steps == [[header, (1, "", "")], [header, (2, "", "")]]
    assert upstream_read(tmp_path / "ours")["runs"]["."]["scalars"]["x"] == [[1, 1001.0, 1.0], [2, 1002.0, 2.0]]


def test_max_queue_size_events_reach_the_file_without_flush(tmp_path):
    """Once max_queue_size events are added, both have them in the file without flush() or close()."""
    for name, cls in IMPLS.items():
        writer = cls(str(tmp_path / name), max_queue_size=5, flush_secs=10_000)
        for step in range(5):
            writer.add_event(_scalar_event("x", float(step), step))
        assert _poll(lambda: len(_events(tmp_path / name)) == 6), name
        writer.close()


def test_fewer_than_max_queue_size_events_wait_for_flush_in_ours_only(tmp_path):
    """The deliberate difference: upstream's thread appends each event at once (one open/write/close of the
    file per event); ours batches, so under max_queue_size events wait for flush_secs or flush()."""
    theirs = UPSTREAM.EventFileWriter(str(tmp_path / "upstream"), max_queue_size=5, flush_secs=10_000)
    theirs.add_event(_scalar_event("x", 1.0, 1))
    assert _poll(lambda: len(_events(tmp_path / "upstream")) == 2)
    theirs.close()

    writer = ours.EventFileWriter(str(tmp_path / "ours"), max_queue_size=5, flush_secs=10_000)
    for step in range(4):
        writer.add_event(_scalar_event("x", float(step), step))
    time.sleep(0.2)  # give a (wrongly) woken writer thread the chance to write
    assert len(_events(tmp_path / "ours")) == 1
    writer.flush()
    assert len(_events(tmp_path / "ours")) == 5
    writer.close()


def test_flush_secs_writes_queued_events_without_flush(tmp_path):
    for name, cls in IMPLS.items():
        writer = cls(str(tmp_path / name), max_queue_size=1000, flush_secs=0.2)
        writer.add_event(_scalar_event("x", 1.0, 1))
        writer.add_event(_scalar_event("x", 2.0, 2))
        assert _poll(lambda: len(_events(tmp_path / name)) == 3), name
        writer.close()


@pytest.mark.parametrize("max_queue_size, flush_secs", [(0, 120), (-1, 120), (10, 0), (10, -5)])
def test_non_positive_settings_upstream_accepts_write_every_event(tmp_path, max_queue_size, flush_secs):
    """Upstream takes a size <= 0 (an unbounded queue) and flush_secs <= 0 (flush after every event): so do we."""
    for name, cls in IMPLS.items():
        logdir = tmp_path / name
        writer = cls(str(logdir), max_queue_size=max_queue_size, flush_secs=flush_secs)
        writer.add_event(_scalar_event("x", 1.0, 1))
        assert _poll(lambda: len(_events(logdir)) == 2), name
        writer.close()


@pytest.mark.parametrize("kwargs, argument", [({"max_queue_size": "10"}, "max_queue_size"),
                                              ({"max_queue_size": 2.5}, "max_queue_size"),
                                              ({"flush_secs": "2"}, "flush_secs"),
                                              ({"flush_secs": float("nan")}, "flush_secs"),
                                              ({"filename_suffix": 3}, "filename_suffix")])
def test_bad_arguments_fail_early_naming_the_argument(tmp_path, kwargs, argument):
    with pytest.raises(TypeError, match=argument):
        ours.EventFileWriter(str(tmp_path), **kwargs)
    assert not tmp_path.exists() or not _event_files(tmp_path)


def test_served_by_our_core(tmp_path):
    writer = ours.EventFileWriter(str(tmp_path))
    assert isinstance(writer._core, core.EventFileWriter)
    assert writer.path == writer._core.path
    writer.close()


_FAILING_DISK = r"""
import importlib.util, json, resource, signal, sys
sys.path.insert(0, sys.argv[1])
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.summary.writer import event_file_writer as ours
spec = importlib.util.spec_from_file_location("upstream_efw", sys.argv[2])
upstream = importlib.util.module_from_spec(spec); spec.loader.exec_module(upstream)
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over the limit, write() fails with EFBIG instead of killing us
resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
out = {}
for name, cls in (("upstream", upstream.EventFileWriter), ("ours", ours.EventFileWriter)):
    seen = {}
    writer = cls(sys.argv[3] + "/" + name, max_queue_size=1000)
    value = summary_pb2.Summary.Value(tag="t", tensor={"dtype": 7, "string_val": [b"x" * 200]})
    try:
        for step in range(100):
            writer.add_event(event_pb2.Event(step=step, summary=summary_pb2.Summary(value=[value])))
        writer.flush()
        seen["flush"] = None
    except Exception as err:
        seen["flush"] = type(err).__name__
    try:
        writer.close()
        seen["close"] = None
    except Exception as err:
        seen["close"] = type(err).__name__
    out[name] = seen
print(json.dumps(out))
"""


def test_write_errors_are_raised_and_close_does_not_swallow_them(tmp_path):
    """A full disk (file size limit): both raise at the next add_event/flush; upstream's close() then hides
    the error (its thread died, close returns), ours raises it again at close so it cannot be missed."""
    proc = subprocess.run([sys.executable, "-c", _FAILING_DISK, str(REPO / "python"), UPSTREAM_FILE, str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    assert seen["upstream"] == {"flush": "OSError", "close": None}
    assert seen["ours"] == {"flush": "OSError", "close": "OSError"}
    # what was written before the failure stays readable by upstream's reader, framing intact
    files = upstream_read(tmp_path / "ours")["runs"]["."]["files"]
    assert list(files.values())[0] >= 1


def _add_in_child(writer, conn) -> None:
    try:
        writer.add_event(_scalar_event("x", 9.0, 9))
        conn.send(None)
    except Exception as err:
        conn.send(f"{type(err).__name__}: {err}")


def test_use_in_a_forked_child_raises_instead_of_losing_the_event(tmp_path):
    """A writer inherited through fork() (torch DataLoader workers) has no writer thread in the child: upstream
    queues the event there and silently never writes it; ours raises, and the parent's file stays intact."""
    import multiprocessing

    ctx = multiprocessing.get_context("fork")
    seen = {}
    for name, cls in IMPLS.items():
        writer = cls(str(tmp_path / name))
        writer.add_event(_scalar_event("x", 1.0, 1))
        parent_end, child_end = ctx.Pipe()
        child = ctx.Process(target=_add_in_child, args=(writer, child_end))
        child.start()
        seen[name] = parent_end.recv()
        child.join(60)
        assert child.exitcode == 0
        writer.add_event(_scalar_event("x", 2.0, 2))
        writer.close()
        assert [e.step for e in _events(tmp_path / name)[1:]] == [1, 2], name
    assert seen["upstream"] is None  # accepted, never written
    assert seen["ours"].startswith("OSError") and "fork" in seen["ours"]
