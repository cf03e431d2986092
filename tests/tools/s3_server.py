"""A local S3 API (moto's server) for tests: `with s3_server() as s3: ...`.

Starts `python -m moto.server` on 127.0.0.1 and a free port as a subprocess, waits until it
answers, and stops it on exit. `s3.endpoint` is its URL; `s3.env` holds the variables that
point our logger (fsspec/s3fs: FSSPEC_S3_ENDPOINT_URL), boto3/botocore (AWS_ENDPOINT_URL_S3)
and upstream TensorBoard's reader (S3_ENDPOINT) at it, with dummy credentials. Needs
`moto[server]`, `s3fs` and `boto3` in the interpreter that runs it.

The server logs a line per request to its stderr: that goes to a file, never to a pipe nobody reads
while it runs. A full pipe (64 KiB: some 500 requests; test_s3_serving makes about that many) blocks
moto in the logging write of the next request, and every later request waits for that write: the
store hangs, and a reload of the served bucket stalls (s3fs retries its timed-out requests) without
an error.
"""
from __future__ import annotations

import contextlib
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: the harness, also when run as a script
from waiting import free_port  # noqa: E402


@dataclass
class S3Server:
    endpoint: str
    process: subprocess.Popen
    env: dict[str, str] = field(default_factory=dict)

    def storage_options(self) -> dict:
        """fsspec/s3fs options that reach this server."""
        return {"key": "testing", "secret": "testing", "client_kwargs": {"endpoint_url": self.endpoint,
                                                                        "region_name": "us-east-1"}}

    def create_bucket(self, name: str) -> None:
        import boto3

        boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id="testing",
                     aws_secret_access_key="testing", region_name="us-east-1").create_bucket(Bucket=name)


@contextlib.contextmanager
def s3_server(timeout: float = 60) -> Iterator[S3Server]:
    """A running moto S3 server bound to 127.0.0.1, stopped (and waited for) on exit."""
    port = free_port()
    endpoint = f"http://127.0.0.1:{port}"
    log = tempfile.TemporaryFile()  # its request log: read only if it exits early
    process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
                               stdout=subprocess.DEVNULL, stderr=log)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                log.seek(0)
                raise RuntimeError(f"moto server exited: {log.read().decode(errors='replace')}")
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", timeout=2).close()
                break
            except (urllib.error.URLError, ConnectionError, OSError):
                if time.monotonic() > deadline:
                    raise RuntimeError(f"moto server did not answer on {endpoint} within {timeout} s")
                time.sleep(0.1)
        env = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1",
               "AWS_REGION": "us-east-1", "AWS_ENDPOINT_URL_S3": endpoint, "FSSPEC_S3_ENDPOINT_URL": endpoint,
               "S3_ENDPOINT": endpoint, "S3_USE_HTTPS": "0", "S3_VERIFY_SSL": "0"}
        yield S3Server(endpoint, process, env)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@contextlib.contextmanager
def s3_bucket(name: str) -> Iterator[S3Server]:
    """s3_server() with the bucket `name` created in it."""
    with s3_server() as server:
        server.create_bucket(name)
        yield server


if __name__ == "__main__":  # manual use: prints the endpoint and serves until Ctrl-C
    with s3_server() as server:
        print(server.endpoint, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.process.wait()
