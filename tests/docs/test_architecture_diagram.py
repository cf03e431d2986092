"""The architecture page's Mermaid diagram is drawn in a real browser from the site's own copy of
Mermaid: the page requests nothing from another server, Material for MkDocs replaces the diagram's
source with the drawing, and the source names every layer's folder."""
from __future__ import annotations

import re

from chromium import chromium
from docs_site import REPO, build_site

LAYERS = ["writers/", "values/", "summary/", "events/", "reader/"]
ARTIFACTS = REPO / "artifacts"


def diagram_source() -> str:
    page = (REPO / "docs" / "architecture.md").read_text()
    (source,) = re.findall(r"```mermaid\n(.*?)```", page, re.S)
    return source


def test_architecture_diagram_renders_offline():
    site, _ = build_site()
    outside = []
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.on("request", lambda request: None if request.url.startswith(("file://", "data:", "blob:"))
                else outside.append(request.url))
        page.goto((site / "architecture" / "index.html").as_uri())
        # Material swaps <pre class="mermaid"> for a <div class="mermaid"> holding the drawing
        page.wait_for_function("() => { const d = document.querySelector('div.mermaid');"
                               " return d && d.getBoundingClientRect().height > 50; }", timeout=60000)
        ARTIFACTS.mkdir(exist_ok=True)
        page.locator("div.mermaid").screenshot(path=str(ARTIFACTS / "architecture-diagram.png"))
        # the drawing sits in a closed shadow root: draw the page's source again with the same Mermaid
        svg = page.evaluate("async (source) => (await mermaid.render('check', source)).svg", diagram_source())
    assert outside == []
    drawn = re.sub(r"<[^>]+>", " ", svg)
    for layer in LAYERS:
        assert layer in drawn, layer
