"""The packaged renderer reads a run our logger wrote to a real S3 API.

moto's S3 server runs on 127.0.0.1 (tests/tools/s3_server.py). Our logger writes a run to
`s3://<bucket>/<prefix>/<run>` and keeps it open; the installed launcher serves
`tensorboard --logdir s3://<bucket>/<prefix>`. Upstream reads S3 through boto3 with the endpoint
from S3_ENDPOINT, and its Rust data server cannot read S3 at all, so the launcher must fall
back to the Python loader even when `--load_fast=true` is asked for. The values served by the
HTTP data API must equal what was logged, and data appended while the server runs must show
up after a reload.
"""

import os
import subprocess
import time
import urllib.parse

import numpy as np
import pytest

pytest.importorskip("moto")  # moto[server] and s3fs: installed into .venv by tools/test_envs.sh
pytest.importorskip("s3fs")

from e2e_helpers import STARTUP_DEADLINE_S, clean_env, start_server, stop_server, wait_for_runs  # noqa: E402
from tools.s3_server import s3_bucket  # noqa: E402

import tensorboard  # noqa: E402  (our logger from the source tree, see tests/conftest.py)

BUCKET = "tb-e2e"
PREFIX = "exp"
RUN = "train"
SCALAR_TAG = "loss"
HISTOGRAM_TAG = "weights"
TEXT_TAG = "notes"
TEXT_VALUE = "hello from s3"
FIRST_STEPS = list(range(10))
MORE_STEPS = list(range(10, 15))
HISTOGRAM_STEPS = [0, 1, 2]
HISTOGRAM_SIZE = 500
FALLBACK_NOTE = "the fast data server cannot read s3:// logdirs; using --load_fast=false"


def loss(step):
    """The logged value, as the float32 the event file stores."""
    return float(np.float32(1.0 / (step + 1)))


def histogram_values(step):
    return np.random.default_rng(step).normal(loc=step, scale=1.0, size=HISTOGRAM_SIZE)


def q(**params):
    return urllib.parse.urlencode(params)


@pytest.fixture(scope="module")
def s3_venv(venv):
    """The e2e virtualenv plus boto3, the renderer's S3 client (part of the wheel's `s3` extra).

    Only boto3 is added: the renderer reads s3:// through boto3 when it is importable, so this
    proves that path (fsspec/s3fs, the logger's side of the extra, are not needed to serve)."""
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "boto3"],
                   check=True, env=clean_env(), stdout=subprocess.DEVNULL)
    return venv


@pytest.fixture(scope="module")
def s3():
    with s3_bucket(BUCKET) as server:
        yield server


@pytest.fixture(scope="module")
def writer(s3):
    """Our logger writing the run to S3, left open so the append test can add to the same object.

    The endpoint reaches the logger through storage_options, not the environment, so the
    launcher below sees only the variables the renderer itself needs."""
    w = tensorboard.SummaryWriter("s3://%s/%s/%s" % (BUCKET, PREFIX, RUN), storage_options=s3.storage_options())
    try:
        for step in FIRST_STEPS:
            w.add_scalar(SCALAR_TAG, loss(step), step)
        for step in HISTOGRAM_STEPS:
            w.add_histogram(HISTOGRAM_TAG, histogram_values(step), step)
        w.add_text(TEXT_TAG, TEXT_VALUE, 0)
        w.flush()  # uploads the whole event object
        yield w
    finally:
        w.close()


