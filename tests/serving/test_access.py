"""Who may read a served logdir (tensorboard.serving.access), on real servers started from the source tree's
launcher: forged `Host` and `Origin` headers (ours, the default, and upstream's native data server), a token by
query, cookie and header and a wrong one, the token by default beyond loopback, HTTPS with a certificate made
here, and the rule's pieces one by one. Every server started here is stopped here."""
from __future__ import annotations

import http.client
import json
import re
import ssl
import subprocess
from pathlib import Path

import pytest
from e2e_helpers import stop_server
from serving_helpers import send, start_launcher
from waiting import eventually

from tensorboard import SummaryWriter
from tensorboard.serving import access

ROUTES = ["/", "/data/runs", "/data/plugins_listing", "/data/plugin/scalars/tags", "/data/environment",
          "/data/plugin/projector/runs", "/index.js"]  # the page, data, a plugin's, the projector's, a static file
TOKEN = "a-fixed-token-for-the-test-0123456789"


@pytest.fixture(scope="module")
def logdir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("access") / "logs"
    with SummaryWriter(str(path / "run")) as writer:
        for step in range(3):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
    return path


def answers_with(headers: dict | None = None, tls: ssl.SSLContext | None = None):
    """The readiness probe of a server that needs `headers` (a token) or TLS to answer."""
    return lambda server: send(server.port, "/data/plugins_listing", headers, tls=tls)[0] == 200


@pytest.fixture(scope="module", params=["auto", "native"])
def loopback_server(request, logdir, tmp_path_factory):
    """A server bound to 127.0.0.1 (the launcher's default), through our reader or the native data server."""
    flags = () if request.param == "auto" else ("--data_provider=native",)
    server = start_launcher(logdir, tmp_path_factory.mktemp("srv"), *flags)
    yield server
    stop_server(server)


def test_loopback_hosts_are_answered_on_every_route(loopback_server):
    for host in (f"127.0.0.1:{loopback_server.port}", f"localhost:{loopback_server.port}", "localhost",
                 f"[::1]:{loopback_server.port}", "app.localhost"):
        for route in ROUTES:
            status, _, _ = send(loopback_server.port, route, {"Host": host})
            assert status == 200, (host, route, status)


def test_a_forged_host_is_refused_on_every_route_naming_the_flag(loopback_server):
    for host in ("attacker.example", f"attacker.example:{loopback_server.port}", "127.0.0.1.nip.io", "",
                 "localhost.attacker.example"):
        for route in ROUTES:
            status, headers, body = send(loopback_server.port, route, {"Host": host})
            assert status == 403, (host, route, status)
            text = body.decode()
            assert "--allowed_hosts" in text and text.count("\n") == 1, text
            assert b"loss" not in body and headers["Content-Type"].startswith("text/plain")


def test_a_post_from_another_origin_is_refused(loopback_server):
    port = loopback_server.port
    body = json.dumps({"experimentName": ""}).encode()
    own = {"Host": f"127.0.0.1:{port}", "Content-Type": "application/json"}
    route = "/data/plugin/hparams/experiment"
    expected, _, _ = send(port, route, own, "POST", body)  # no Origin: a script, not a page
    assert expected != 403
    assert send(port, route, {**own, "Origin": f"http://127.0.0.1:{port}"}, "POST", body)[0] == expected
    for origin in ("http://attacker.example", f"http://localhost:{port + 1}", "null"):
        status, _, text = send(port, route, {**own, "Origin": origin}, "POST", body)
        assert status == 403 and b"Origin" in text, (origin, status)
    status, _, _ = send(port, route, {**own, "Referer": "http://attacker.example/page"}, "POST", body)
    assert status == 403
    assert send(port, "/data/runs", {**own, "Origin": "http://attacker.example"})[0] == 200  # GET: no change


