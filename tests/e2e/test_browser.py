"""A real browser (Debian's chromium via Playwright) shows the dashboards of a
logdir written by our logger. Screenshots go to artifacts/."""

import re
import time

import expected as E
import pytest
from chromium import UI_TIMEOUT_MS, browser, page  # noqa: F401 (the fixtures)
from e2e_helpers import REPO, start_server, stop_server, wait_for_runs

ARTIFACTS = REPO / "artifacts"


@pytest.fixture(scope="module")
def server(venv, logdir, tmp_path_factory):
    """The installed launcher serving the logdir (Python reader)."""
    srv = start_server(venv, logdir[0], tmp_path_factory.mktemp("browser-srv"), "--load_fast=false")
    srv.errors = logdir[1]
    try:
        wait_for_runs(srv, [E.RUN])
        yield srv
    finally:
        stop_server(srv)


def open_dashboard(page, server, name, kind):
    """Open `#name`, failing early if our logger could not write `kind`."""
    if kind in server.errors:
        pytest.fail("our logger could not write %s:\n%s" % (kind, server.errors[kind]))
    page.goto("%s/#%s" % (server.url, name))


def shot(page, name):
    """Save a screenshot into artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / ("e2e_%s.png" % name)))


def test_time_series_shows_the_scalar_tag(page, server):
    open_dashboard(page, server, "timeseries", "scalars")
    page.get_by_text(E.SCALAR_TAG, exact=True).first.wait_for(state="visible")
    shot(page, "timeseries")


def test_images_dashboard_loads_the_image(page, server):
    open_dashboard(page, server, "images", "images")
    image = page.locator("img[src*='imageData'], img[src*='individualImage']").first
    image.wait_for(state="visible")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    size = image.evaluate("img => [img.naturalHeight, img.naturalWidth]")
    shot(page, "images")
    assert tuple(size) == E.IMAGE_HW


def test_graphs_dashboard_draws_nodes(page, server):
    open_dashboard(page, server, "graphs", "graphs")
    page.locator("g.node").first.wait_for(state="visible")
    page.locator("g.node text").filter(has_text="output").first.wait_for(state="visible")
    page.wait_for_timeout(2000)  # let the fit-to-screen animation settle for the screenshot
    shot(page, "graphs")
    assert page.locator("g.node").count() >= 2


def test_projector_shows_the_point_count(page, server):
    open_dashboard(page, server, "projector", "projector")
    pattern = re.compile(r"Points:\s*%d\b" % E.EMBEDDING_POINTS)

    def shown():  # the projector UI lives in an iframe
        return any(el.is_visible() for frame in page.frames for el in frame.get_by_text(pattern).all())

    deadline = time.monotonic() + UI_TIMEOUT_MS / 1000
    while not shown() and time.monotonic() < deadline:
        page.wait_for_timeout(500)
    shot(page, "projector")
    assert shown(), "projector does not show %d points" % E.EMBEDDING_POINTS


@pytest.fixture(scope="module")
def jax_server(venv, tmp_path_factory):
    """The installed launcher serving a Flax model's graph written by our logger (source tree)."""
    jax = pytest.importorskip("jax")
    pytest.importorskip("flax.linen")
    from graph.flax_models import LinenMLP

    from tensorboard import SummaryWriter

    model, x = LinenMLP(), jax.numpy.ones((3, 4))
    logdir = tmp_path_factory.mktemp("jax-logdir")
    with SummaryWriter(str(logdir / "flax")) as writer:
        writer.add_graph(model.apply, (model.init(jax.random.key(0), x), x))
    srv = start_server(venv, logdir, tmp_path_factory.mktemp("jax-srv"), "--load_fast=false")
    srv.errors = {}
    try:
        wait_for_runs(srv, ["flax"])
        yield srv
    finally:
        stop_server(srv)


def test_graphs_dashboard_draws_a_flax_model_by_module_scope(page, jax_server):
    open_dashboard(page, jax_server, "graphs", "graphs")
    scope = page.locator("g.node").filter(has=page.locator("text", has_text="LinenMLP")).first
    scope.wait_for(state="visible")
    for name in ("params", "input", "output"):
        page.locator("g.node text").filter(has_text=name).first.wait_for(state="visible")
    scope.dblclick()  # expand the module: its Dense layers are scopes inside it
    page.locator("g.node text").filter(has_text="Dense_0").first.wait_for(state="visible")
    page.locator("g.node text").filter(has_text="Dense_1").first.wait_for(state="visible")
    page.wait_for_timeout(2000)  # let the expand animation settle for the screenshot
    shot(page, "graphs_flax")
    assert page.locator("g.node").count() >= 6
