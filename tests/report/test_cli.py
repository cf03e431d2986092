"""`tensorboard export --out report.html` and `python -m tensorboard.report`: the page is one file
with its scripts inlined and no outside URL in any attribute; refusals are clear and early."""
import base64
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from tensorboard.cli import export
from tensorboard.report import export_report

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_module(module, *args):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True, text=True,
                          timeout=300, env={**os.environ, "PYTHONPATH": os.path.join(REPO, "python")})


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.urls, self.scripts = [], 0

    def handle_starttag(self, tag, attrs):
        self.scripts += tag == "script"
        self.urls += [value for name, value in attrs if name in ("src", "href", "srcset", "action", "data")]


def _data(page: str) -> dict:
    return json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                                page, re.S).group(1))


def test_export_with_an_html_out_writes_the_page(report_logdir, tmp_path, capsys):
    out = tmp_path / "report.html"
    assert export.main(["--logdir", str(report_logdir), "--out", str(out), "--max-points", "100"]) == 0
    page = out.read_text(encoding="utf-8")
    links = _Links()
    links.feed(page)
    assert links.urls == [] and links.scripts == 3  # the data, uPlot, the page's script: all inline
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    data = _data(page)
    assert data["maxPoints"] == 100
    loss = [s for e in data["scalars"] if e["tag"] == "train/loss" for s in e["series"]]
    assert [len(base64.b64decode(s["values"])) // 4 for s in loss] == [100] * 3  # float32 values
    assert [s["total"] for s in loss] == [2500] * 3
    for s in loss:  # wall times: the first as a float64, then float32 offsets from it, one per point
        walls = data["walls"][s["walls"]]
        assert isinstance(walls["start"], float) and len(base64.b64decode(walls["offsets"])) == 4 * 100
    assert "wrote" in capsys.readouterr().err


def test_python_m_report_with_kinds_runs_and_tags(report_logdir, tmp_path):
    out = tmp_path / "only.html"
    result = run_module("tensorboard.report", "--logdir", report_logdir, "--out", out, "--kind", "scalars",
                        "--kind", "hparams", "--runs", "0\\.01$", "--tags", "^train/", "--steps", "10:", "--quiet")
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    data = _data(out.read_text(encoding="utf-8"))
    assert data["runs"] == ["lr_0.01"]
    assert [e["tag"] for e in data["scalars"]] == ["train/loss"]
    assert [s["total"] for s in data["scalars"][0]["series"]] == [2490]  # steps 10 to 2499
    assert data["distributions"] == data["images"] == data["text"] == []
    assert [row["run"] for row in data["hparams"]] == ["lr_0.01"]


def test_an_existing_page_is_kept_without_force(report_logdir, tmp_path):
    out = tmp_path / "report.html"
    out.write_text("keep me")
    result = run_module("tensorboard.cli.export", "--logdir", report_logdir, "--out", out)
    assert result.returncode == 2 and "exists; pass --force" in result.stderr
    assert out.read_text() == "keep me"
    result = run_module("tensorboard.cli.export", "--logdir", report_logdir, "--out", out, "--force", "--quiet")
    assert result.returncode == 0, result.stderr
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_export_report_refuses_an_existing_page_unless_forced(report_logdir, tmp_path):
    """The Python function refuses as the command does: an existing page is replaced only with force=True."""
    out = tmp_path / "report.html"
    out.write_text("keep me")
    with pytest.raises(FileExistsError, match="exists; pass --force"):
        export_report(str(report_logdir), str(out))
    assert out.read_text() == "keep me"
    written = export_report(str(report_logdir), str(out), force=True)
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert written["bytes"] == out.stat().st_size
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temporary file left


@pytest.mark.parametrize("args,message", [
    (["--max-points", "1"], "--max-points must be at least 2"),
    (["--runs", "("], "--runs '(' is not a valid regex"),
    (["--tags", "[a"], "--tags '[a' is not a valid regex"),
    (["--steps", "5"], "--steps '5': expected LO:HI"),
    (["--steps", "9:3"], "--steps '9:3' is empty"),
])
def test_bad_arguments_are_refused_by_name(report_logdir, tmp_path, args, message):
    out = tmp_path / "r.html"
    result = run_module("tensorboard.report", "--logdir", report_logdir, "--out", out, *args)
    assert result.returncode == 2 and message in result.stderr
    assert not out.exists()


def test_a_missing_logdir_is_an_error(tmp_path):
    result = run_module("tensorboard.report", "--logdir", tmp_path / "nowhere", "--out", tmp_path / "r.html")
    assert result.returncode == 1 and "not found" in result.stderr


def test_text_cannot_end_the_data_script(tmp_path):
    import tensorboard

    with tensorboard.SummaryWriter(str(tmp_path / "logs")) as writer:
        writer.add_text("evil", "</script><script>alert(1)</script>\u2028", 0)
    out = tmp_path / "r.html"
    export_report(str(tmp_path / "logs"), str(out))
    page = out.read_text(encoding="utf-8")
    assert "alert(1)</script>" not in page
    assert _data(page)["text"][0]["items"][0]["texts"] == [[0, "</script><script>alert(1)</script>\u2028"]]
