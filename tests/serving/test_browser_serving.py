"""A real browser (Debian's chromium via Playwright) shows every dashboard of the peer logdir served
through our reader (--data_provider=standalone). Screenshots go to artifacts/."""
from __future__ import annotations

from chromium import browser  # noqa: F401 (the fixture)
from playwright import sync_api
from test_browser import shot

DASHBOARD_TIMEOUT_MS = 20000  # per dashboard, guards against a hang only


VISIBLE = "visible=true"  # the dashboards left behind stay in the page, hidden


def _text(text):
    return lambda page: page.get_by_text(text, exact=True).locator(VISIBLE).first.wait_for(state="visible")


def _image(page):
    image = page.locator("img[src*='individualImage']").locator(VISIBLE).first
    image.wait_for(state="visible")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())


def _audio(page):
    page.locator("audio[src*='individualAudio']").first.wait_for(state="attached")


def _graph(page):
    page.locator("g.node text").filter(has_text="output").locator(VISIBLE).first.wait_for(state="visible")


def _text_summary(page):
    page.locator("strong", has_text="1").locator(VISIBLE).first.wait_for(state="visible")  # "step **1**" rendered


# dashboard -> what shows that its data arrived (tags the peer logdir holds, an image, a node...)
DASHBOARDS = {
    "timeseries": _text("acc/train"),
    "scalars": _text("acc/train"),
    "custom_scalars": _text("losses"),
    "histograms": _text("weights"),
    "distributions": _text("weights"),
    "images": _image,
    "audio": _audio,
    "text": _text_summary,
    "pr_curves": _text("pr"),
    "hparams": _text("hp/metric"),
    "mesh": _text("tetra"),
    "graphs": _graph,
}


def test_every_dashboard_renders_through_our_reader(browser, server_pair):
    ours = server_pair[0]
    assert "--data_provider=standalone" in ours.log()
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.set_default_timeout(DASHBOARD_TIMEOUT_MS)
    failed = {}
    try:
        page.goto("%s/?runFilter=ours#timeseries" % ours.url)
        for dashboard, shows_data in DASHBOARDS.items():  # one app load; the hash switches dashboards
            page.evaluate("name => { window.location.hash = name; }", dashboard)
            try:
                shows_data(page)
            except sync_api.Error as err:  # Playwright's timeout: note it, look at the other dashboards
                failed[dashboard] = str(err).splitlines()[0]
            shot(page, "serving_" + dashboard)
    finally:
        page.close()
    assert not failed, "dashboards that showed no data: %s" % failed
