"""Upstream's modules we replace stay supersets, and `_AsyncWriter` / `_AsyncWriterThread` of our
`event_file_writer` behave as upstream's: the same scenarios run against both (upstream's module
loaded from the renderer copy), comparing what the record writer saw and what was raised."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import threading

import pytest
from test_event_file_writer import UPSTREAM
from upstream import upstream_python
from waiting import eventually

from tensorboard import upstream_path
from tensorboard.summary.writer import event_file_writer as ours

IMPLS = {"upstream": UPSTREAM, "ours": ours}
# every module of ours that stands in for one of upstream's (same path in upstream's package)
REPLACED = {"tensorboard": "__init__.py", "tensorboard.summary": "summary/__init__.py",
            "tensorboard.summary.writer": "summary/writer/__init__.py",
            "tensorboard.summary.writer.event_file_writer": "summary/writer/event_file_writer.py"}
_poll = eventually


def _upstream_names(module: str) -> list[str]:
    """dir() of upstream's own module, in .venv-upstream (upstream tensorboard 2.21.0 installed)."""
    code = f"import importlib, json; print(json.dumps(dir(importlib.import_module({module!r}))))"
    result = subprocess.run([upstream_python(), "-c", code], capture_output=True, text=True, timeout=300,
                            env={**os.environ, "PYTHONPATH": ""})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def test_every_module_we_replace_is_ours_and_in_upstreams_package():
    """REPLACED is complete: every module of our package at a path upstream's package has too."""
    ours_root = os.path.dirname(importlib.import_module("tensorboard").__file__)
    upstream_root = upstream_path.upstream_dir()
    shared = sorted(os.path.relpath(os.path.join(d, f), ours_root) for d, _, files in os.walk(ours_root)
                    for f in files if f.endswith(".py") and os.path.isfile(
                        os.path.join(upstream_root, os.path.relpath(os.path.join(d, f), ours_root))))
    assert shared == sorted(REPLACED.values())
    for name in REPLACED:
        assert "tensorboard_standalone_renderer" not in importlib.import_module(name).__file__, name


@pytest.mark.parametrize("name", REPLACED)
def test_replaced_module_offers_every_name_of_upstreams(name):
    module = importlib.import_module(name)
    missing = [attr for attr in _upstream_names(name) if not hasattr(module, attr)]
    assert not missing, f"{name} lacks upstream's {missing}"


class Recorder:
    """A record writer that logs calls (what _AsyncWriter hands it), optionally failing on a write."""

    def __init__(self, fail_on: bytes | None = None):
        self.calls: list = []
        self.fail_on = fail_on
        self.lock = threading.Lock()

    def write(self, data):
        if data == self.fail_on:
            raise ValueError(f"cannot write {data!r}")
        with self.lock:
            self.calls.append(("write", data))

    def flush(self):
        with self.lock:
            self.calls.append(("flush",))

    def close(self):
        with self.lock:
            self.calls.append(("close",))

    @property
    def writes(self) -> list:
        return [call for call in self.calls if call[0] == "write"]


def _filled(module, count: int, max_queue_size: int):
    """A `module._AsyncWriter` over a Recorder, after `count` writes: (writer, recorder)."""
    recorder = Recorder()
    writer = module._AsyncWriter(recorder, max_queue_size=max_queue_size, flush_secs=120)
    for i in range(count):
        writer.write(b"record %d" % i)
    return writer, recorder


def _outcome(call) -> str:
    try:
        call()
    except Exception as err:
        return f"{type(err).__name__}: {err}"
    return "ok"


def _both(scenario) -> dict:
    return {impl: scenario(module) for impl, module in IMPLS.items()}


def test_thread_is_a_daemon_with_stop_as_upstreams():
    for impl, module in IMPLS.items():
        writer = module._AsyncWriter(Recorder())
        thread = writer._worker
        assert isinstance(thread, module._AsyncWriterThread) and isinstance(thread, threading.Thread), impl
        assert thread.daemon and thread.is_alive() and callable(thread.stop), impl
        writer.close()
        assert not thread.is_alive(), impl


