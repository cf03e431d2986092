"""The asynchronous event file writer: naming, ordering, flush semantics, errors and memory bound."""
import itertools
import os
import re
import socket
import threading

import pytest
from upstream import upstream_run

from tensorboard.events import event_file, file_names, wire
from tensorboard.reader import read_events


def scalar(i, tag="x"):
    return wire.scalar_event(wire.scalar_prefix(tag), float(i), i, 1000.0 + i)


def test_file_name_layout_and_uniqueness(tmp_path):
    names = set()
    for _ in range(3):
        with event_file.EventFileWriter(str(tmp_path), filename_suffix=".v2") as writer:
            names.add(os.path.basename(writer.path))
    assert len(names) == 3
    host, pid = re.escape(socket.gethostname()), os.getpid()
    for name in names:
        assert re.fullmatch(rf"events\.out\.tfevents\.\d{{10}}\.{host}\.{pid}\.\d+\.v2", name), name


def test_names_of_one_second_sort_in_creation_order(monkeypatch):
    # Readers take a run's files in name order; the counter crossing 9 -> 10 must not reorder them.
    monkeypatch.setattr(file_names, "_file_counter", itertools.count(7))
    names = [event_file.event_file_name(now=1.0) for _ in range(6)]
    assert sorted(names) == names


def test_names_unique_across_threads(tmp_path):
    names = []

    def make():
        for _ in range(20):
            names.append(event_file.event_file_name(now=1.0))

    threads = [threading.Thread(target=make) for _ in range(8)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert len(set(names)) == 160


def test_first_record_is_file_version(tmp_path):
    with event_file.EventFileWriter(str(tmp_path)) as writer:
        writer.write(scalar(1))
    events = list(read_events(writer.path))
    assert events[0].file_version == "brain.Event:2"
    assert events[0].wall_time > 0
    assert not events[0].HasField("source_metadata")
    assert len(events) == 2


def test_source_writer_goes_into_every_files_first_record(tmp_path):
    """source_writer (upstream's EventFileWriter names its module there) is in the first record of each file."""
    with event_file.EventFileWriter(str(tmp_path), source_writer="some.writer", max_file_bytes=200) as writer:
        for step in range(1, 30):
            writer.write(scalar(step))
    assert len(writer.paths) > 1
    for path in writer.paths:
        first = next(iter(read_events(path)))
        assert (first.file_version, first.source_metadata.writer) == ("brain.Event:2", "some.writer")
    assert len(upstream_run(tmp_path)["files"]) == len(writer.paths)


def test_flush_puts_everything_on_disk(tmp_path):
    writer = event_file.EventFileWriter(str(tmp_path), max_queue=10**6, flush_secs=3600)
    for i in range(1000):
        writer.write(scalar(i))
    writer.flush()
    steps = [e.step for e in read_events(writer.path)][1:]
    assert steps == list(range(1000))
    writer.close()


def test_order_is_kept_across_batches(tmp_path):
    writer = event_file.EventFileWriter(str(tmp_path), max_queue=3, max_pending_bytes=1000)
    for i in range(5000):
        writer.write(scalar(i))
    writer.close()
    assert [e.step for e in read_events(writer.path)][1:] == list(range(5000))


def test_close_is_idempotent_and_write_after_close_raises(tmp_path):
    writer = event_file.EventFileWriter(str(tmp_path))
    writer.close()
    writer.close()
    writer.flush()  # a no-op once closed
    with pytest.raises(event_file.WriterClosedError):
        writer.write(scalar(1))


def test_background_error_reaches_the_caller(tmp_path):
    writer = event_file.EventFileWriter(str(tmp_path))
    writer.write(scalar(1))
    writer.flush()

    class Broken:
        path = writer.path

        def write(self, data):
            raise OSError(28, "No space left on device")

        def flush(self, fsync=False):
            pass

        def close(self):
            pass

    real = writer._files.file
    writer._files.file = Broken()
    writer.write(scalar(2))
    with pytest.raises(IOError, match="No space left on device"):
        writer.flush()
    with pytest.raises(IOError):
        writer.write(scalar(3))
    with pytest.raises(IOError):
        writer.close()
    real.close()
    # What was flushed before the failure is intact.
    assert [e.step for e in read_events(writer.path)] == [0, 1]


def test_bad_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="max_queue"):
        event_file.EventFileWriter(str(tmp_path), max_queue=0)
    with pytest.raises(ValueError, match="flush_secs"):
        event_file.EventFileWriter(str(tmp_path), flush_secs=-1)
    with pytest.raises(ValueError, match="filename_suffix"):
        event_file.EventFileWriter(str(tmp_path), filename_suffix="a/b")
    with pytest.raises(ValueError, match="source_writer"):
        event_file.EventFileWriter(str(tmp_path), source_writer=b"x")


