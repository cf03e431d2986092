"""The installed launcher serves everything our logger wrote, through the
renderer's HTTP data API, with the Rust data server (--load_fast=true) and
with the Python reader (--load_fast=false)."""

import json
import struct
import urllib.parse

import expected as E
import pytest
from e2e_helpers import get_json, http_get, start_server, stop_server, wait_for_runs

HP_RUN = E.RUN + "/" + E.HPARAM_RUN


@pytest.fixture(scope="module", params=["true", "false"], ids=["load_fast", "python_reader"])
def server(request, venv, logdir, tmp_path_factory):
    """The installed launcher on a free loopback port, stopped after the module."""
    path, errors = logdir
    srv = start_server(venv, path, tmp_path_factory.mktemp("srv"), "--load_fast", request.param,
                       "--reload_interval", "1", env_extra={"TENSORBOARD_STANDALONE_VERBOSE": "1"})
    srv.load_fast, srv.errors = request.param, errors
    try:
        wait_for_runs(srv, [E.RUN])
        yield srv
    finally:
        stop_server(srv)


def logged(server, kind):
    """Fail with the logger's traceback if writing `kind` failed."""
    if kind in server.errors:
        pytest.fail("our logger could not write %s:\n%s" % (kind, server.errors[kind]))


def q(**params):
    """URL query string."""
    return urllib.parse.urlencode(params)


def test_renderer_is_the_isolated_runfiles_copy(server):
    line = next(l for l in server.log().splitlines() if "standalone TensorBoard: renderer " in l)
    path = line.split("renderer ", 1)[1]
    assert "site-packages/tensorboard_standalone_renderer/tensorboard.runfiles/tensorboard_renderer/" \
           "tensorboard/__init__.py" in path


def test_binds_loopback_only(server):
    port_hex = "%04X" % server.port
    with open("/proc/net/tcp") as f:
        listening = [l.split()[1] for l in f.readlines()[1:] if l.split()[3] == "0A"]
    ours = [a for a in listening if a.endswith(":" + port_hex)]
    assert ours == ["0100007F:" + port_hex]


def test_load_fast_mode_uses_the_matching_reader(server):
    data_servers = [c for c in server.children() if "tensorboard_data_server" in c]
    assert bool(data_servers) == (server.load_fast == "true"), server.children()


def test_plugins_listing_includes_every_dashboard(server):
    listing = server.get("/data/plugins_listing")
    for plugin in ("scalars", "histograms", "images", "audio", "text", "graphs", "pr_curves",
                   "hparams", "custom_scalars", "projector", "timeseries", "distributions"):
        assert plugin in listing, plugin


def test_scalars(server):
    logged(server, "scalars")
    tags = server.get("/data/plugin/scalars/tags")
    assert E.SCALAR_TAG in tags[E.RUN]
    points = server.get("/data/plugin/scalars/scalars?" + q(run=E.RUN, tag=E.SCALAR_TAG))
    assert [p[1] for p in points] == list(range(len(E.SCALAR_VALUES)))
    assert [p[2] for p in points] == pytest.approx(E.SCALAR_VALUES)


def test_histograms(server):
    logged(server, "histograms")
    assert E.HISTOGRAM_TAG in server.get("/data/plugin/histograms/tags")[E.RUN]
    data = server.get("/data/plugin/histograms/histograms?" + q(run=E.RUN, tag=E.HISTOGRAM_TAG))
    assert [d[1] for d in data] == [0, 1, 2]
    assert all(sum(b[2] for b in d[2]) == pytest.approx(200) for d in data)


def test_images(server):
    logged(server, "images")
    assert E.IMAGE_TAG in server.get("/data/plugin/images/tags")[E.RUN]
    entries = server.get("/data/plugin/images/images?" + q(run=E.RUN, tag=E.IMAGE_TAG, sample=0))
    status, png = http_get(server.url + "/data/plugin/images/individualImage?" + entries[0]["query"])
    assert status == 200 and png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    assert (height, width) == E.IMAGE_HW


def test_audio(server):
    logged(server, "audio")
    assert E.AUDIO_TAG in server.get("/data/plugin/audio/tags")[E.RUN]
    entries = server.get("/data/plugin/audio/audio?" + q(run=E.RUN, tag=E.AUDIO_TAG, sample=0))
    status, wav = http_get(server.url + "/data/plugin/audio/individualAudio?" + entries[0]["query"])
    assert status == 200 and wav[:4] == b"RIFF" and wav[8:12] == b"WAVE"
    assert struct.unpack("<I", wav[24:28])[0] == E.AUDIO_RATE


def test_text(server):
    logged(server, "text")
    assert E.TEXT_TAG in server.get("/data/plugin/text/tags")[E.RUN]
    entries = server.get("/data/plugin/text/text?" + q(run=E.RUN, tag=E.TEXT_TAG))
    assert E.TEXT_VALUE in entries[0]["text"]


def test_pr_curves(server):
    logged(server, "pr_curves")
    assert E.PR_TAG in server.get("/data/plugin/pr_curves/tags")[E.RUN]
    curves = server.get("/data/plugin/pr_curves/pr_curves?" + q(run=E.RUN, tag=E.PR_TAG))
    entry = curves[E.RUN][0]
    assert entry["step"] == 0 and len(entry["precision"]) == len(entry["recall"]) > 1


def test_graphs(server):
    logged(server, "graphs")
    status, body = http_get(server.url + "/data/plugin/graphs/graph?" + q(run=E.RUN, conceptual="false"))
    assert status == 200
    for name, op, _ in E.GRAPH_NODES:
        assert 'name: "%s"' % name in body.decode() and 'op: "%s"' % op in body.decode()


def test_hparams(server):
    logged(server, "hparams")
    experiment = get_json(server.url + "/data/plugin/hparams/experiment",
                          data=json.dumps({"experimentName": ""}).encode())
    names = {h["name"] for h in experiment["hparamInfos"]}
    assert set(E.HPARAMS) <= names
    metrics = {m["name"]["tag"] for m in experiment["metricInfos"]}
    assert set(E.HPARAM_METRICS) <= metrics


def test_custom_scalars(server):
    logged(server, "custom_scalars")
    layout = server.get("/data/plugin/custom_scalars/layout")
    (category,) = [c for c in layout["category"] if c["title"] == "Training"]
    assert category["chart"][0]["multiline"]["tag"] == ["loss"]


def test_projector(server):
    logged(server, "projector")
    runs = server.get("/data/plugin/projector/runs")
    assert runs, "projector found no run with a projector config"
    info = server.get("/data/plugin/projector/info?" + q(run=runs[0]))
    (emb,) = [e for e in info["embeddings"] if E.EMBEDDING_TAG in e["tensorName"]] or info["embeddings"][:1]
    assert int(emb["tensorShape"][0]) == E.EMBEDDING_POINTS
    status, tensor = http_get(server.url + "/data/plugin/projector/tensor?"
                              + q(run=runs[0], name=emb["tensorName"]))
    assert status == 200
    assert len(tensor) == 4 * E.EMBEDDING_POINTS * int(emb["tensorShape"][1])
