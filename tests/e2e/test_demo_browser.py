"""The demo's logdir (demo/demo.py --framework mxnet) served by upstream's tensorboard 2.21.0 and by
our installed launcher: every dashboard the demo logs to is active. A real browser (Debian's
chromium via Playwright) opens the Graphs dashboard and draws the model's operator nodes.

The expected nodes come from the GraphDef the demo wrote, read back with our reader: every
operator node (not a Parameter/Input) must be drawn as a `g.node` inside its expanded name
scope, labelled with the last component of its name, and every one of its inputs must reach
it as a drawn edge. Screenshots go to artifacts/e2e_demo_graph*.png.
"""

import time
from pathlib import Path

import pytest
from chromium import chromium
from e2e_helpers import REPO, start_server, stop_server, wait_for_runs
from seeds.mxnet_venv import run_mxnet
from test_browser import UI_TIMEOUT_MS, shot
from test_quickstart import DEMO_DASHBOARDS

from tensorboard.reader import read_events
from tensorboard.src import graph_pb2

DEMO = REPO / "demo" / "demo.py"
RUN = "lr_0.1"
NOT_OPERATORS = {"Parameter", "Input", "null", ""}


@pytest.fixture(scope="module")
def demo_logdir(tmp_path_factory):
    """The demo's logdir (MXNet model, one epoch), written in the MXNet venv."""
    path = tmp_path_factory.mktemp("demo") / "logs"
    run_mxnet([str(DEMO), "--logdir", str(path), "--framework", "mxnet", "--epochs", "1"],
              cwd=path.parent)
    return path


def written_graph(run_dir: Path) -> graph_pb2.GraphDef:
    """The one GraphDef in the run's event file(s), read back with our reader."""
    graphs = [graph_pb2.GraphDef.FromString(event.graph_def)
              for path in sorted(run_dir.glob("events.out.tfevents.*"))
              for event in read_events(path) if event.graph_def]
    assert len(graphs) == 1, "%s holds %d graphs" % (run_dir, len(graphs))
    return graphs[0]


@pytest.fixture(scope="module")
def demo_server(venv, demo_logdir, tmp_path_factory):
    """The installed launcher serving the demo logdir (Python reader)."""
    srv = start_server(venv, demo_logdir, tmp_path_factory.mktemp("demo-srv"), "--load_fast=false")
    try:
        assert RUN in wait_for_runs(srv, [RUN]), srv.log()
        yield srv
    finally:
        stop_server(srv)


def inactive_dashboards(server):
    """The demo's dashboards the server does not list as enabled, once it loaded every run (or gave up)."""
    deadline = time.monotonic() + 120  # only guards against a hang: the server loads runs in the background
    while True:
        listing = server.get("/data/plugins_listing")
        inactive = [d for d in DEMO_DASHBOARDS if not listing.get(d, {}).get("enabled")]
        if not inactive or time.monotonic() > deadline:
            return inactive
        time.sleep(1)


def test_upstream_tensorboard_shows_every_dashboard_of_the_demo(demo_logdir, tmp_path):
    upstream = REPO / ".venv-upstream"
    assert (upstream / "bin" / "tensorboard").exists(), "tools/test_envs.sh makes .venv-upstream"
    srv = start_server(upstream, demo_logdir, tmp_path, "--host", "127.0.0.1")
    try:
        assert {"lr_0.01", "lr_0.1", "lr_0.5"} <= set(wait_for_runs(srv, ["lr_0.01", "lr_0.1", "lr_0.5"]))
        assert inactive_dashboards(srv) == [], srv.log()
    finally:
        stop_server(srv)


def test_our_launcher_shows_every_dashboard_of_the_demo(demo_server):
    assert inactive_dashboards(demo_server) == [], demo_server.log()


@pytest.fixture
def page():
    """A fresh page of a headless chromium, both closed after the test."""
    with chromium() as browser:
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        pg.set_default_timeout(UI_TIMEOUT_MS)
        yield pg


def scopes_of(name):
    """The name scopes holding `name`, outermost first: a/b/c -> [a, a/b]."""
    parts = name.split("/")
    return ["/".join(parts[:i]) for i in range(1, len(parts))]


