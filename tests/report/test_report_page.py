"""The report page in real Chromium (Debian's, via Playwright), opened from file://: it loads nothing
but itself, draws a chart per scalar tag with every run in its legend, smooths as TensorBoard does,
switches to a log y axis, and shows images, text and the hparams table. Screenshots go to
artifacts/, which docs/assets/report.png (the docs' picture) must still look like."""
from pathlib import Path

import pytest
from chromium import chromium
from report_logdir import RUNS
from waiting import module_from_file

from tensorboard.reader import smooth
from tensorboard.report import export_report

REPO = Path(__file__).resolve().parents[2]

ARTIFACTS = REPO / "artifacts"
SCREENSHOTS = module_from_file("screenshot_ui", REPO / "tools" / "screenshot_ui.py")
SCREENSHOT_TOLERANCE = 2.0  # as tests/e2e/test_ui_screenshot.py's
UI_TIMEOUT_MS = 60000  # upper bound for the page's scripts; guards against hangs only

SCALAR_TAGS = ("eval/accuracy", "final/loss", "train/loss")


def tensorboard_smoothing(values, weight):
    """The page's smoothing must be the library's, `tensorboard.reader.smooth` (gaps: None in, None out)."""
    smoothed = smooth([float("nan") if v is None else v for v in values], weight).tolist()
    return [None if v is None else s for v, s in zip(values, smoothed)]


@pytest.fixture(scope="module")
def report(report_logdir, tmp_path_factory):
    out = tmp_path_factory.mktemp("report-page") / "report.html"
    export_report(str(report_logdir), str(out), title="lr sweep")
    return out


@pytest.fixture(scope="module")
def opened(report):
    """The page after its scripts ran, and every request it made."""
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(UI_TIMEOUT_MS)
        requests, errors = [], []
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.on("console", lambda msg: msg.type == "error" and errors.append(msg.text))

        def route(r):
            requests.append(r.request.url)
            (r.continue_() if r.request.url == report.as_uri() else r.abort())

        page.route("**/*", route)
        page.goto(report.as_uri())
        page.wait_for_function("() => window.tbReport && window.tbReport.ready")  # a function: the CSP forbids eval
        yield page, requests, errors


def test_the_page_loads_nothing_but_itself(opened, report):
    page, requests, errors = opened
    assert requests == [report.as_uri()]
    assert errors == []
    assert page.evaluate("performance.getEntriesByType('resource').length") == 0


def test_a_chart_per_scalar_tag_with_every_run_in_its_legend(opened):
    page, _, _ = opened
    for tag in SCALAR_TAGS:  # each drawn once it comes into view
        chart = page.locator(f'#scalars .chart[data-tag="{tag}"]')
        assert chart.count() == 1
        chart.scroll_into_view_if_needed()
        chart.locator("canvas").wait_for()
        assert chart.locator("canvas").count() == 1
        legend = chart.locator(".u-legend").inner_text()
        for run in RUNS:
            assert run in legend


def test_a_distribution_chart_per_run(opened):
    page, _, _ = opened
    page.evaluate("window.tbReport.drawAll()")  # as before printing
    charts = page.locator('#distributions .chart[data-tag="weights"]')
    assert charts.count() == len(RUNS)
    assert sorted(charts.locator(".run-name").all_inner_texts()) == sorted(RUNS)
    assert charts.locator("canvas").count() == len(RUNS)


def test_images_text_and_hparams_are_shown(opened):
    page, _, _ = opened
    widths = page.eval_on_selector_all("#images img", "els => els.map(e => e.naturalWidth)")
    assert widths == [8] * len(RUNS)
    text = page.locator("#text").inner_text()
    assert all(f"run {run}" in text for run in RUNS)
    rows = page.locator("table.hparams tbody tr").all_inner_texts()
    assert sorted(row.split("\t")[0] for row in rows) == sorted(RUNS)
    head = page.locator("table.hparams thead").inner_text().strip().split("\t")
    assert head[:3] == ["run", "lr", "optimizer"]  # then the metrics: the runs' scalar tags, as upstream infers them
    assert sorted(head[3:]) == sorted(SCALAR_TAGS)


