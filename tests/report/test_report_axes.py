"""The report page's x axes, log x and downloads, in real Chromium opened from file://: the x axis as
step, relative time, wall time or another scalar tag joined on step; log x masking non-positive x; and
each chart saved as CSV (the drawn values), SVG (its lines, title and runs) and PNG (decodable), as
files the browser really downloads."""
import csv
import io
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from chromium import browser  # noqa: F401 (a fixture: one Chromium for the module)

import tensorboard
from tensorboard.reader import smooth
from tensorboard.report import export_report

UI_TIMEOUT_MS = 60000  # upper bound for the page's scripts; guards against hangs only
WALL0 = 1_700_000_000.25
RUNS = ("a", "b")
STEPS = 200
MAX_POINTS = 50
SVG = "{http://www.w3.org/2000/svg}"


def wall(run_index: int, step: int) -> float:
    return WALL0 + 100.0 * run_index + 1.5 * step


def write_logdir(root: Path) -> None:
    """Per run: `loss` every step, `tokens` (512 per step) every third step, so joining `loss` on `tokens`
    interpolates; a histogram every tenth step; wall times known exactly."""
    for k, run in enumerate(RUNS):
        with tensorboard.SummaryWriter(str(root / run)) as writer:
            for step in range(STEPS):
                writer.add_scalar("loss", (k + 1.0) / (1.0 + step), step, walltime=wall(k, step))
                if step % 3 == 0:
                    writer.add_scalar("tokens", 512.0 * (step + 1), step, walltime=wall(k, step))
                if step % 10 == 0:
                    writer.add_histogram("weights", np.linspace(-1, 1, 50) + step / 100, step, walltime=wall(k, step))


def kept_steps() -> list[int]:
    from tensorboard.report.downsample import even_indices

    return [int(i) for i in even_indices(STEPS, MAX_POINTS)]


def loss(k: int, steps) -> list[float]:
    return [float(np.float32((k + 1.0) / (1.0 + s))) for s in steps]


@pytest.fixture(scope="module")
def page(tmp_path_factory, browser):  # noqa: F811
    root = tmp_path_factory.mktemp("report-axes")
    write_logdir(root / "logs")
    out = root / "axes.html"
    export_report(str(root / "logs"), str(out), ("scalars", "histograms"), max_points=MAX_POINTS)
    opened = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    opened.set_default_timeout(UI_TIMEOUT_MS)
    errors = []
    opened.on("pageerror", lambda err: errors.append(str(err)))
    opened.route("**/*", lambda r: r.continue_() if r.request.url == out.as_uri() else r.abort())
    opened.goto(out.as_uri())
    opened.wait_for_function("() => window.tbReport && window.tbReport.ready")
    opened.evaluate("window.tbReport.drawAll()")
    yield opened
    opened.close()
    assert errors == []


def set_controls(page, x="step", log_x=False, smoothing="0"):
    page.select_option("#x-axis", x)
    page.set_checked("#log-x", log_x)
    page.fill("#smoothing", smoothing)
    page.dispatch_event("#smoothing", "input")


def chart_data(page, tag="loss", kind="scalars"):
    return page.evaluate("([tag, kind]) => window.tbReport.charts.find(c => c.tag === tag && c.kind === kind)"
                         ".plot.data", [tag, kind])


def test_x_axis_step_is_the_default(page):
    set_controls(page)
    data = chart_data(page)
    assert data[0] == kept_steps()
    for k in range(len(RUNS)):
        assert data[1 + k] == loss(k, kept_steps())


def test_x_axis_relative_time_is_seconds_since_each_series_first_point(page):
    set_controls(page, x="relative")
    data = chart_data(page)
    assert data[0] == pytest.approx([1.5 * s for s in kept_steps()], abs=1e-3)
    assert data[1] == loss(0, kept_steps()) and data[2] == loss(1, kept_steps())  # both runs at the same offsets


def test_x_axis_wall_time_is_each_points_wall_time(page):
    set_controls(page, x="wall")
    data = chart_data(page)
    for k in range(len(RUNS)):
        drawn = [(x, y) for x, y in zip(data[0], data[1 + k]) if y is not None]
        assert [x for x, _ in drawn] == pytest.approx([wall(k, s) for s in kept_steps()], abs=1e-3)
        assert [y for _, y in drawn] == loss(k, kept_steps())
    assert page.evaluate("window.tbReport.charts.find(c => c.tag === 'loss').plot.scales.x.time") is True


def test_x_axis_another_tag_is_joined_on_step(page):
    """`tokens` is logged every third step: at the other steps its value is interpolated between its
    neighbours (exact here, it grows linearly); past its last step a `loss` point has no x and is left out."""
    set_controls(page, x="tag:tokens")
    data = chart_data(page)
    last_token_step = max(s for s in range(STEPS) if s % 3 == 0)
    steps = [s for s in kept_steps() if s <= last_token_step]
    assert data[0] == pytest.approx([512.0 * (s + 1) for s in steps], rel=1e-9)
    assert data[1] == loss(0, steps) and data[2] == loss(1, steps)
    assert page.evaluate("window.tbReport.charts.find(c => c.tag === 'loss').plot.axes[0].label") == "tokens"


def test_log_x_masks_non_positive_x(page):
    set_controls(page, log_x=True)
    data = chart_data(page)
    assert data[0] == kept_steps()[1:]  # step 0 is not drawn on a log axis
    assert data[1] == loss(0, kept_steps()[1:])
    distr = "window.tbReport.charts.map(c => c.plot.scales.x.distr)"
    assert page.evaluate(distr) == [3] * 4  # every chart: loss, tokens, and the two runs' distributions
    set_controls(page, x="relative", log_x=True)
    assert chart_data(page)[0] == pytest.approx([1.5 * s for s in kept_steps()[1:]], abs=1e-3)
    set_controls(page)
    assert page.evaluate(distr) == [1] * 4


