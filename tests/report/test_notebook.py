"""`tensorboard.report.show` in a real Jupyter kernel (nbclient, ipykernel): the cell's output is the
report page in an `<iframe srcdoc>`, holding the report's data, with no server and no port; the frame
draws its charts in real Chromium; a page above the size limit is refused by name in the cell."""
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from chromium import chromium
from report_logdir import RUNS
from waiting import run_python

from tensorboard.report import MAX_EMBED_BYTES, export_report, show

UI_TIMEOUT_MS = 60000  # upper bound for the page's scripts; guards against hangs only

# Runs nbformat/nbclient in a new interpreter on the source tree; the kernel it starts inherits that
# environment (PYTHONPATH), so `tensorboard.report` in the cells is this checkout's.
RUN_NOTEBOOK = """
import json, sys
import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
cells = json.loads(sys.argv[1])
notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in cells])
NotebookClient(notebook, timeout=300, kernel_name="python3", allow_errors=True).execute()
print(json.dumps([cell.outputs for cell in notebook.cells]))
"""


def run_notebook(cells, cwd):
    result = run_python(f"import sys; sys.argv[1:] = [{json.dumps(json.dumps(cells))}]\n" + RUN_NOTEBOOK, cwd)
    assert result.returncode == 0, result.stderr[-4000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


def frame_attributes(frame: str) -> dict:
    """The attributes of the one element in `frame`, unescaped as a browser reads them."""
    found = []

    class Parser(HTMLParser):
        def handle_starttag(self, tag, attrs):
            found.append((tag, dict(attrs)))

    Parser().feed(frame)
    assert [tag for tag, _ in found] == ["iframe"]
    return found[0][1]


def page_data(srcdoc: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                                srcdoc, re.S).group(1))


def test_show_renders_the_page_in_the_cell(report_logdir, tmp_path):
    outputs = run_notebook([
        "from tensorboard.report import show",
        f"show({str(report_logdir)!r}, max_points=100, title='in a notebook')",
        f"show({str(report_logdir)!r}, max_bytes=10_000)",
    ], tmp_path)
    assert outputs[0] == []
    shown = [o for o in outputs[1] if o["output_type"] == "execute_result"]
    assert len(shown) == 1
    frame = shown[0]["data"]["text/html"]
    assert len(shown[0]["data"]["text/plain"]) < 200  # the text beside it does not hold the page again
    assert frame.startswith("<iframe srcdoc=\"") and 'sandbox="allow-scripts allow-downloads"' in frame
    attributes = frame_attributes(frame)
    assert sorted(attributes) == ["sandbox", "srcdoc", "style", "title"]  # no src: nothing served, no port
    srcdoc = attributes["srcdoc"]
    exported = tmp_path / "same.html"  # the same page as `tensorboard export` writes
    export_report(str(report_logdir), str(exported), max_points=100, title="in a notebook")
    assert srcdoc == exported.read_text(encoding="utf-8")
    data = page_data(srcdoc)
    assert data["title"] == "in a notebook" and data["maxPoints"] == 100
    assert sorted(data["runs"]) == sorted(RUNS)
    assert [e["tag"] for e in data["scalars"]] == ["train/loss", "eval/accuracy", "final/loss"]
    refused = [o for o in outputs[2] if o["output_type"] == "error"]
    assert refused and refused[0]["ename"] == "ValueError"
    assert "above max_bytes=10,000" in refused[0]["evalue"] and "max_points=" in refused[0]["evalue"]
    _frame_draws_its_charts(frame, data, tmp_path)


def _frame_draws_its_charts(frame: str, data: dict, tmp_path) -> None:
    """The cell's HTML in a blank Chromium page (as a notebook front end inserts it): the frame's page runs
    and draws a chart per scalar tag, and offers the downloads."""
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 900}, accept_downloads=True)
        page.set_default_timeout(UI_TIMEOUT_MS)
        requests = []
        page.on("request", lambda r: requests.append(r.url))
        page.set_content(f"<!DOCTYPE html><html><body>{frame}</body></html>")
        inner = page.frame_locator("iframe")
        inner.locator("#scalars .chart canvas").first.wait_for()
        report = page.frames[1]
        report.wait_for_function("() => window.tbReport && window.tbReport.ready")
        report.evaluate("window.tbReport.drawAll()")
        assert report.evaluate("window.tbReport.charts.filter(c => c.kind === 'scalars').length") == 3
        assert inner.locator("#scalars .chart .save-csv").count() == 3
        with page.expect_download() as caught:  # the sandbox allows downloads, and only them
            inner.locator('#scalars .chart[data-tag="train/loss"] .save-csv').click()
        assert caught.value.failure() is None and caught.value.suggested_filename == "train_loss.csv"
        csv_path = Path(tmp_path) / "train_loss.csv"
        caught.value.save_as(csv_path)
        assert csv_path.read_text(encoding="utf-8").splitlines()[0] == "step," + ",".join(data["runs"])
        assert [url for url in requests if not url.startswith(("about:", "data:"))] == []



@pytest.mark.parametrize("options,message", [
    ({"max_points": 1}, "--max-points must be at least 2"),
    ({"tags": "[a"}, "--tags '[a' is not a valid regex"),
    ({"steps": "9:3"}, "--steps '9:3' is empty"),
    ({"kinds": ("audio",)}, "--kind 'audio'"),
    ({"height": 0}, "height must be a positive number"),
])
def test_show_refuses_bad_options_by_name(report_logdir, options, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        show(str(report_logdir), **options)


def test_the_size_limit_is_the_cells_html_and_save_writes_the_page(report_logdir, tmp_path):
    view = show(str(report_logdir), kinds=("scalars",), max_points=50)
    size = len(view._repr_html_().encode("utf-8"))
    assert size < MAX_EMBED_BYTES
    assert show(str(report_logdir), kinds=("scalars",), max_points=50, max_bytes=size).page == view.page
    with pytest.raises(ValueError, match=f"above max_bytes={size - 1:,}"):
        show(str(report_logdir), kinds=("scalars",), max_points=50, max_bytes=size - 1)
    view.save(tmp_path / "saved.html")
    assert (tmp_path / "saved.html").read_text(encoding="utf-8") == view.page