def test_flush_secs_writes_without_flush_call(tmp_path):
    writer = event_file.EventFileWriter(str(tmp_path), max_queue=10**6, flush_secs=0.05)
    writer.write(scalar(7))
    # Wait on the file's content, not on a clock: the thread must write it by itself.
    for _ in range(200):
        if len(list(read_events(writer.path))) == 2:
            break
        threading.Event().wait(0.05)
    assert [e.step for e in read_events(writer.path)] == [0, 7]
    writer.close()


def test_upstream_reads_our_file(tmp_path):
    with event_file.EventFileWriter(str(tmp_path)) as writer:
        for i in range(100):
            writer.write(scalar(i, "loss"))
    view = upstream_run(tmp_path)
    assert [s[0] for s in view["scalars"]["loss"]] == list(range(100))
    assert [s[2] for s in view["scalars"]["loss"]] == [float(i) for i in range(100)]


def test_flush_secs_may_be_infinite(tmp_path):
    """flush_secs=inf (never flush on a timer) used to stop the writer thread at its first wait."""
    writer = event_file.EventFileWriter(str(tmp_path), flush_secs=float("inf"))
    writer.write(wire.scalar_event(wire.scalar_prefix("x"), 1.0, 3, 1.0))
    writer.close()
    assert [(e.step, e.summary.value[0].simple_value) for e in read_events(writer.path) if e.HasField("summary")] \
        == [(3, 1.0)]
    assert len(upstream_run(tmp_path)["scalars"]["x"]) == 1


def test_a_writer_thread_that_stops_makes_flush_raise(tmp_path, monkeypatch):
    """An unexpected error in the writer thread is raised by the next flush, never a silent return."""
    writer = event_file.EventFileWriter(str(tmp_path), flush_secs=3600)

    def broken(queue):
        raise MemoryError("out of memory in the writer thread")

    monkeypatch.setattr(writer, "_drain", broken)
    monkeypatch.setattr(threading, "excepthook", lambda args: None)  # the thread's traceback is expected
    writer.write(wire.scalar_event(wire.scalar_prefix("x"), 1.0, 0, 1.0))
    with pytest.raises(IOError, match="the writer thread stopped: MemoryError: out of memory"):
        writer.flush()
    with pytest.raises(IOError):
        writer.write(wire.scalar_event(wire.scalar_prefix("x"), 2.0, 1, 1.0))


def test_deferred_events_without_an_encoder_are_encoded_by_the_writer_thread(tmp_path):
    """An EventFileWriter given no background encoder (torch's path, a direct user) still writes
    deferred events, in order, encoded by its own thread."""
    from tensorboard.events.deferred_event import Deferred

    with event_file.EventFileWriter(str(tmp_path)) as writer:
        writer.write(scalar(1))
        writer.write_deferred(Deferred(lambda: scalar(2), 0, "x"))
        writer.write(scalar(3))
    assert [e.step for e in read_events(writer.path)][1:] == [1, 2, 3]