def test_smoothing_is_tensorboards_debiased_moving_average(opened):
    page, _, _ = opened
    values = [3.0, 1.0, 4.0, 1.0, 5.0, None, 9.0, 2.0, 6.0, 5.0]
    for weight in (0.0, 0.6, 0.95, 0.999):
        got = page.evaluate("([v, w]) => window.tbReport.smooth(v, w)", [values, weight])
        want = tensorboard_smoothing(values, weight)
        assert [v is None for v in got] == [v is None for v in want]  # a gap stays a gap
        assert [v for v in got if v is not None] == pytest.approx([v for v in want if v is not None], rel=1e-12)
    assert page.evaluate("window.tbReport.smooth([2, 2, 2], 0.9)") == [2, 2, 2]


def test_the_slider_smooths_the_drawn_series(opened):
    page, _, _ = opened
    page.evaluate("window.tbReport.drawAll()")
    read = "() => window.tbReport.charts.find(c => c.tag === 'train/loss').plot.data[1].slice(0, 50)"
    page.fill("#smoothing", "0")
    page.dispatch_event("#smoothing", "input")
    raw = page.evaluate(read)
    page.fill("#smoothing", "0.9")
    page.dispatch_event("#smoothing", "input")
    assert page.evaluate(read) == pytest.approx(tensorboard_smoothing(raw, 0.9), rel=1e-9)
    page.fill("#smoothing", "0.6")
    page.dispatch_event("#smoothing", "input")


def test_log_y_redraws_every_scalar_chart(opened):
    page, _, _ = opened
    page.evaluate("window.tbReport.drawAll()")
    distr = "() => window.tbReport.charts.filter(c => c.kind === 'scalars').map(c => c.plot.scales.y.distr)"
    assert page.evaluate(distr) == [1] * len(SCALAR_TAGS)
    page.check("#log-y")
    assert page.evaluate(distr) == [3] * len(SCALAR_TAGS)
    assert page.locator("#scalars canvas").count() == len(SCALAR_TAGS)
    page.uncheck("#log-y")
    assert page.evaluate(distr) == [1] * len(SCALAR_TAGS)


# The picture's cursor, put by the chart's own API where the hover put it: a pointer event lands where the
# layout is at that moment, which a busy machine may not have finished; then every image decoded, two frames drawn.
STEADY = """async () => {
  const chart = window.tbReport.charts.find(c => c.kind === 'scalars' && c.tag === 'train/loss');
  chart.plot.setCursor({left: 250, top: 100});
  await Promise.all([...document.images].map(image => image.decode().catch(() => null)));
  await new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)));
}"""


def test_hover_shows_each_runs_value_then_screenshot(opened):
    page, _, _ = opened
    page.evaluate("window.tbReport.drawAll()")
    page.evaluate("() => document.fonts.ready.then(() => true)")
    chart = page.locator('#scalars .chart[data-tag="train/loss"]')
    chart.locator(".u-over").hover(position={"x": 250, "y": 100})
    values = chart.locator(".u-legend .u-series .u-value").all_inner_texts()
    assert len(values) == 1 + len(RUNS) and "--" not in values  # the step, then one value per run
    ARTIFACTS.mkdir(exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    # The whole page in the viewport first: a full-page screenshot then resizes nothing, so no resize handler
    # can clear the cursor between STEADY and the capture (on a busy machine one did).
    viewport = page.viewport_size
    height = page.evaluate("document.documentElement.scrollHeight")
    page.set_viewport_size({"width": viewport["width"], "height": height})
    try:
        page.evaluate(STEADY)
        shot = ARTIFACTS / "report.png"
        page.screenshot(path=str(shot), full_page=True)
    finally:
        page.set_viewport_size(viewport)
    assert shot.stat().st_size > 10000
    _assert_docs_picture_is(shot)


def _assert_docs_picture_is(shot: Path) -> None:
    """docs/assets/report.png is the page as drawn now (compared as tools/screenshot_ui.py compares the UI's
    picture; the checkout is left as it is)."""
    from PIL import Image

    committed = REPO / "docs" / "assets" / "report.png"
    renew = f"cp {shot.relative_to(REPO)} {committed.relative_to(REPO)} and commit it"
    with Image.open(committed) as old, Image.open(shot) as new:
        assert old.size == new.size, f"{committed.relative_to(REPO)} is {old.size}, the page is {new.size}: {renew}"
    difference = SCREENSHOTS.difference(committed, shot)
    assert difference < SCREENSHOT_TOLERANCE, f"{committed.relative_to(REPO)} is stale ({difference:.2f}): {renew}"

