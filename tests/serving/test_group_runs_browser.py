r"""A real browser (headless Chromium, tests/chromium.py) on `tensorboard --group_runs '_seed\d+'` served by
our reader: the Custom Scalars dashboard draws each group's mean with its mean ± std band (a screenshot
goes to artifacts/seeds-band.png; the Seeds and sweeps page shows one), and the Scalars dashboard lists the group
runs beside their members and shows a group's new steps after the reload button is pressed."""
from __future__ import annotations

import json
import math
import random
import re
from urllib.parse import urlencode

import pytest
from chromium import browser, page  # noqa: F401 (the fixtures)
from e2e_helpers import REPO, http_get, stop_server
from serving_helpers import start_launcher, wait_until

import tensorboard

# config -> (decay rate of its loss per step, the loss it levels off at): two bands apart from each other
CONFIGS = {"lr0.1": (1 / 25, 0.15), "lr0.01": (1 / 80, 0.4)}
SEEDS = 3
STEPS = 200
MORE_STEPS = 200  # appended to every member by the reload test
TAGS = ("loss", "accuracy")
GROUPS = [f"{config} (mean)" for config in CONFIGS]
MEMBERS = [f"{config}_seed{seed}" for config in CONFIGS for seed in range(SEEDS)]
SHOT = REPO / "artifacts" / "seeds-band.png"  # the picture docs/assets/seeds-band.png was taken from


def write_sweep(root, start: int, stop: int) -> None:
    """Steps [start, stop) of every run `<config>_seed<k>`, shaped like the sweep of docs/workflows/seeds.md: a
    loss falling at the seed's own speed to about the config's floor, plus noise, and accuracy = exp(-loss)."""
    for config, (rate, floor) in CONFIGS.items():
        for seed in range(SEEDS):
            shape = random.Random(f"{config}/{seed}")  # the seed's curve, the same in every call
            speed, level = rate * shape.uniform(0.6, 1.6), floor + shape.uniform(-0.05, 0.05)
            noise = random.Random(f"{config}/{seed}/{start}")
            with tensorboard.SummaryWriter(root / f"{config}_seed{seed}") as writer:
                for step in range(start, stop):
                    loss = 2 * math.exp(-speed * step) + level + 0.03 * noise.gauss(0, 1)
                    writer.add_scalar("loss", loss, step)
                    writer.add_scalar("accuracy", math.exp(-loss), step)


@pytest.fixture
def served(tmp_path):
    """(logdir, server): the sweep served with --group_runs '_seed\\d+', once the group runs are listed."""
    logdir = tmp_path / "sweep"
    write_sweep(logdir, 0, STEPS)
    server = start_launcher(logdir, tmp_path, "--group_runs", r"_seed\d+")
    try:
        wait_until(lambda: set(GROUPS) <= set(server.get("/data/runs")), "the group runs")
        yield logdir, server
    finally:
        stop_server(server)


def _heading(page, title: str):
    return page.locator("tf-card-heading", has_text=re.compile(rf"^\s*{re.escape(title)}\s*$"))


def test_custom_scalars_draws_each_groups_mean_inside_its_band(served, page):
    _, server = served
    page.goto(server.url + "/#custom_scalars")
    page.get_by_text("Groups: mean ± std", exact=True).wait_for(state="visible")
    cards = page.locator("tf-custom-scalar-margin-chart-card")  # upstream's card of a Margin chart
    cards.first.wait_for(state="visible")
    assert sorted(cards.evaluate_all("cards => cards.map(card => card.title)")) == sorted(TAGS)
    card = cards.filter(has=_heading(page, "loss"))
    assert card.evaluate("card => card.marginChartSeries") == [
        {"value": "loss", "lower": "loss/lower", "upper": "loss/upper"}]
    outliers = page.locator("paper-checkbox", has_text="Ignore outliers in chart scaling").locator("visible=true")
    outliers.click()  # the y axis spans the whole band, its first steps too
    card.locator("paper-icon-button[icon='fullscreen']").click()  # the card across the page
    # vz-line-chart2 draws a margin chart's band as an area plot: one path.area per group run, its outline
    # running along the upper bound and back along the lower one, beside the path.line of the mean.
    areas = card.locator("vz-line-chart2 div.area-plot path.area")
    wait_until(lambda: areas.count() == len(GROUPS), "a band per group")
    for area in areas.all():
        area.wait_for(state="visible")
        outline = area.get_attribute("d")
        assert outline.count("L") > STEPS, outline[:200]  # both bounds of (nearly) every step
        box = area.bounding_box()
        assert box["width"] > 500 and box["height"] > 20, box
        assert area.evaluate("path => getComputedStyle(path).fill") not in ("none", "rgba(0, 0, 0, 0)")
    assert card.locator("vz-line-chart2 div.area-plot path.line").count() == len(GROUPS)

    # Hovering reads each group's mean, lower and upper bound at a step, from the group run.
    plot = card.locator("vz-line-chart2 div.area-plot")
    box = plot.bounding_box()
    plot.hover(position={"x": box["width"] / 2, "y": box["height"] / 2}, force=True)
    rows = _tooltip_rows(page)
    assert sorted(rows) == sorted(f"loss ({group})" for group in GROUPS), rows
    for name, cells in rows.items():
        mean, lower, upper = (float(cells[key]) for key in ("Value", "Lower Margin", "Upper Margin"))
        assert lower < mean < upper, (name, cells)
    page.mouse.move(0, 0)
    _quiet_tooltips(page)

    top = _heading(page, "loss").bounding_box()
    chart = card.locator("vz-line-chart2").bounding_box()
    margin = 8  # around the title and the chart, whose x axis is its bottom edge (the card's buttons follow)
    clip = {"x": chart["x"] - margin, "y": top["y"] - margin, "width": chart["width"] + 2 * margin,
            "height": chart["y"] + chart["height"] - top["y"] + margin}
    SHOT.parent.mkdir(parents=True, exist_ok=True)
    SHOT.parent.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOT), clip=clip)
    assert SHOT.stat().st_size > 20000


