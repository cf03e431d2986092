"""The pictures of docs/figures.md are what `tensorboard plot` draws now: each is drawn again from the
test sweep (tests/plot/plot_logdir.py) into artifacts/, and the committed picture in docs/assets/ must
look the same (compared as tools/screenshot_ui.py compares the UI's picture; the checkout is left as it is)."""
from __future__ import annotations

from pathlib import Path

import pytest
from waiting import module_from_file

from tensorboard.cli import plot as cli

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "artifacts"
SCREENSHOTS = module_from_file("screenshot_ui", REPO / "tools" / "screenshot_ui.py")
TOLERANCE = 2.0  # as tests/e2e/test_ui_screenshot.py's
PICTURES = {  # docs/assets/<name>: the command line that draws it (after LOGDIR)
    "figures-seeds.png": ["--tags", "^train/", "--group_runs", r"_seed\d+", "--smoothing", "0.6", "--grid",
                          "--size", "8,3"],
    "figures-runs.png": ["--tags", "loss", "--runs", "seed0", "--smoothing", "0.8", "--x", "epoch", "--logy",
                         "--size", "5,3"],
    "figures-distribution.png": ["--kind", "distribution", "--runs", "seed0", "--grid", "--size", "8,3"],
    "figures-histogram.png": ["--kind", "histogram", "--runs", "lr0.1_seed0", "--size", "4.5,3.5"],
}


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_docs_picture_is_what_plot_draws(sweep, name):
    drawn = ARTIFACTS / name
    ARTIFACTS.mkdir(exist_ok=True)
    assert cli.main([str(sweep), "--out", str(drawn), "--dpi", "110", "--force", "--quiet", *PICTURES[name]]) == 0
    committed = REPO / "docs" / "assets" / name
    renew = f"cp {drawn.relative_to(REPO)} {committed.relative_to(REPO)} and commit it"
    assert committed.is_file(), f"{committed.relative_to(REPO)} is missing: {renew}"
    from PIL import Image

    with Image.open(committed) as old, Image.open(drawn) as new:
        assert old.size == new.size, f"{committed.relative_to(REPO)} is {old.size}, the figure is {new.size}: {renew}"
    difference = SCREENSHOTS.difference(committed, drawn)
    assert difference < TOLERANCE, f"{committed.relative_to(REPO)} is stale ({difference:.2f}): {renew}"
