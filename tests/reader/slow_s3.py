"""moto's S3 WSGI app served threaded on 127.0.0.1 in this process, behind a middleware that counts
requests (by method, by client and by the credentials that signed them), records how many were in
flight at once, and can delay each one (object stores answer after tens of milliseconds):
`with slow_s3(delay=0.03) as s3: ...`."""
from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from typing import Iterator


class Meter:
    """WSGI middleware: counts requests, tracks the most in flight at once, sleeps `delay` s per request."""

    def __init__(self, app, delay: float = 0.0):
        self.app, self.delay = app, delay
        self.lock = threading.Lock()
        self.methods: Counter = Counter()
        self.object_gets: list[str] = []  # paths of GETs of objects (not listings), in arrival order
        self.clients: Counter = Counter()  # requests by client: "botocore" (s3fs, boto3) or "object_store" (obstore)
        self.signers: Counter = Counter()  # requests by (access key id, session token or None); None: unsigned
        self.in_flight = self.max_in_flight = 0

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


class SlowS3:
    def __init__(self, endpoint: str, meter: Meter):
        self.endpoint, self.meter = endpoint, meter

    def storage_options(self) -> dict:
        """fsspec/s3fs options that reach this server (a fresh s3fs instance: no cached listings)."""
        return {"key": "testing", "secret": "testing", "skip_instance_cache": True,
                "client_kwargs": {"endpoint_url": self.endpoint, "region_name": "us-east-1"}}

    def create_bucket(self, name: str) -> None:
        import boto3

        boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="testing",
                     aws_secret_access_key="testing", region_name="us-east-1").create_bucket(Bucket=name)


@contextlib.contextmanager
def slow_s3(delay: float = 0.0) -> Iterator[SlowS3]:
    """A threaded moto S3 server on 127.0.0.1 (free port), shut down and joined on exit."""
    from moto.server import DomainDispatcherApplication, create_backend_app
    from werkzeug.serving import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_request(self, *args, **kwargs) -> None:  # no line per request on stderr
            pass

    meter = Meter(DomainDispatcherApplication(create_backend_app), delay)
    server = make_server("127.0.0.1", 0, meter, threaded=True, request_handler=Quiet)
    thread = threading.Thread(target=server.serve_forever, name="moto-s3", daemon=True)
    thread.start()
    try:
        yield SlowS3(f"http://127.0.0.1:{server.server_address[1]}", meter)
    finally:
        server.shutdown()
        thread.join(10)
        server.server_close()