def test_allowed_hosts_admit_a_proxy_name(logdir, tmp_path):
    server = start_launcher(logdir, tmp_path, "--allowed_hosts", "tb.example.org,.corp.example")
    try:
        for host in ("tb.example.org", "TB.example.org:443", "a.corp.example", "corp.example", "127.0.0.1"):
            assert send(server.port, "/data/runs", {"Host": host})[0] == 200, host
        assert send(server.port, "/data/runs", {"Host": "example.org"})[0] == 403
        body = json.dumps({"experimentName": ""}).encode()
        status, _, _ = send(server.port, "/data/plugin/hparams/experiment",
                               {"Host": "127.0.0.1", "Origin": "https://tb.example.org",
                                "Content-Type": "application/json"}, "POST", body)
        assert status != 403  # the proxy's own pages
    finally:
        stop_server(server)


def test_token_by_query_cookie_and_header(logdir, tmp_path):
    token_file = tmp_path / "token"
    token_file.write_text(TOKEN + "\n")
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    server = start_launcher(logdir, tmp_path, "--auth", "token", "--auth_token_file", str(token_file),
                            answers=answers_with(bearer))
    try:
        port = server.port
        for route in ROUTES:
            status, headers, body = send(port, route)
            assert status == 401 and TOKEN.encode() not in body and "--auth_token_file" in body.decode(), route
            assert headers["WWW-Authenticate"].startswith("Bearer")
            assert send(port, route, bearer)[0] == 200, route
        status, _, body = send(port, "/data/runs", {"Authorization": "Bearer wrong"})
        assert status == 401 and b"not this TensorBoard's" in body and TOKEN.encode() not in body
        assert send(port, "/data/runs?token=wrong")[0] == 401
        status, headers, _ = send(port, f"/?token={TOKEN}")
        assert status == 200
        cookie = headers["Set-Cookie"]
        assert cookie.startswith(f"{access.COOKIE_PREFIX}{port}={TOKEN};")
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie and "Path=/" in cookie
        name_value = cookie.split(";", 1)[0]
        assert json.loads(send(port, "/data/runs", {"Cookie": name_value})[2]) == ["run"]
        assert send(port, "/data/runs", {"Cookie": f"{access.COOKIE_PREFIX}{port}=wrong"})[0] == 401
        assert send(port, "/data/runs", {"Cookie": f"{access.COOKIE_PREFIX}{port + 1}={TOKEN}"})[0] == 401
    finally:
        stop_server(server)
    log = server.log()
    assert f"?token={TOKEN} " in log and log.count(TOKEN) == 1  # the start-up line's URL, and nowhere else


def test_bind_all_needs_a_token_by_default_and_prints_it(logdir, tmp_path):
    server = start_launcher(logdir, tmp_path, "--bind_all",
                            answers=lambda server: "?token=" in server.log())
    try:
        match = re.search(r"TensorBoard \S+ at (http://\S+)\?token=([0-9a-f]+) ", server.log())
        assert match, server.log()
        token = match.group(2)
        assert len(token) == 2 * access.TOKEN_BYTES
        assert eventually(lambda: send(server.port, "/data/runs", {"Authorization": f"Bearer {token}"})[0] == 200)
        assert send(server.port, "/data/runs")[0] == 401
        assert send(server.port, "/data/runs", {"Host": "any-name.example"})[0] == 401  # the token guards
    finally:
        stop_server(server)