def test_writes_flush_close_and_use_after_close():
    def scenario(module):
        writer, recorder = _filled(module, 50, max_queue_size=1)
        writer.flush()
        after_flush = list(recorder.calls)
        writer.close()
        writer.close()  # idempotent
        return {"after_flush_writes": [c for c in after_flush if c[0] == "write"],
                "last_after_flush": after_flush[-1], "tail": recorder.calls[-2:],
                "write_after_close": _outcome(lambda: writer.write(b"late")),
                "flush_after_close": _outcome(writer.flush),
                "thread_alive": writer._worker.is_alive()}

    results = _both(scenario)
    assert results["ours"] == results["upstream"]
    assert len(results["ours"]["after_flush_writes"]) == 50
    assert results["ours"]["write_after_close"] == "OSError: Writer is closed"


def test_close_writes_what_is_queued():
    def scenario(module):
        writer, recorder = _filled(module, 20, max_queue_size=100)
        writer.close()
        return recorder.writes, recorder.calls[-2:]

    results = _both(scenario)
    assert results["ours"] == results["upstream"]
    assert len(results["ours"][0]) == 20 and results["ours"][1] == [("flush",), ("close",)]


def test_first_write_is_flushed_at_once_later_ones_after_flush_secs():
    def scenario(module):
        recorder = Recorder()
        writer = module._AsyncWriter(recorder, max_queue_size=10, flush_secs=0.2)
        writer.write(b"first")
        first_flushed = _poll(lambda: ("flush",) in recorder.calls)
        writer.write(b"second")
        second_flushed = _poll(lambda: recorder.calls.count(("flush",)) >= 2)
        writer.close()
        return first_flushed, second_flushed, recorder.calls[:4]

    results = _both(scenario)
    assert results["ours"] == results["upstream"]
    assert results["ours"] == (True, True, [("write", b"first"), ("flush",), ("write", b"second"), ("flush",)])


def test_an_error_in_the_thread_reaches_the_writer_and_releases_waiters(monkeypatch):
    raised = []  # the threads end by raising the error too (upstream's run() re-raises it)
    monkeypatch.setattr(threading, "excepthook", lambda args: raised.append(repr(args.exc_value)))

    def scenario(module):
        recorder = Recorder(fail_on=b"bad")
        writer = module._AsyncWriter(recorder, max_queue_size=1, flush_secs=120)
        writer.write(b"good")
        writer.write(b"bad")
        stopped = _poll(lambda: not writer._worker.is_alive())
        outcomes = [_outcome(lambda: writer.write(b"more")), _outcome(writer.flush)]
        exception = writer._worker.exception
        writer.close()
        return {"stopped": stopped, "outcomes": outcomes, "exception": repr(exception),
                "writes": recorder.writes, "tail": recorder.calls[-2:]}

    results = _both(scenario)
    assert results["ours"] == results["upstream"]
    assert raised == ['ValueError("cannot write b\'bad\'")'] * 2
    assert results["ours"]["outcomes"] == ["ValueError: cannot write b'bad'"] * 2


def test_stop_ends_the_thread_after_what_is_queued():
    def scenario(module):
        recorder = Recorder()
        q = module.queue.Queue(10)
        thread = module._AsyncWriterThread(q, recorder, 120)
        thread.start()
        for i in range(5):
            q.put(b"%d" % i)
        thread.stop()
        return thread.is_alive(), recorder.calls

    results = _both(scenario)
    assert results["ours"] == results["upstream"]
    assert results["ours"][0] is False and len(results["ours"][1]) >= 5


def test_event_file_writer_on_a_real_file_as_upstream(tmp_path):
    """_AsyncWriter over upstream's RecordWriter and a plain file: the same bytes in both."""
    from tensorboard.summary.writer.record_writer import RecordWriter

    contents = {}
    for impl, module in IMPLS.items():
        path = tmp_path / impl
        with open(path, "wb") as f:
            writer = module._AsyncWriter(RecordWriter(f), max_queue_size=3)
            for i in range(10):
                writer.write(b"payload %d" % i)
            writer.close()
        contents[impl] = path.read_bytes()
    assert contents["ours"] == contents["upstream"] and len(contents["ours"]) > 100
