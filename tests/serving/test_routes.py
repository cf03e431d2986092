"""Route by route, the server on our reader (the default) answers every dashboard's requests with the same
JSON and bytes as upstream's Python loader (--data_provider=multiplexer): on logdirs of our writer, torch's
and tensorboardX's, a damaged file and a file cut inside a record, past upstream's sample sizes, and again
after a file grows and a run appears. One field follows the file instead: the display name of a legacy
value (a plain scalar, image, audio clip or histogram) that the file names not is empty, as the native
data server serves it, where the Python loader names it after its tag."""
from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
from e2e_helpers import http_get, stop_server
from routes import collect
from serving_helpers import start_launcher, wait_until
from write_logdirs import NAMED

from tensorboard.events.record import frame
from tensorboard.src import event_pb2

WRITERS = ("ours", "torch", "tbx")
EVERY_DASHBOARD = ("/scalars/scalars?", "/histograms/histograms?", "/distributions/distributions?",
                   "/images/individualImage?", "/audio/individualAudio?", "/text/text?", "/pr_curves/pr_curves?",
                   "/hparams/session_groups", "/hparams/metric_evals", "/custom_scalars/scalars?", "/mesh/data?",
                   "/graphs/graph?", "/graphs/run_metadata?", "/timeseries/timeSeries", "/timeseries/imageData?")


LEGACY_TAGS_ROUTES = tuple("/data/plugin/%s/tags" % plugin
                           for plugin in ("scalars", "histograms", "distributions", "images", "audio"))


def answers(server) -> dict:
    found = collect(server.url)
    found["/data/environment"].pop("debug", None)  # names the provider and the flags: differs by design
    return found


def display_names(found: dict) -> dict:
    """{(route, run, tag): displayName} of the legacy values' tags routes, taken out of `found`."""
    return {(route, run, tag): info.pop("displayName")
            for route in LEGACY_TAGS_ROUTES for run, tags in found[route].items() for tag, info in tags.items()}


def assert_same_answers(ours, theirs) -> dict:
    a, b = answers(ours), answers(theirs)
    assert sorted(a) == sorted(b)
    ours_names, their_names = display_names(a), display_names(b)
    different = [route for route in a if a[route] != b[route]]
    assert not different, "routes answered differently: %s" % different[:10]
    # the Python loader names an unnamed legacy value after its tag; ours leaves it unnamed, as the file does
    assert ours_names == {key: "" if name == key[2] else name for key, name in their_names.items()}
    assert {name for name in ours_names.values()} == {"", NAMED[0]}
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


@pytest.fixture(scope="module")
def native(peer_logdir, tmp_path_factory):
    """Upstream's native data server on the same logdir, stopped after this module."""
    server = start_launcher(peer_logdir, tmp_path_factory.mktemp("native"), "--data_provider=native")
    try:
        yield server
    finally:
        stop_server(server)


def test_display_names_and_descriptions_are_the_native_servers(server_pair, native):
    """The legacy tags routes' names and descriptions, which the dashboards' card titles show, are the native
    server's; except where the file names a legacy value, which the native server drops and ours keeps."""
    ours = server_pair[0]
    wait_until(lambda: loaded(native, ours.get("/data/runs")), "every run loaded by the native server")
    a, b = answers(ours), answers(native)
    for found in a, b:  # past a CRC mismatch the native server reads on; ours stops, as the Python loader does
        for route in LEGACY_TAGS_ROUTES:
            found[route].pop("damaged", None)
    for route in LEGACY_TAGS_ROUTES:
        named = {(run, "lr") for run in ("ours/main", "tbx/main")} if route.endswith("/scalars/tags") else set()
        for run, tags in a[route].items():
            for tag, info in tags.items():
                if (run, tag) in named:
                    assert (info["displayName"], info["description"]) == (NAMED[0], "<p>%s</p>" % NAMED[1])
                    assert (b[route][run][tag]["displayName"], b[route][run][tag]["description"]) == ("", "")
                else:
                    assert info == b[route][run][tag], (route, run, tag)
        assert {run: sorted(tags) for run, tags in a[route].items()} == {
            run: sorted(tags) for run, tags in b[route].items()}


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
    # One more reload of each, told by a run that only a later reload can find: the reload that serves it
    # read the growing file again too, and the cut record stays unread.
    (peer_logdir / "reloaded").mkdir()
    (peer_logdir / "reloaded" / "events.out.tfevents.3.reloaded").write_bytes(_scalar_events(0, 1))
    for server in server_pair:
        wait_until(lambda: last_step(server, "reloaded", "loss") == 0, "a reload after the cut, " + server.url)
    assert_same_answers(ours, theirs)
    with open(growing, "ab") as f:
        f.write(tail[len(tail) // 2:])
    for server in server_pair:
        wait_until(lambda: last_step(server, "ours/main", "loss") == 1500, "the completed record, " + server.url)
    assert_same_answers(ours, theirs)
