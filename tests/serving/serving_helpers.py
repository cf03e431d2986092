"""Helpers and fixtures of tests/serving: one logdir written by our writer, torch's and tensorboardX's (plus a damaged
file, a file cut inside a record and a file that grows during the tests), served by a pair of real
servers on 127.0.0.1 started from the source tree's launcher: ours (the default, `--data_provider=auto`) and
`--data_provider=multiplexer` (upstream's Python loader). Every process started here is stopped here."""
from __future__ import annotations

import http.client
import ssl
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from matrix import in_matrix

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
sys.path.insert(0, str(REPO / "tests" / "e2e"))
from e2e_helpers import Server, clean_env, free_port, stop_server, wait_until_serving  # noqa: E402
from waiting import poll  # noqa: E402

UPSTREAM_PYTHON = REPO / ".venv-upstream" / "bin" / "python"
RELOAD_S = 1  # --reload_interval of the test servers
DEADLINE_S = 120  # guards against a hang only


def start_launcher(logdir: Path, tmp: Path, *flags: str, env_extra=None, python: str = sys.executable,
                   answers=None) -> Server:
    """Our launcher (tools/launcher/main.py, from source) serving `logdir` on `python` (an interpreter whose
    environment has the renderer: ours by default); waits until it answers (`answers(server)`: see
    wait_until_serving)."""
    port = free_port()
    log_path = tmp / ("server-%d.log" % port)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            [python, str(HERE / "run_launcher.py"), "--logdir", str(logdir), "--port", str(port),
             "--reload_interval=%d" % RELOAD_S, *flags],
            cwd=str(tmp), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=clean_env(**(env_extra or {})), start_new_session=True)
    return wait_until_serving(Server(proc, port, log_path), DEADLINE_S, answers)


def send(port: int, path: str, headers: dict | None = None, method: str = "GET", body: bytes | None = None,
            tls: ssl.SSLContext | None = None):
    """(status, headers, body) of one request to 127.0.0.1:`port`, with exactly the `Host` given (if any)."""
    connection = (http.client.HTTPSConnection("127.0.0.1", port, context=tls, timeout=60) if tls
                  else http.client.HTTPConnection("127.0.0.1", port, timeout=60))
    try:
        headers = dict(headers or {})
        connection.putrequest(method, path, skip_host="Host" in headers, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def _write(kind: str, logdir: Path) -> None:
    python = str(UPSTREAM_PYTHON) if kind == "tbx" else sys.executable
    if kind == "torch" and in_matrix():  # torch writes its logdir on the Python its CPU wheel exists for
        python = str(REPO / ".venv" / "bin" / "python")
    env = clean_env() if kind == "tbx" else clean_env(PYTHONPATH=str(REPO / "python"))
    out = subprocess.run([python, str(HERE / "write_logdirs.py"), kind, str(logdir)], env=env,
                         capture_output=True, text=True, timeout=DEADLINE_S)
    assert out.returncode == 0, "%s writer failed:\n%s" % (kind, out.stderr[-3000:])


def _damage(logdir: Path) -> None:
    """A copy of our main run with one byte flipped mid-file, and one cut inside a record."""
    (source,) = sorted((logdir / "ours" / "main").glob("events.out.tfevents.*"))
    data = bytearray(source.read_bytes())
    for name, content in (("damaged", data[:len(data) // 2] + bytes([data[len(data) // 2] ^ 0xFF])
                           + data[len(data) // 2 + 1:]), ("cut", data[:len(data) // 3])):
        (logdir / name).mkdir()
        (logdir / name / ("events.out.tfevents.1.%s" % name)).write_bytes(bytes(content))


@pytest.fixture(scope="session")
def peer_logdir(tmp_path_factory) -> Path:
    """ours/, torch/, tbx/ (each: main with every dashboard's data, hp_0.1 and hp_0.01), damaged/, cut/."""
    assert UPSTREAM_PYTHON.exists(), "tools/test_envs.sh makes .venv-upstream (tensorboardX)"
    logdir = tmp_path_factory.mktemp("serving") / "logs"
    with ThreadPoolExecutor(3) as pool:
        list(pool.map(lambda kind: _write(kind, logdir / kind), ("ours", "torch", "tbx")))
    _damage(logdir)
    return logdir


@pytest.fixture(scope="session")
def server_pair(peer_logdir, tmp_path_factory):
    """(ours, as the default serves, and upstream's multiplexer), both serving peer_logdir, stopped after
    the session."""
    tmp = tmp_path_factory.mktemp("servers")
    started = []
    try:
        with ThreadPoolExecutor(2) as pool:  # both start at once; each is stopped even if the other fails
            # ours by default (no --data_provider: auto serves local logdirs through our reader)
            futures = [pool.submit(start_launcher, peer_logdir, tmp, *flags)
                       for flags in ((), ("--data_provider=multiplexer",))]
        errors = []
        for future in futures:
            try:
                started.append(future.result())
            except AssertionError as err:
                errors.append(err)
        if errors:
            raise errors[0]
        yield tuple(started)
    finally:
        for server in started:
            stop_server(server)


def wait_until(predicate, what: str):
    """Polls `predicate` until it returns a true value (or fails after DEADLINE_S, naming `what`)."""
    value = poll(predicate, DEADLINE_S, every=0.25)
    if not value:
        raise AssertionError("never happened: " + what)
    return value
