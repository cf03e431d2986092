"""moto's S3 WSGI app served threaded on 127.0.0.1 in this process, behind a middleware that counts
requests (by method, by client and by the credentials that signed them), records how many were in
flight at once, and can delay each one (object stores answer after tens of milliseconds):
`with slow_s3(delay=0.03) as s3: ...`.

The benchmarks (bench/sweeps.py) use the same server with `keep_alive=True`, in a child process
(`SlowS3Process`) that they steer over HTTP: see `slow_s3` and `RemoteControl`.
"""
from __future__ import annotations

import contextlib
import json
import subprocess
import sys
import threading
import time
from collections import Counter
from typing import Iterator

CONTROL = "/__meter__/"  # RemoteControl's paths: delay?SECONDS, reset, state


class Meter:
    """WSGI middleware: counts requests, tracks the most in flight at once, sleeps `delay` s per request."""

    def __init__(self, app, delay: float = 0.0):
        self.app, self.delay = app, delay
        self.lock = threading.RLock()
        self.methods: Counter = Counter()
        self.object_gets: list[str] = []  # paths of GETs of objects (not listings), in arrival order
        self.clients: Counter = Counter()  # requests by client: "botocore" (s3fs, boto3) or "object_store" (obstore)
        self.signers: Counter = Counter()  # requests by (access key id, session token or None); None: unsigned
        self.in_flight = self.max_in_flight = 0

    @property
    def requests(self) -> int:
        """Requests since the last reset."""
        return sum(self.methods.values())

    def reset(self) -> None:
        with self.lock:
            self.methods.clear()
            self.object_gets.clear()
            self.clients.clear()
            self.signers.clear()
            self.max_in_flight = self.in_flight

    def __call__(self, environ, start_response):
        with self.lock:
            self.methods[environ["REQUEST_METHOD"]] += 1
            if environ["REQUEST_METHOD"] == "GET" and "list-type" not in environ.get("QUERY_STRING", ""):
                path = environ.get("PATH_INFO", "")  # WSGI hands the decoded path as latin-1 text
                self.object_gets.append(path.encode("latin-1").decode("utf-8", "replace"))
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
            agent = environ.get("HTTP_USER_AGENT", "")
            self.clients["object_store" if agent.startswith("object_store") else
                         "botocore" if "Botocore" in agent or "botocore" in agent else agent] += 1
            credential = environ.get("HTTP_AUTHORIZATION", "").partition("Credential=")[2].partition("/")[0]
            self.signers[(credential or None, environ.get("HTTP_X_AMZ_SECURITY_TOKEN"))] += 1
        try:
            if self.delay:
                time.sleep(self.delay)
            return self.app(environ, start_response)
        finally:
            with self.lock:
                self.in_flight -= 1


class RemoteControl:
    """WSGI middleware in front of a Meter in another process: `CONTROL + "delay?S"` sets its delay to S
    seconds, `CONTROL + "reset"` resets its counts; each answers {"requests", "delay"} as they were before
    a reset. Every other request goes to the meter."""

    def __init__(self, meter: Meter):
        self.meter = meter

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        if not path.startswith(CONTROL):
            return self.meter(environ, start_response)
        if path == CONTROL + "delay":
            self.meter.delay = float(environ.get("QUERY_STRING") or 0)
        with self.meter.lock:  # re-entrant: the count read and its reset are one step
            answer = {"requests": self.meter.requests, "delay": self.meter.delay}
            if path == CONTROL + "reset":
                self.meter.reset()
        start_response("200 OK", [("Content-Type", "application/json")])
        return [json.dumps(answer).encode()]


class SlowS3:
    def __init__(self, endpoint: str, meter: Meter | None):
        self.endpoint, self.meter = endpoint, meter

    def storage_options(self, fresh: bool = True) -> dict:
        """fsspec/s3fs options that reach this server; `fresh`: a new s3fs instance (no cached listings)."""
        return {"key": "testing", "secret": "testing", **({"skip_instance_cache": True} if fresh else {}),
                "client_kwargs": {"endpoint_url": self.endpoint, "region_name": "us-east-1"}}

    def create_bucket(self, name: str) -> None:
        import boto3

        boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="testing",
                     aws_secret_access_key="testing", region_name="us-east-1").create_bucket(Bucket=name)


@contextlib.contextmanager
def slow_s3(delay: float = 0.0, keep_alive: bool = False, remote_control: bool = False) -> Iterator[SlowS3]:
    """A threaded moto S3 server on 127.0.0.1 (free port), shut down and joined on exit.

    keep_alive: served by waitress, which keeps HTTP/1.1 connections alive between requests as S3 does
    (werkzeug's server closes every connection: each request would pay a new TCP connection on both sides),
    with threads for more requests in flight than a benchmark makes (2 Dask workers x 64), and moto's S3
    app itself without the dispatcher moto's server puts in front (it works out the service of every
    request: for one bucket more CPU than S3's own handling, which S3 does not spend on this machine).
    remote_control: the meter is steered over HTTP (RemoteControl), for a server in another process.
    """
    from moto.server import DomainDispatcherApplication, create_backend_app

    meter = Meter(create_backend_app("s3") if keep_alive else DomainDispatcherApplication(create_backend_app),
                  delay)
    app = RemoteControl(meter) if remote_control else meter
    if keep_alive:
        import logging

        from waitress.server import create_server

        logging.getLogger("waitress").setLevel(logging.ERROR)
        server = create_server(app, host="127.0.0.1", port=0, threads=256, connection_limit=2000)
        port, serve, stop = server.effective_port, server.run, server.close
    else:
        from werkzeug.serving import WSGIRequestHandler, make_server

        class Quiet(WSGIRequestHandler):
            def log_request(self, *args, **kwargs) -> None:  # no line per request on stderr
                pass

        server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=Quiet)
        port, serve, stop = server.server_address[1], server.serve_forever, server.shutdown
    thread = threading.Thread(target=serve, name="moto-s3", daemon=True)
    thread.start()
    try:
        yield SlowS3(f"http://127.0.0.1:{port}", meter)
    finally:
        stop()
        if not keep_alive:  # waitress's close() ends its loop with the socket; werkzeug's is closed after it
            thread.join(10)
            server.server_close()


class SlowS3Process(SlowS3):
    """slow_s3(keep_alive=True) in a child process of this interpreter, whose threads then take no time from
    the caller's; its delay and counts are steered with `control`. Stop it with `close()`."""

    def __init__(self) -> None:
        self.process = subprocess.Popen([sys.executable, __file__, "--serve"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        super().__init__(f"http://127.0.0.1:{int(self.process.stdout.readline())}", None)

    def control(self, what: str, value: str = "") -> dict:
        """`what`: "delay" (to `value` seconds per request) or "reset" (the request count); {"requests", "delay"}."""
        import urllib.request

        with urllib.request.urlopen(f"{self.endpoint}{CONTROL}{what}?{value}", timeout=30) as answer:
            return json.loads(answer.read())

    def close(self) -> None:
        """Closes its stdin (its signal to stop) and waits for it, killing it after 30 s."""
        self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdout.close()


def serve_until_stdin_closes() -> None:
    """The child of SlowS3Process: prints the port, serves until its stdin closes."""
    with slow_s3(keep_alive=True, remote_control=True) as s3:
        print(s3.endpoint.rsplit(":", 1)[1], flush=True)
        sys.stdin.read()


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    serve_until_stdin_closes()
