"""`tensorboard runs archive` while a server serves the logdir: every data path (ours, upstream's native data
server, upstream's Python loader) drops the archived run at its next reload, answers without error, and shows
it again once `runs restore` brings it back."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from serving_helpers import REPO, send, start_launcher, stop_server, wait_until

from tensorboard import SummaryWriter

OLD = 1_600_000_000  # files modified long ago: not being written


def runs_command(*args):
    done = subprocess.run([sys.executable, "-m", "tensorboard.cli.runs", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO / "python")})
    assert done.returncode == 0, done.stderr
    return done.stdout


def served_runs(port) -> list[str]:
    status, _, body = send(port, "/data/runs")
    assert status == 200
    return sorted(json.loads(body))


@pytest.mark.parametrize("provider", ["auto", "native", "multiplexer"])
def test_an_archived_run_leaves_every_data_path_at_its_next_reload(tmp_path, provider):
    logdir = tmp_path / "logs"
    for run in ("a", "b", "c"):
        with SummaryWriter(str(logdir / run), metadata=False) as writer:
            writer.add_scalar("loss", 1.0, 0)
    for directory, _, files in os.walk(logdir):
        for name in files:
            os.utime(os.path.join(directory, name), (OLD, OLD))
    flags = () if provider == "auto" else (f"--data_provider={provider}",)
    server = start_launcher(logdir, tmp_path, *flags)
    try:
        wait_until(lambda: served_runs(server.port) == ["a", "b", "c"], "the three runs served")
        assert runs_command("archive", logdir, "b").startswith("archived b: ")
        wait_until(lambda: served_runs(server.port) == ["a", "c"], "the archived run dropped")
        assert runs_command("restore", logdir, "b").startswith("restored b: ")
        wait_until(lambda: served_runs(server.port) == ["a", "b", "c"], "the restored run served again")
        log = server.log_path.read_text(errors="replace")
        assert "Traceback" not in log, log[-3000:]
    finally:
        stop_server(server)