def _tooltip_rows(page) -> dict[str, dict[str, str]]:
    """{name: {column: text}} of the chart tooltip on show (vz-line-chart-tooltip, one per chart, in the body)."""
    tooltip = page.locator("vz-line-chart-tooltip[style*='opacity: 1']")
    tooltip.locator("tbody tr").first.wait_for(state="attached")
    columns = tooltip.locator("thead th").all_inner_texts()
    rows = [dict(zip(columns, row.locator("td").all_inner_texts())) for row in tooltip.locator("tbody tr").all()]
    return {row["Name"]: row for row in rows}


def _quiet_tooltips(page) -> None:
    wait_until(lambda: page.locator("vz-line-chart-tooltip[style*='opacity: 1']").count() == 0, "the tooltip to go")


def _last_step(server, run: str, tag: str):
    status, body = http_get(server.url + "/data/plugin/scalars/scalars?" + urlencode({"run": run, "tag": tag}))
    return json.loads(body)[-1][1] if status == 200 else None


def _runs_listed(selector) -> list[str]:
    """The runs of the run selector, in its order (each a checkbox with the id `checkbox-<run>`)."""
    ids = selector.locator("paper-checkbox").evaluate_all("boxes => boxes.map(box => box.id)")
    return [name.removeprefix("checkbox-") for name in ids]


def test_scalars_lists_the_group_runs_and_shows_new_steps_after_a_reload(served, page):
    logdir, server = served
    page.goto(server.url + "/#scalars")
    selector = page.locator("tf-runs-selector")
    selector.get_by_text(GROUPS[0], exact=True).wait_for(state="visible")
    assert sorted(_runs_listed(selector)) == sorted(GROUPS + MEMBERS)
    # Only the group runs on the charts, so that the last step shown is a group run's.
    selector.locator("#names-regex input").fill(r"\(mean\)")
    wait_until(lambda: _runs_listed(selector) == GROUPS, "the runs filtered to the group runs")

    def last_steps_shown() -> dict[str, int]:
        """{group run: step} the tooltip shows at the right end of the scalars card of `loss`."""
        cards = page.locator("tf-scalar-card")
        index = cards.evaluate_all("cards => cards.findIndex(card => card.tag === 'loss')")
        if index < 0:
            return {}
        plot = cards.nth(index).locator("vz-line-chart2 div.line-plot").first
        plot.scroll_into_view_if_needed()
        box = plot.bounding_box()
        page.mouse.move(0, 0)
        plot.hover(position={"x": box["width"] - 2, "y": box["height"] / 2}, force=True)
        return {name: int(cells["Step"]) for name, cells in _tooltip_rows(page).items()}

    wait_until(lambda: last_steps_shown() == {group: STEPS - 1 for group in GROUPS}, "the last steps shown")

    write_sweep(logdir, STEPS, STEPS + MORE_STEPS)  # every member gets the same new steps
    last = STEPS + MORE_STEPS - 1
    wait_until(lambda: _last_step(server, GROUPS[0], "loss") == last, "the server's next reload")
    page.mouse.move(0, 0)
    page.locator("app-header-reload button.reload-button").click()
    wait_until(lambda: last_steps_shown().get(GROUPS[0]) == last, "the group run's new steps in the chart")
    assert last_steps_shown() == {group: last for group in GROUPS}
