"""The screenshot of the served UI in the README and on the docs' front page, docs/assets/ui-scalars.png.

    .venv/bin/python tools/screenshot_ui.py                    # writes docs/assets/ui-scalars.png
    .venv/bin/python tools/screenshot_ui.py --out /tmp/ui.png  # anywhere else

It writes a logdir with the demo's runs and scalar tags from fixed curves (tools/demo_shaped_logdir.py, into
`demo_logs` of a temporary directory: trained curves differ from one CPU to the next), serves it with our
`tensorboard` launcher (.venv's, on a free 127.0.0.1 port), opens the Scalars dashboard in headless Chromium
(tests/chromium.py) at 1280x800 and saves the window once the dashboard shows every run and scalar tag the
logdir holds and each chart on show has drawn every run and stopped changing. The PNG is cut to 256 colours.
The logdir, the server and the browser are gone when it returns.

Nothing in the picture depends on the moment, the machine's paths or its CPU: the values are the same on every
machine, the logdir is named relatively (the run selector shows `demo_logs`), the pointer stays out of the
charts (no tooltip, so no relative times), CSS animations are stopped, and each chart's axes are measured again
once the web fonts are in.

tests/e2e/test_ui_screenshot.py runs it again into a temporary file: the page held the demo's runs and tags, and
the committed picture is still the one the tool takes now (`difference` below).
"""
from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
for _helpers in (REPO / "tests", REPO / "tests" / "e2e"):  # Chromium's flags, the launcher's start and stop
    if str(_helpers) not in sys.path:
        sys.path.insert(0, str(_helpers))

from chromium import chromium  # noqa: E402
from e2e_helpers import clean_env, start_server, stop_server, tagged, wait_for_runs  # noqa: E402

OUT = REPO / "docs" / "assets" / "ui-scalars.png"
VENV = REPO / ".venv"
WINDOW = {"width": 1280, "height": 800}
LOGDIR = "demo_logs"  # relative to the server's directory: the run selector shows it as `make demo` does
WRITER = REPO / "tools" / "demo_shaped_logdir.py"  # the demo's runs and tags from fixed curves
UI_TIMEOUT_MS = 120000  # guards against a hang only
STILL_FRAMES = 10  # animation frames in a row without a change in any chart before the picture is taken
COMPARE_SIZE = (320, 200)  # `difference` compares the pictures at a quarter of the window's size,
COMPARE_TILE = 10  # in squares of 10x10 of those pixels (40x40 of the window)
TAG = "TB_SCREENSHOT_UI"  # in the environment of every process the tool starts (the demo, the server, the browser)

# The elements matching `selector` below `root`, inside the shadow roots of its Polymer elements too.
DEEP = """const deep = (root, selector) => {
    const found = [...root.querySelectorAll(selector)];
    for (const el of root.querySelectorAll('*')) if (el.shadowRoot) found.push(...deep(el.shadowRoot, selector));
    return found;
  };"""

# What the Scalars dashboard shows: the runs of the run selector, the tag categories (opened or not, with their
# tags; the unnamed one holds the tag filter's matches), and every scalar card with what its chart drew: a smoothed
# and a faint raw line per run, a dot at each run's last point, the axes' labels and where the axes sit.
# `ready` once that is `want` (runs and tags) and every card has drawn every run.
SHOWN = """(want) => {
  """ + DEEP + """
  const runs = deep(document, 'tf-runs-selector')
    .flatMap(selector => deep(selector.shadowRoot, "paper-checkbox[id^='checkbox-']"))
    .map(box => box.id.slice('checkbox-'.length));
  const categories = deep(document, 'tf-category-paginated-view')
    .filter(view => view.category && view.category.name)
    .map(view => ({name: view.category.name, opened: !!view.opened, tags: view.category.items.map(i => i.tag)}));
  const cards = deep(document, 'tf-scalar-card').map(card => {
    const loader = deep(card.shadowRoot, 'tf-line-chart-data-loader')[0];
    return {tag: card.tag, series: card.dataToLoad ? card.dataToLoad.length : 0,
            loading: !loader || loader.dataLoading !== false,
            lines: deep(card.shadowRoot, 'path.line').map(line => (line.getAttribute('d') || '').split('L').length),
            dots: deep(card.shadowRoot, 'path.symbol').length,
            axes: deep(card.shadowRoot, '.tick-label').map(label => label.textContent).join(' '),
            layout: deep(card.shadowRoot, '.component.axis').map(axis => axis.style.cssText).join(' ')};
  });
  const opened = categories.filter(c => c.opened).flatMap(c => c.tags).sort();
  const drawn = cards.every(c => !c.loading && c.series === want.runs.length && c.lines.length === 2 * c.series
                                 && c.lines.every(points => points > 1) && c.dots === c.series);
  const tags = [...new Set(categories.flatMap(c => c.tags))].sort();
  const ready = drawn && JSON.stringify(runs) === JSON.stringify(want.runs) && cards.length > 0
    && JSON.stringify(tags) === JSON.stringify(want.tags)
    && JSON.stringify(cards.map(c => c.tag).sort()) === JSON.stringify(opened);
  return {ready, runs, categories, cards};
}"""

