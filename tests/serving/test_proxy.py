"""Our server behind Debian's nginx as a reverse proxy, as docs/security.md configures it: nginx on a free
127.0.0.1 port passes `/tensorboard/` to the server started with `--path_prefix /tensorboard`, and forwards the
`Host` it was reached by. With `--allowed_hosts` naming the proxy's host, pages and data come through (the
hparams dashboard's POSTs too, from the proxy's origin); without it, the server refuses the proxy's host; a host
nginx answers for that the server does not know is refused through the proxy as well. nginx and the server are
stopped by the test."""
from __future__ import annotations

import json
import shutil
import signal
import subprocess
from pathlib import Path

import pytest
from e2e_helpers import free_port, stop_server
from serving_helpers import send, start_launcher
from waiting import eventually

from tensorboard import SummaryWriter

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
PROXY_HOST = "tb.example.test"
CONFIG = """
daemon off;
master_process off;
worker_processes 1;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log warn;
events {{ worker_connections 64; }}
http {{
    access_log {tmp}/access.log;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port};
        location /tensorboard/ {{
            proxy_pass http://127.0.0.1:{upstream};
            proxy_set_header Host $host;
            proxy_http_version 1.1;
        }}
    }}
}}
"""


@pytest.fixture(scope="module")
def logdir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("proxied") / "logs"
    with SummaryWriter(str(path / "run")) as writer:
        writer.add_scalar("loss", 0.5, 1)
    return path


def start_nginx(tmp: Path, upstream: int):
    """nginx in the foreground (daemon off), its files in `tmp`; (process, port) once it answers."""
    port = free_port()
    config = tmp / "nginx.conf"
    config.write_text(CONFIG.format(tmp=tmp, port=port, upstream=upstream))
    proc = subprocess.Popen([NGINX, "-c", str(config), "-p", str(tmp)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)

    def answering():
        try:
            return send(port, "/tensorboard/data/plugins_listing", {"Host": PROXY_HOST})[0] != 502
        except OSError:
            return proc.poll() is not None
    assert eventually(answering) and proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
    return proc, port


def stop_nginx(proc) -> None:
    proc.send_signal(signal.SIGQUIT)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.mark.parametrize("allowed", [True, False])
def test_the_server_behind_nginx(logdir, tmp_path, allowed):
    flags = ["--path_prefix", "/tensorboard"] + (["--allowed_hosts", PROXY_HOST] if allowed else [])
    server = start_launcher(logdir, tmp_path, *flags,
                            answers=lambda s: send(s.port, "/tensorboard/data/plugins_listing")[0] == 200)
    try:
        proxy, port = start_nginx(tmp_path, server.port)
        try:
            status, _, body = send(port, "/tensorboard/data/runs", {"Host": PROXY_HOST})
            if not allowed:
                assert status == 403 and b"--allowed_hosts tb.example.test" in body
                return
            assert status == 200 and json.loads(body) == ["run"]
            assert send(port, "/tensorboard/", {"Host": PROXY_HOST})[0] == 200  # the page
            request = json.dumps({"experimentName": ""}).encode()
            status, _, _ = send(port, "/tensorboard/data/plugin/hparams/experiment",
                                {"Host": PROXY_HOST, "Origin": f"http://{PROXY_HOST}",
                                 "Content-Type": "application/json"}, "POST", request)
            assert status != 403  # the proxy's own pages may post
            assert send(port, "/tensorboard/data/runs", {"Host": "other.example.test"})[0] == 403
        finally:
            stop_nginx(proxy)
    finally:
        stop_server(server)
