"""The report page with --group_runs, in real Chromium: each group of runs is drawn as its mean with a
band of mean ± std, equal to the members' statistics."""
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from chromium import chromium

from tensorboard.report import export_report

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
UI_TIMEOUT_MS = 60000  # upper bound for the page's scripts; guards against hangs only


def test_group_runs_draw_each_groups_mean_with_a_band(tmp_path):
    from stats.seeds import write_seeds

    written = write_seeds(tmp_path / "sweep", configs=("lr0.1", "lr0.01"), seeds=3, tags=("loss",), steps=60)
    out = tmp_path / "groups.html"
    export_report(str(tmp_path / "sweep"), str(out), ("scalars",), group_runs=r"_seed\d+")
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.set_default_timeout(UI_TIMEOUT_MS)
        page.goto(out.as_uri())
        page.wait_for_function("() => window.tbReport && window.tbReport.ready")
        page.fill("#smoothing", "0")
        page.dispatch_event("#smoothing", "input")
        page.evaluate("window.tbReport.drawAll()")
        plot = "window.tbReport.charts.find(c => c.tag === 'loss').plot"
        labels = page.evaluate(f"{plot}.series.map(s => s.label)")
        assert "lr0.01 (mean)" in labels and "lr0.01 (mean) + std" in labels
        bands = page.evaluate(f"{plot}.bands.map(b => b.series.map(i => {plot}.series[i].label))")
        assert sorted(bands) == [["lr0.01 (mean) + std", "lr0.01 (mean) - std"],
                                 ["lr0.1 (mean) + std", "lr0.1 (mean) - std"]]
        upper = page.evaluate(f"{plot}.data[{labels.index('lr0.01 (mean) + std')}]")
        members = np.array([written[f"lr0.01_seed{k}"]["loss"] for k in range(3)])
        want = (members.mean(axis=0) + members.std(axis=0, ddof=1)).astype(np.float32)
        np.testing.assert_allclose(upper, want, rtol=1e-6)
        svg = page.evaluate("window.tbReport.svg(window.tbReport.charts.find(c => c.tag === 'loss'))")
        root = ET.fromstring(svg)  # the saved SVG draws each group's band too
        assert len(root.findall(".//{http://www.w3.org/2000/svg}polygon")) == 2
        page.locator('#scalars .chart[data-tag="loss"]').screenshot(path=str(ARTIFACTS / "report-group-band.png"))