# Polled once an animation frame: the state above, once it is ready and no chart changed for STILL_FRAMES frames.
SETTLED = """([want, frames]) => {
  const state = (""" + SHOWN + """)(want);
  const look = JSON.stringify(state.cards);
  const still = window.__uiShot && window.__uiShot.look === look ? window.__uiShot.still + 1 : 0;
  window.__uiShot = {look, still};
  return state.ready && still >= frames ? state : null;
}"""

# A chart's axes keep the text widths they measured first, with the fallback font when Roboto had not arrived yet
# (an axis then sits a pixel or two off): once every font is there, each chart measures again and is laid out anew.
RELAYOUT = """async () => {
  """ + DEEP + """
  await document.fonts.ready;
  for (const chart of deep(document, 'vz-line-chart2')) {
    chart._chart.outer.invalidateCache();
    chart.redraw();
  }
  window.__uiShot = null;
}"""


def write_logdir(directory: Path, venv: Path = VENV) -> Path:
    """The demo-shaped logdir, written by WRITER with `venv`'s tensorboard into `directory`/demo_logs."""
    result = subprocess.run([str(venv / "bin" / "python"), str(WRITER), LOGDIR], cwd=directory,
                            env=clean_env(**{TAG: str(directory)}), capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{WRITER.name} failed ({result.returncode}):\n{result.stdout}{result.stderr}")
    return directory / LOGDIR


def written_scalars(logdir: Path) -> dict:
    """{"runs": [...], "tags": [...]} of the scalars in `logdir`, read back with our reader."""
    from tensorboard.reader import SummaryReader

    frame = SummaryReader(str(logdir), extra_columns={"dir_name"}).scalars
    return {"runs": sorted(set(frame["dir_name"])), "tags": sorted(set(frame["tag"]))}


def capture(out: Path = OUT, venv: Path = VENV) -> dict:
    """Writes the screenshot to `out`; returns what the page showed then (SHOWN's runs, categories and cards),
    what the logdir held ("written"), and the processes it started: TAG=<"tag"> is in their environment (or in
    their parent's), "running" is {pid: command line} of them while the page was open; all are stopped when this
    returns."""
    with tempfile.TemporaryDirectory(prefix="tb-ui-shot-") as tmp:
        directory = Path(tmp)
        written = written_scalars(write_logdir(directory, venv))
        server = start_server(venv, LOGDIR, directory, "--host", "127.0.0.1", env_extra={TAG: tmp})
        try:
            wait_for_runs(server, written["runs"])
            with chromium(env={**os.environ, TAG: tmp}) as browser:
                page = browser.new_page(viewport=WINDOW)
                page.set_default_timeout(UI_TIMEOUT_MS)
                page.goto(server.url + "/#scalars")
                settle(page, written)
                page.evaluate(RELAYOUT)
                shown = settle(page, written)
                png = page.screenshot(animations="disabled")
                running = tagged(TAG, tmp)
        finally:
            stop_server(server)
    save_png(png, out)
    return {**shown, "written": written, "tag": tmp, "running": running}


def settle(page, written: dict) -> dict:
    """SHOWN's state once the dashboard shows `written` and has stopped changing; what it showed if it never does."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        return page.wait_for_function(SETTLED, arg=[written, STILL_FRAMES], polling="raf").json_value()
    except PlaywrightTimeout:
        shown = page.evaluate(SHOWN, written)
        raise RuntimeError(f"the Scalars dashboard never showed {written} drawn; it showed {shown}") from None


def save_png(png: bytes, out: Path) -> None:
    """Chromium's PNG cut to 256 colours (a quarter of the size, the same to the eye) and compressed harder."""
    from PIL import Image

    out.parent.mkdir(parents=True, exist_ok=True)
    Image.open(io.BytesIO(png)).convert("RGB").quantize(256).save(out, optimize=True)


def difference(first: Path, second: Path) -> float:
    """How far apart two pictures of the same size are: both in grayscale at COMPARE_SIZE, the mean absolute
    difference (0-255) of the square of COMPARE_TILE pixels where they differ most. A stray pixel of antialiasing
    vanishes in it; a moved axis, an added point or a changed label does not (a mean over the whole picture would
    thin those out as well)."""
    import numpy as np
    from PIL import Image

    small = [np.asarray(Image.open(path).convert("L").resize(COMPARE_SIZE, Image.Resampling.BOX), dtype=np.float64)
             for path in (first, second)]
    (width, height), tile = COMPARE_SIZE, COMPARE_TILE
    tiles = np.abs(small[0] - small[1]).reshape(height // tile, tile, width // tile, tile)
    return float(tiles.mean(axis=(1, 3)).max())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"the PNG to write (default: {OUT.relative_to(REPO)})")
    parser.add_argument("--venv", type=Path, default=VENV, help="the environment whose python writes the logdir and "
                        "whose tensorboard serves it (default: .venv)")
    args = parser.parse_args(argv)
    shown = capture(args.out, args.venv)
    drawn = sorted(card["tag"] for card in shown["cards"])
    print(json.dumps({"out": str(args.out), "bytes": args.out.stat().st_size, "runs": shown["runs"],
                      "drawn": drawn}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
