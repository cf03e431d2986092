"""Helpers and fixtures for the end-to-end tests: wheel builds, a fresh virtualenv with the
wheel installed, a logdir written by our logger, and launcher processes.

Every process a fixture starts is stopped by that fixture. Servers bind
127.0.0.1 on free ports.
"""

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from waiting import free_port, stop_group  # noqa: F401  (the e2e tests take free_port from here)

REPO = Path(__file__).resolve().parents[2]
E2E = Path(__file__).resolve().parent
BUILD_SCRIPT = REPO / "tools" / "pip_package" / "build_pip_package.sh"
STARTUP_DEADLINE_S = 180  # only guards against hangs; not a performance check


def clean_env(**extra):
    """The environment without any virtualenv activation or PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p
    ) or "/usr/bin:/bin"
    env.update(extra)
    return env


def http_get(url, data=None, headers=None):
    """(status, body bytes) for a GET (or POST when data is given)."""
    req = urllib.request.Request(url, data=data, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def get_json(url, data=None):
    """GET (or POST a JSON body) a JSON answer; asserts a 200."""
    headers = {"Content-Type": "application/json"} if data else {}
    status, body = http_get(url, data, headers)
    assert status == 200, "%s -> %s %r" % (url, status, body[:300])
    return json.loads(body)


@pytest.fixture(scope="session")
def wheels(tmp_path_factory):
    """Two wheels built from the same tree by build_pip_package.sh."""
    out = []
    for i in (1, 2):
        dest = tmp_path_factory.mktemp("wheel%d" % i)
        subprocess.run(["bash", str(BUILD_SCRIPT), str(dest)], cwd=REPO, check=True,
                       stdout=subprocess.DEVNULL)
        (wheel,) = dest.glob("tensorboard-*+standalone*.whl")
        out.append(wheel)
    return out


@pytest.fixture(scope="session")
def venv(tmp_path_factory, wheels):
    """A fresh virtualenv (in tmp) with the built wheel installed."""
    path = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", str(path)], check=True)
    subprocess.run([str(path / "bin" / "python"), "-m", "pip", "install", "-q", str(wheels[0])],
                   check=True, env=clean_env())
    return path


@pytest.fixture(scope="session")
def logdir(tmp_path_factory, venv):
    """A logdir written by OUR logger from the installed wheel.

    Returns (path, errors): `errors` maps a data kind to the traceback of the
    `add_*` call that failed, so each dashboard's test can report it.
    """
    path = tmp_path_factory.mktemp("logdir")
    out = subprocess.run([str(venv / "bin" / "python"), str(E2E / "write_logdir.py"), str(path)],
                         cwd=str(tmp_path_factory.getbasetemp()), env=clean_env(),
                         check=True, capture_output=True, text=True)
    return path, json.loads(out.stdout.strip().splitlines()[-1])["errors"]


class Server:
    """A running `tensorboard` launcher process and its base URL."""

    def __init__(self, proc, port, log_path):
        self.proc, self.port, self.log_path = proc, port, log_path
        self.url = "http://127.0.0.1:%d" % port

    def log(self):
        """Everything the launcher wrote so far (stdout+stderr)."""
        return Path(self.log_path).read_text(errors="replace")

    def get(self, path):
        """JSON answer of GET url+path."""
        return get_json(self.url + path)

    def children(self):
        """Command lines of the launcher's descendant processes."""
        return list(descendants(processes(), {self.proc.pid}).values())


def processes():
    """{pid: (parent pid, state, command line)} of every process in /proc; state "Z" is a zombie (it has exited,
    and a parent, or a PID 1 that reaps nothing, has not collected it)."""
    table = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        table[int(d.name)] = (int(fields[1]), fields[0], cmd)
    return table


def descendants(table, pids):
    """{pid: command line} of the processes of `table` (processes()) below `pids`: children, theirs, ..."""
    found, frontier = {}, set(pids)
    while frontier:
        frontier = {p for p, (parent, _, _) in table.items() if parent in frontier}
        found.update((p, table[p][2]) for p in frontier)
    return found


def tagged(name, value):
    """{pid: command line} of the running processes (zombies aside) whose environment holds `name`=`value`, and
    of the processes below them: a variable set on what a test starts finds that, wherever it was reparented."""
    entry = ("%s=%s" % (name, value)).encode()
    table = {pid: row for pid, row in processes().items() if row[1] != "Z"}
    found = {}
    for pid, (_, _, cmd) in table.items():
        try:
            if entry in Path("/proc/%d/environ" % pid).read_bytes().split(b"\0"):
                found[pid] = cmd
        except OSError:
            continue
    return {**found, **descendants(table, found)}


def still_running(started):
    """The processes of `started` ({pid: command line}) that still run: the same pid and command line, no zombie."""
    table = processes()
    return {pid: cmd for pid, cmd in started.items()
            if pid in table and table[pid][1] != "Z" and table[pid][2] == cmd}


def start_server(venv, logdir, tmp_path, *flags, env_extra=None):
    """Start the installed launcher (no activation, cwd=tmp) and wait for it."""
    port = free_port()
    log_path = tmp_path / ("server-%d.log" % port)
    log = open(log_path, "wb")
    cmd = [str(venv / "bin" / "tensorboard"), "--logdir", str(logdir), "--port", str(port), *flags]
    proc = subprocess.Popen(cmd, cwd=str(tmp_path), stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=clean_env(**(env_extra or {})),
                            start_new_session=True)
    log.close()
    return wait_until_serving(Server(proc, port, log_path), STARTUP_DEADLINE_S)


def wait_until_serving(server, deadline_s, answers=None):
    """`server` once `answers(server)` (default: /data/plugins_listing gives a 200); its log in the error if it
    exits or hangs (then stopped)."""
    answers = answers or (lambda server: http_get(server.url + "/data/plugins_listing")[0] == 200)
    deadline = time.monotonic() + deadline_s
    while True:
        if server.proc.poll() is not None:
            raise AssertionError("launcher exited with %s:\n%s" % (server.proc.returncode, server.log()))
        try:
            if answers(server):
                return server
        except OSError:
            pass
        if time.monotonic() > deadline:
            stop_server(server)
            raise AssertionError("launcher did not answer:\n" + server.log())
        time.sleep(0.2)


def wait_for_runs(server, expected_runs):
    """Poll /data/runs until the expected runs are loaded."""
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    while True:
        runs = server.get("/data/runs")
        if set(expected_runs) <= set(runs) or time.monotonic() > deadline:
            return runs
        time.sleep(0.5)


def stop_server(server):
    """Stop the launcher and everything it started (its process group)."""
    stop_group(server.proc)
