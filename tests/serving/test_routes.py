"""Route by route, the server on our reader (--data_provider=standalone) answers every dashboard's
requests with the same JSON and bytes as upstream's Python loader (--data_provider=multiplexer): on
logdirs of our writer, torch's and tensorboardX's, a damaged file and a file cut inside a record, past
upstream's sample sizes, and again after a file grows and a run appears."""
from __future__ import annotations

import json
import time
from urllib.parse import urlencode

from e2e_helpers import http_get
from routes import collect
from serving_helpers import wait_until

from tensorboard.events.record import frame
from tensorboard.src import event_pb2

WRITERS = ("ours", "torch", "tbx")
EVERY_DASHBOARD = ("/scalars/scalars?", "/histograms/histograms?", "/distributions/distributions?",
                   "/images/individualImage?", "/audio/individualAudio?", "/text/text?", "/pr_curves/pr_curves?",
                   "/hparams/session_groups", "/hparams/metric_evals", "/custom_scalars/scalars?", "/mesh/data?",
                   "/graphs/graph?", "/graphs/run_metadata?", "/timeseries/timeSeries", "/timeseries/imageData?")


def answers(server) -> dict:
    found = collect(server.url)
    found["/data/environment"].pop("debug", None)  # names the provider and the flags: differs by design
    return found


def assert_same_answers(ours, theirs) -> dict:
    a, b = answers(ours), answers(theirs)
    assert sorted(a) == sorted(b)
    different = [route for route in a if a[route] != b[route]]
    assert not different, "routes answered differently: %s" % different[:10]
    return a


def last_step(server, run: str, tag: str) -> int | None:
    """The step of the last point served (None while the run is not loaded yet)."""
    status, body = http_get(server.url + "/data/plugin/scalars/scalars?" + urlencode({"run": run, "tag": tag}))
    points = json.loads(body) if status == 200 else None
    return points[-1][1] if points else None


def loaded(server, runs) -> bool:
    return set(runs) <= set(server.get("/data/runs")) and all(
        last_step(server, "%s/main" % w, "loss") == 1199 for w in WRITERS)


def test_the_start_up_line_names_the_path_that_serves(server_pair):
    ours, theirs = server_pair
    assert "serving the logdir through standalone TensorBoard's reader (--data_provider=standalone)" in ours.log()
    assert "through upstream's Python loader (EventMultiplexer) (--data_provider=multiplexer)" in theirs.log()


def test_every_route_answers_as_upstreams_python_loader(server_pair):
    ours, theirs = server_pair
    runs = ["%s/%s" % (w, r) for w in WRITERS for r in ("main", "hp_0.1", "hp_0.01")] + ["damaged", "cut"]
    for server in server_pair:
        wait_until(lambda: loaded(server, runs), "every run loaded by " + server.url)
    a = assert_same_answers(ours, theirs)
    missing = [route for route in EVERY_DASHBOARD if not any(route in key for key in a)]
    assert not missing, "routes never asked: %s" % missing
    loss = a["/data/plugin/scalars/scalars?run=ours%2Fmain&tag=loss"]
    assert len(loss) == 1000 and loss[-1][1] == 1199  # upstream's sample size, the latest point kept
    images = a["/data/plugin/images/images?run=torch%2Fmain&tag=digit&sample=0"]
    assert len(images) == 10 and images[-1]["step"] == 11


def _scalar_events(first: int, count: int) -> bytes:
    out = []
    for step in range(first, first + count):
        event = event_pb2.Event(step=step, wall_time=2e9 + step)
        event.summary.value.add(tag="loss", simple_value=float(step))
        out.append(frame(event.SerializeToString()))
    return b"".join(out)


def test_a_growing_file_and_a_new_run_are_served_as_upstream(server_pair, peer_logdir):
    ours, theirs = server_pair
    (growing,) = sorted((peer_logdir / "ours" / "main").glob("events.out.tfevents.*"))
    more, tail = _scalar_events(1200, 300), _scalar_events(1500, 1)
    with open(growing, "ab") as f:
        f.write(more + tail[:len(tail) // 2])  # the writer is mid-record at the reload
    (peer_logdir / "late").mkdir()
    (peer_logdir / "late" / "events.out.tfevents.2.late").write_bytes(_scalar_events(0, 5))
    for server in server_pair:
        wait_until(lambda: last_step(server, "ours/main", "loss") == 1499 and "late" in server.get("/data/runs"),
                   "the appended points and the new run served by " + server.url)
    time.sleep(1.5)  # one more reload of each: the cut record stays unread
    assert_same_answers(ours, theirs)
    with open(growing, "ab") as f:
        f.write(tail[len(tail) // 2:])
    for server in server_pair:
        wait_until(lambda: last_step(server, "ours/main", "loss") == 1500, "the completed record, " + server.url)
    assert_same_answers(ours, theirs)