def test_bind_all_without_auth_says_so(logdir, tmp_path):
    server = start_launcher(logdir, tmp_path, "--bind_all", "--auth", "none")
    try:
        assert "--auth none on http" in server.log() and "anyone who can reach this port" in server.log()
        assert send(server.port, "/data/runs", {"Host": "any-name.example"})[0] == 200
    finally:
        stop_server(server)


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost and its key, made with openssl."""
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def test_https_with_a_self_signed_certificate(logdir, tmp_path):
    cert, key = self_signed(tmp_path)
    tls = ssl.create_default_context(cafile=str(cert))
    server = start_launcher(logdir, tmp_path, "--certfile", str(cert), "--keyfile", str(key),
                            answers=answers_with(tls=tls))
    try:
        status, _, body = send(server.port, "/data/runs", tls=tls)
        assert status == 200 and json.loads(body) == ["run"]
        assert f"at https://127.0.0.1:{server.port}/" in server.log()
        assert send(server.port, "/data/runs", {"Host": "attacker.example"}, tls=tls)[0] == 403
        with pytest.raises((ssl.SSLError, ConnectionError, http.client.HTTPException)):
            send(server.port, "/data/runs")  # plain HTTP is not served
    finally:
        stop_server(server)


@pytest.mark.parametrize("flags,message", [
    (("--certfile", "/nonexistent.pem"), "--certfile and --keyfile go together"),
    (("--certfile", "/nonexistent.pem", "--keyfile", "/nonexistent.key"), "--certfile /nonexistent.pem"),
    (("--auth", "token", "--auth_token_file", "/nonexistent"), "--auth_token_file /nonexistent"),
    (("--allowed_hosts", "http://tb.example"), "--allowed_hosts: 'http://tb.example' is not a host name"),
])
def test_bad_access_flags_are_refused_naming_the_flag(logdir, tmp_path, flags, message):
    import sys

    out = subprocess.run([sys.executable, str(Path(__file__).with_name("run_launcher.py")), "--logdir", str(logdir),
                          "--port", "0", *flags], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert out.returncode != 0 and message in out.stderr, out.stderr[-2000:]


# -- the rule's pieces ---------------------------------------------------------------------------------------

def test_allowed_hosts_are_names_or_addresses():
    assert access.parse_allowed_hosts("TB.example.org., *.corp.example, [::1], 10.0.0.1, *") == \
        frozenset({"tb.example.org", ".corp.example", "::1", "10.0.0.1", "*"})
    for bad in ("http://tb.example", "tb.example:8080", "tb example", "a/b", "user@tb.example"):
        with pytest.raises(ValueError, match="--allowed_hosts: .* is not a host name"):
            access.parse_allowed_hosts(bad)


def test_split_host():
    assert access.split_host("Example.ORG:8080") == "example.org"
    assert access.split_host("[::1]:6006") == "::1"
    assert access.split_host("localhost.") == "localhost"
    assert access.split_host("::1") == "::1"


def test_loopback_names():
    assert all(map(access.host_is_loopback, ["localhost", "a.localhost", "127.0.0.1", "127.8.9.1", "::1", "[::1]"]))
    assert not any(map(access.host_is_loopback, ["localhost.example", "10.0.0.1", "0.0.0.0", "example.org", ""]))
    assert access.is_loopback_bind(None, False) and access.is_loopback_bind("127.0.0.1", False)
    assert not access.is_loopback_bind("127.0.0.1", True) and not access.is_loopback_bind("0.0.0.0", False)


def test_host_rule_beyond_loopback():
    anyone = access.AccessPolicy(loopback_only=False)
    narrowed = access.AccessPolicy(loopback_only=False, allowed_hosts=frozenset({"tb.example"}))
    assert access.host_allowed(anyone, "whatever.example")
    assert access.host_allowed(narrowed, "tb.example") and access.host_allowed(narrowed, "localhost")
    assert not access.host_allowed(narrowed, "whatever.example")


def test_tokens_compare_in_constant_time_and_never_match_nothing():
    assert access.token_matches(TOKEN, TOKEN) and not access.token_matches(None, TOKEN)
    assert not access.token_matches("", TOKEN) and not access.token_matches(TOKEN + "x", TOKEN)
    assert not access.token_matches("\udcff", TOKEN)  # not encodable as it is: no exception


def test_request_lines_are_logged_without_the_token():
    assert access.redacted(f"GET /data/runs?a=1&token={TOKEN} HTTP/1.1") == \
        "GET /data/runs?a=1&token=(redacted) HTTP/1.1"
    assert access.redacted("GET /?token= HTTP/1.1") == "GET /?token=(redacted) HTTP/1.1"


def test_token_file_rules(tmp_path):
    good = tmp_path / "good"
    good.write_text("  abc123  \nsecond line\n")
    assert access.read_token_file(str(good)) == "abc123"
    for content in ("", "\n", "two words\n", "x" * 5000):
        bad = tmp_path / "bad"
        bad.write_text(content)
        with pytest.raises(ValueError, match="--auth_token_file"):
            access.read_token_file(str(bad))
