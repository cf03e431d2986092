"""The documentation site builds strictly (`make docs`), from a source tree with or without the generated
protos, a broken link fails it, and each page's setup lines name what its examples' environment holds."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from docs_site import DOCS_VENV, REPO, build_site, inventory, run_build
from readme_examples import DOCS, README, doc_pages, example_env, installed_by_page, page_examples, page_name

NAV_PAGES = ["index", "workflows/pytorch", "workflows/torch-utils-tensorboard", "workflows/lightning",
             "workflows/transformers", "workflows/jax", "workflows/keras", "workflows/mxnet", "workflows/sharing",
             "workflows/large-sweeps", "workflows/seeds", "logging", "reading", "figures", "experiments",
             "troubleshooting", "guarantees", "security", "refusals", "gpu", "moving-over", "packaging",
             "compatibility", "api/index",
             "api/tensorboard", "api/mxboard", "api/summary", "api/reader", "api/report", "api/projector", "api/graph",
             "api/integrations",
             "api/distributed", "api/system", "api/event_file_writer", "api/event_file", "api/convert", "benchmarks",
             "architecture", "design-decisions", "development"]


def test_site_builds_strictly_without_warnings():
    site, log = build_site()
    assert "WARNING" not in log and "ERROR" not in log, log[-6000:]
    for page in NAV_PAGES:
        html = site / (f"{page}.html" if page.endswith("index") else f"{page}/index.html")
        assert html.is_file(), f"{page} was not built"
    assert (site / "assets" / "javascripts" / "mermaid.min.js").is_file()


def test_site_needs_no_outside_server_to_view():
    """No web fonts or scripts from a CDN: the pages work offline."""
    site, _ = build_site()
    for html in site.rglob("*.html"):
        text = html.read_text()
        for host in ("fonts.googleapis.com", "fonts.gstatic.com", "unpkg.com", "cdn.jsdelivr.net"):
            assert host not in text, (html.relative_to(site), host)


def test_site_builds_without_the_generated_protos(tmp_path):
    """A source tree without `*_pb2` modules (before `make proto`) documents the same API."""
    generated = sorted((REPO / "python" / "tensorboard" / "src").glob("*_pb2.py"))
    assert generated, "python/tensorboard/src has no *_pb2.py: run `make proto`"
    source = tmp_path / "python"
    shutil.copytree(REPO / "python", source, ignore=shutil.ignore_patterns("*_pb2.py", "*_pb2.pyi", "__pycache__"))
    assert not list(source.rglob("*_pb2.py"))
    site = tmp_path / "site"
    log = run_build(site, TB_DOCS_PYTHON=str(source))
    assert "WARNING" not in log, log[-6000:]
    assert inventory(site) == inventory(build_site()[0])


def test_a_broken_anchor_fails_the_build(tmp_path):
    """Strict mode is on: a link to a heading that does not exist stops the build."""
    project = tmp_path / "project"
    shutil.copytree(DOCS, project / "docs")
    shutil.copy(REPO / "mkdocs.yml", project / "mkdocs.yml")
    with open(project / "docs" / "index.md", "a") as page:
        page.write("\nSee [nowhere](reading.md#no-such-heading).\n")
    result = subprocess.run([str(DOCS_VENV / "bin" / "mkdocs"), "build", "--strict", "-f", str(project / "mkdocs.yml"),
                             "-d", str(tmp_path / "site")],
                            env={**os.environ, "TB_DOCS_PYTHON": str(REPO / "python"), "NO_MKDOCS_2_WARNING": "1"},
                            capture_output=True, text=True, timeout=900)
    assert result.returncode != 0
    assert "no-such-heading" in result.stderr, result.stderr[-3000:]


def _installed(env_name: str, distributions: set[str]) -> set[str]:
    """The subset of `distributions` installed in one of the examples' test environments."""
    from ecosystem.eco_helpers import eco_env, eco_python
    from seeds.mxnet_venv import mxnet_python

    python, env = {"main": lambda: (sys.executable, dict(os.environ)), "ecosystem": lambda: (eco_python(), eco_env()),
                   "mxnet": lambda: (mxnet_python(), dict(os.environ))}[env_name]()
    code = ("import sys, importlib.metadata as m\n"
            "for name in sys.argv[1:]:\n"
            "    try:\n        m.version(name); print(name)\n"
            "    except m.PackageNotFoundError:\n        pass\n")
    result = subprocess.run([python, "-c", code, *sorted(distributions)], env=env, capture_output=True, text=True,
                            check=True)
    return set(result.stdout.split())


@pytest.mark.parametrize("page", [p for p in doc_pages() if page_examples(p)], ids=page_name)
def test_page_setup_names_what_its_examples_run_with(page):
    """Whatever a page tells the user to pip-install is in the environment its examples are tested in."""
    named = installed_by_page(page)
    if page.parent.name == "workflows" or page == README:
        assert named, f"{page_name(page)} tells the user to install nothing"
    envs = {example_env(code) for _, code in page_examples(page)}
    found = set()
    for env_name in envs:
        found |= _installed(env_name, named)
    assert found == named, f"{page_name(page)}: {sorted(named - found)} not in the test environments {sorted(envs)}"


def test_no_development_diary_where_users_read():
    """The README and the manual describe the product, not how it was made."""
    diary = ("this stop", "stop's", "earlier host", "the stop before", "stops ago", "we tried", "measured and dropped",
             "latest host", "the run before")
    for page in doc_pages():
        text = page.read_text().lower()
        for phrase in diary:
            assert phrase not in text, (page_name(page), phrase)