@pytest.fixture(scope="module")
def server(s3_venv, s3, writer, tmp_path_factory):
    """`tensorboard --logdir s3://bucket/prefix --load_fast=true`, stopped after the module."""
    # What upstream's S3 reader (tensorboard/compat/tensorflow_stub/io/gfile.py, S3FileSystem)
    # needs, found by running it against moto: the endpoint from S3_ENDPOINT (passed to every
    # boto3 client as endpoint_url; its http:// scheme is enough, S3_USE_HTTPS/S3_VERIFY_SSL are
    # not read) and credentials of any value (without them boto3 raises NoCredentialsError in
    # the Reloader thread and no run ever appears). No region is needed. Every other S3 variable
    # (AWS_ENDPOINT_URL_S3, FSSPEC_S3_ENDPOINT_URL, ...) is kept out, so the run can only have
    # been read through S3_ENDPOINT.
    saved = {k: os.environ.pop(k) for k in list(os.environ) if k.startswith(("AWS_", "S3_", "FSSPEC_"))}
    try:
        srv = start_server(s3_venv, "s3://%s/%s" % (BUCKET, PREFIX), tmp_path_factory.mktemp("s3srv"),
                           "--load_fast", "true", "--reload_interval", "1",
                           env_extra={"S3_ENDPOINT": s3.endpoint, "AWS_ACCESS_KEY_ID": "testing",
                                      "AWS_SECRET_ACCESS_KEY": "testing"})
    finally:
        os.environ.update(saved)
    try:
        wait_for_runs(srv, [RUN])
        yield srv
    finally:
        stop_server(srv)


def poll(fetch, done, what, server):
    """fetch() until done(result); the deadline only guards against hangs."""
    deadline = time.monotonic() + STARTUP_DEADLINE_S
    while True:
        result = fetch()
        if done(result):
            return result
        if time.monotonic() > deadline:
            raise AssertionError("%s: still %r after %d s\n%s" % (what, result, STARTUP_DEADLINE_S, server.log()))
        time.sleep(0.5)


def scalars(server):
    return server.get("/data/plugin/scalars/scalars?" + q(run=RUN, tag=SCALAR_TAG))


def test_s3_logdir_falls_back_to_the_python_loader(server):
    assert FALLBACK_NOTE in server.log()
    data_servers = [c for c in server.children() if "tensorboard_data_server" in c]
    assert data_servers == [], server.children()
    assert server.get("/data/runs") == [RUN]


def test_scalars_equal_what_was_logged(server):
    assert SCALAR_TAG in server.get("/data/plugin/scalars/tags")[RUN]
    points = scalars(server)[:len(FIRST_STEPS)]
    assert [p[1] for p in points] == FIRST_STEPS
    assert [p[2] for p in points] == [loss(s) for s in FIRST_STEPS]


def test_histograms_equal_what_was_logged(server):
    assert HISTOGRAM_TAG in server.get("/data/plugin/histograms/tags")[RUN]
    data = server.get("/data/plugin/histograms/histograms?" + q(run=RUN, tag=HISTOGRAM_TAG))
    assert [d[1] for d in data] == HISTOGRAM_STEPS
    for (_, step, buckets) in data:
        values = histogram_values(step)
        assert sum(b[2] for b in buckets) == pytest.approx(HISTOGRAM_SIZE)
        assert buckets[0][0] == pytest.approx(values.min())
        assert buckets[-1][1] == pytest.approx(values.max())


def test_text_equals_what_was_logged(server):
    assert TEXT_TAG in server.get("/data/plugin/text/tags")[RUN]
    entries = server.get("/data/plugin/text/text?" + q(run=RUN, tag=TEXT_TAG))
    assert [e["step"] for e in entries] == [0]
    assert TEXT_VALUE in entries[0]["text"]


def test_appended_scalars_are_read_after_reload(server, writer):
    poll(lambda: scalars(server), lambda p: len(p) >= len(FIRST_STEPS), "first scalars", server)
    for step in MORE_STEPS:
        writer.add_scalar(SCALAR_TAG, loss(step), step)
    writer.flush()  # re-uploads the same, now longer, object
    every = FIRST_STEPS + MORE_STEPS
    points = poll(lambda: scalars(server), lambda p: len(p) >= len(every), "appended scalars", server)
    assert [p[1] for p in points] == every
    assert [p[2] for p in points] == [loss(s) for s in every]
