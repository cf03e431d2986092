"""An s3:// logdir is served through our reader by default, on either fetch path (obstore, and s3fs with
TB_OBJECT_STORE=fsspec: the module runs once per path, each on a bucket of its own), and every route
answers as upstream's Python loader answers reading the same bucket (through boto3): logdirs of our writer,
torch's and tensorboardX's, a damaged file and a file cut inside a record, on moto's S3 server on
127.0.0.1. A run our writer keeps writing to S3 shows its new points after a reload; a run deleted
and written anew is served as its new file holds; a deleted run goes."""
from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("moto")  # moto[server], s3fs and boto3 are in .venv (tools/test_envs.sh)
pytest.importorskip("s3fs")

from e2e_helpers import http_get, stop_server  # noqa: E402
from serving_helpers import start_launcher, wait_until  # noqa: E402
from test_routes import assert_same_answers, last_step  # noqa: E402
from tools.s3_server import s3_bucket  # noqa: E402
from upstream import upstream_run  # noqa: E402

import tensorboard  # noqa: E402

BUCKET = "serving"
WRITERS = ("ours", "torch", "tbx")


@pytest.fixture(scope="module", params=("fsspec", "obstore"))  # as tests/conftest.py FETCH_PATHS
def s3(request):
    """moto's server with the bucket; its `env` (what the servers started get) picks the fetch path."""
    if request.param == "obstore":
        pytest.importorskip("obstore")
    with s3_bucket(BUCKET) as server:
        server.env["TB_OBJECT_STORE"] = request.param
        yield server


@pytest.fixture(scope="module")
def bucket_logdir(s3, peer_logdir, tmp_path_factory):
    """A snapshot of peer_logdir uploaded to s3://serving/logs; {run: last loss step} as upstream reads it."""
    import s3fs

    snapshot = tmp_path_factory.mktemp("s3-snapshot") / "logs"
    shutil.copytree(peer_logdir, snapshot)  # other tests grow peer_logdir: the bucket holds one state
    fs = s3fs.S3FileSystem(**s3.storage_options())
    for path in sorted(p for p in snapshot.rglob("*") if p.is_file()):
        fs.put_file(str(path), "%s/logs/%s" % (BUCKET, path.relative_to(snapshot).as_posix()))
    runs = sorted({p.parent.relative_to(snapshot).as_posix() for p in snapshot.rglob("*tfevents*")})
    last = {"%s/main" % w: upstream_run(snapshot / w / "main")["scalars"]["loss"][-1][0] for w in WRITERS}
    return "s3://%s/logs" % BUCKET, runs, last


@pytest.fixture(scope="module")
def s3_pair(s3, bucket_logdir, tmp_path_factory):
    """(ours by default, upstream's loader), both serving the bucket; stopped after the module."""
    url, _, _ = bucket_logdir
    tmp = tmp_path_factory.mktemp("s3-servers")
    started = []
    try:
        for flags in ((), ("--data_provider=multiplexer",)):
            started.append(start_launcher(url, tmp, *flags, env_extra=s3.env))
        yield tuple(started)
    finally:
        for server in started:
            stop_server(server)


def served(server, runs, last) -> bool:
    return set(runs) <= set(server.get("/data/runs")) and all(
        last_step(server, run, "loss") == step for run, step in last.items())


def test_the_default_path_for_s3_is_our_reader(s3_pair):
    ours, theirs = s3_pair
    assert "serving the logdir through standalone TensorBoard's reader (--data_provider=standalone)" in ours.log()
    assert "through upstream's Python loader (EventMultiplexer)" in theirs.log()
    assert "cannot read s3://" not in ours.log()  # no note: nothing was overridden


def test_every_route_answers_as_upstreams_loader_on_the_same_bucket(s3_pair, bucket_logdir):
    _, runs, last = bucket_logdir
    for server in s3_pair:
        wait_until(lambda: served(server, runs, last), "every run of the bucket served by " + server.url)
    answers = assert_same_answers(*s3_pair)
    assert len(answers["/data/plugin/scalars/scalars?run=ours%2Fmain&tag=loss"]) == 1000


def test_a_run_written_to_s3_grows(s3, s3_pair):
    """New points our writer appends to an object on S3 are served after a reload."""
    ours, _ = s3_pair
    url = "s3://%s/logs/live" % BUCKET

    def points():  # None while the run is not served
        status, body = http_get(ours.url + "/data/plugin/scalars/scalars?run=live&tag=x")
        return [(step, value) for _, step, value in json.loads(body)] if status == 200 else None

    with tensorboard.SummaryWriter(url, storage_options=s3.storage_options()) as writer:
        for step in range(5):
            writer.add_scalar("x", float(step), step)
        writer.flush()
        wait_until(lambda: len(points() or ()) == 5, "the new run on S3")
        for step in range(5, 12):
            writer.add_scalar("x", float(step), step)
        writer.flush()
        wait_until(lambda: len(points() or ()) == 12, "the points appended on S3")
    assert points() == [(step, float(step)) for step in range(12)]


def test_a_run_deleted_and_written_anew_is_served_as_it_is_now_then_goes(s3, s3_pair):
    """A run served, then deleted and written anew by another writer (a new, shorter file) is served
    as its new file holds; deleted again, it goes from the runs."""
    import s3fs

    ours, _ = s3_pair
    run = "again"
    url = "s3://%s/logs/%s" % (BUCKET, run)
    options = s3.storage_options()
    fs = s3fs.S3FileSystem(skip_instance_cache=True, **options)

    def points():  # None while the run is not served
        status, body = http_get(ours.url + "/data/plugin/scalars/scalars?run=%s&tag=x" % run)
        return [(step, value) for _, step, value in json.loads(body)] if status == 200 else None

    def write(values) -> None:
        with tensorboard.SummaryWriter(url, storage_options=options) as writer:
            for step, value in enumerate(values):
                writer.add_scalar("x", value, step)

    def delete_run() -> None:  # listed anew: a cached listing would leave the file written since
        fs.invalidate_cache()
        fs.rm("%s/logs/%s" % (BUCKET, run), recursive=True)
        fs.invalidate_cache()
        assert not fs.find("%s/logs/%s" % (BUCKET, run))

    def wait_served(predicate, what: str) -> None:
        try:
            wait_until(predicate, what)
        except AssertionError as err:
            raise AssertionError("%s: served %s\n%s" % (err, points(), ours.log()[-3000:])) from None

    first = [float(step) for step in range(12)]
    write(first)
    wait_served(lambda: points() == list(enumerate(first)), "the run on S3")
    delete_run()
    anew = [100.0 + step for step in range(3)]
    write(anew)
    wait_served(lambda: points() == list(enumerate(anew)), "the re-created run as it is now")
    delete_run()
    wait_served(lambda: run not in ours.get("/data/runs"), "the deleted run gone")