def node(page, name):
    """The drawn `g.node` of a node or name scope (its full name is the data-name attribute)."""
    return page.locator('g.node[data-name="%s"]' % name)


def select_run(page, run):
    """Pick `run` in the dashboard's Run dropdown and wait until its graph replaced the shown one."""
    shown = node(page, "mlp")
    shown.wait_for(state="visible")  # the first run's graph is drawn
    dropdown = page.locator("paper-dropdown-menu.run-dropdown").first
    selected = dropdown.locator("paper-item.iron-selected").text_content().strip()
    if selected == run:
        return None
    old = shown.element_handle()
    dropdown.click()
    with page.expect_response(lambda r: "/data/plugin/graphs/graph?" in r.url
                              and "run=%s&" % run in r.url + "&") as response:
        dropdown.locator("paper-item", has_text=run).first.click()
    assert response.value.status == 200
    page.wait_for_function("el => !el.isConnected", arg=old)  # the old scene is gone
    node(page, "mlp").wait_for(state="visible")
    assert dropdown.locator("paper-item.iron-selected").text_content().strip() == run
    return response.value.text()


def expand(page, scope):
    """Double-click a collapsed name scope (meta node) and wait until its children are drawn."""
    meta = node(page, scope)
    meta.wait_for(state="visible")
    assert "meta" in meta.get_attribute("class").split(), scope
    meta.locator(":scope > .nodeshape").dblclick()
    page.locator('g.node.meta.expanded[data-name="%s"]' % scope).wait_for(state="attached")
    page.locator('g.node[data-name^="%s/"]' % scope).first.wait_for(state="visible")


def test_graphs_dashboard_draws_the_demo_models_operator_nodes(page, demo_server, demo_logdir):
    graph = written_graph(demo_logdir / RUN)
    operators = {n.name: n for n in graph.node if n.op not in NOT_OPERATORS}
    ops = sorted(n.op for n in operators.values())
    assert ops.count("FullyConnected") == 2 and ops.count("Activation") == 1, ops

    page.goto("%s/#graphs" % demo_server.url)
    served = select_run(page, RUN)
    if served is not None:  # the dashboard fetched this run's graph: it names the written nodes
        assert all('name: "%s"' % name in served for name in operators), served[:2000]
    page.wait_for_timeout(1000)  # let the fit-to-screen animation settle for the screenshot
    shot(page, "demo_graph_collapsed")

    scopes = sorted({s for name in operators for s in scopes_of(name)}, key=lambda s: (s.count("/"), s))
    assert scopes, "the demo's operators sit in name scopes"
    for scope in scopes:
        expand(page, scope)

    drawn = {}
    for name, op in operators.items():
        g = node(page, name)
        g.wait_for(state="visible")
        assert "op" in g.get_attribute("class").split(), (name, g.get_attribute("class"))
        label, parent = g.evaluate(
            """g => [g.querySelector(':scope > text.nodelabel').firstChild.nodeValue,
                     g.parentElement.closest('g.node') && g.parentElement.closest('g.node').dataset.name]""")
        assert label == name.rsplit("/", 1)[-1], (name, label)
        assert parent == (scopes_of(name)[-1] if "/" in name else None), (name, parent)
        drawn[name] = op.op
    assert sorted(drawn.values()) == ops

    assert page.locator("g.edge path").count() > 0
    keys = {e.get_attribute("data-edge") for e in page.locator("g.edge").all() if e.is_visible()}
    for name, op in operators.items():
        for spec in op.input:
            src = spec.lstrip("^").split(":")[0]
            # inside one scope the edge is src--name; across scopes it comes from src (or the
            # scope holding it) through a bridge node: "<src or its scope>~~<scope>~~IN--name"
            ends = [src] + scopes_of(src)
            assert any(k.endswith("--" + name) and any(k.startswith(e + "--") or k.startswith(e + "~~")
                                                       for e in ends) for k in keys), (src, name, sorted(keys))

    page.locator("text=Fit to screen").first.click()
    page.wait_for_timeout(1500)  # let the zoom animation settle for the screenshot
    shot(page, "demo_graph")