def save(page, tag, kind, tmp_path, ext):
    """Clicks the chart's save button and returns the file the browser downloaded."""
    with page.expect_download() as caught:
        page.locator(f'#{kind} .chart[data-tag="{tag}"] .save-{ext}').first.click()
    download = caught.value
    assert download.failure() is None
    path = tmp_path / download.suggested_filename
    download.save_as(path)
    return path


def parse_csv(path):
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))
    return rows[0], [[None if cell == "" else float(cell) for cell in row] for row in rows[1:]]


def test_csv_holds_what_is_drawn_smoothed(page, tmp_path):
    set_controls(page, x="tag:tokens", smoothing="0.6")
    path = save(page, "loss", "scalars", tmp_path, "csv")
    assert path.name == "loss.csv"
    header, rows = parse_csv(path)
    assert header == ["tokens", *RUNS]
    columns = [list(col) for col in zip(*rows)]
    assert columns == chart_data(page)  # every drawn value, unrounded
    last_token_step = max(s for s in range(STEPS) if s % 3 == 0)
    steps = [s for s in kept_steps() if s <= last_token_step]
    for k in range(len(RUNS)):  # TensorBoard's smoothing of the shown float32 points
        want = smooth(loss(k, kept_steps()), 0.6)[:len(steps)]
        assert columns[1 + k] == pytest.approx(want.tolist(), rel=1e-9)


def test_csv_of_a_zoomed_chart_holds_the_rows_shown(page, tmp_path):
    set_controls(page)
    page.evaluate("window.tbReport.charts.find(c => c.tag === 'loss').plot.setScale('x', {min: 40, max: 120})")
    header, rows = parse_csv(save(page, "loss", "scalars", tmp_path, "csv"))
    shown = [s for s in kept_steps() if 40 <= s <= 120]
    assert [row[0] for row in rows] == shown
    assert [row[1] for row in rows] == loss(0, shown)
    set_controls(page, x="relative")  # a new axis draws the chart anew, unzoomed
    header, rows = parse_csv(save(page, "loss", "scalars", tmp_path, "csv"))
    assert header[0] == "relative_time_s" and len(rows) == len(kept_steps())
    set_controls(page, x="wall")
    header, rows = parse_csv(save(page, "loss", "scalars", tmp_path, "csv"))
    assert header[0] == "wall_time_s" and rows[0][0] == pytest.approx(wall(0, 0), abs=1e-3)


def test_csv_of_a_distribution_has_its_percentiles(page, tmp_path):
    set_controls(page)
    path = save(page, "weights", "distributions", tmp_path, "csv")
    assert path.name == "weights_a.csv"
    header, rows = parse_csv(path)
    assert header == ["step", "min", "7%", "16%", "31%", "median", "69%", "84%", "93%", "max"]
    assert [row[0] for row in rows] == list(range(0, STEPS, 10))
    assert all(row[1:] == sorted(row[1:]) for row in rows)


def test_svg_has_the_title_a_line_per_run_and_the_legend(page, tmp_path):
    set_controls(page, x="wall")
    path = save(page, "loss", "scalars", tmp_path, "svg")
    root = ET.parse(path).getroot()
    assert root.tag == f"{SVG}svg"
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "loss" in texts and "wall time (UTC)" in texts and set(RUNS) <= set(texts)
    lines = root.findall(f".//{SVG}polyline")
    assert [line.get("data-label") for line in lines] == list(RUNS)
    for line in lines:  # one vertex per drawn point, inside the picture
        points = [tuple(map(float, p.split(","))) for p in line.get("points").split()]
        assert len(points) == len(kept_steps())
        assert all(0 <= x <= float(root.get("width")) and 0 <= y <= float(root.get("height")) for x, y in points)


def test_png_decodes_at_twice_the_svg_size(page, tmp_path):
    from PIL import Image

    set_controls(page)
    svg = ET.parse(save(page, "loss", "scalars", tmp_path, "svg")).getroot()
    with Image.open(save(page, "loss", "scalars", tmp_path, "png")) as image:
        assert image.format == "PNG"
        assert image.size == (2 * int(svg.get("width")), 2 * int(svg.get("height")))
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
    assert len(colours) > 10  # drawn, not blank: text, axes and the runs' colours


def test_a_page_of_distributions_only_offers_the_x_axis_controls(tmp_path, browser):  # noqa: F811
    write_logdir(tmp_path / "logs")
    out = tmp_path / "histograms.html"
    export_report(str(tmp_path / "logs"), str(out), ("histograms",), max_points=MAX_POINTS)
    page = browser.new_page()
    try:
        page.set_default_timeout(UI_TIMEOUT_MS)
        page.goto(out.as_uri())
        page.wait_for_function("() => window.tbReport && window.tbReport.ready")
        assert page.locator("#smoothing, #log-y").count() == 0
        page.evaluate("window.tbReport.drawAll()")
        page.select_option("#x-axis", "relative")
        data = chart_data(page, "weights", "distributions")
        assert data[0] == pytest.approx([1.5 * s for s in range(0, STEPS, 10)], abs=1e-3)
        page.check("#log-x")
        assert chart_data(page, "weights", "distributions")[0][0] == pytest.approx(15.0, abs=1e-3)
    finally:
        page.close()
