"""A real browser (headless Chromium, tests/chromium.py) on upstream's HParams dashboard, served by our launcher for
a sweep that never called add_hparams: every run's hyperparameters are discovered where sweep tools put them
(`key=value` directory names, Lightning's hparams.yaml, a Hydra job's .hydra/config.yaml). The table lists each run
with its values; the dashboard's own filters (a value of a hyperparameter unchecked, a metric's interval), its
sorting and its parallel-coordinates view work on them. A screenshot goes to artifacts/e2e_hparams_filtered.png."""
from __future__ import annotations

import re

import pytest
from chromium import browser, page  # noqa: F401 (the fixtures)
from serving_helpers import start_launcher, stop_server, wait_until
from test_browser import shot
from test_served_hparams import _groups, _post

from tensorboard import SummaryWriter

METRIC = "val/loss (min)"  # the column --hparams_metrics 'val/loss=min' adds
# run -> (the hyperparameters found for it, its lowest val/loss); no run logs add_hparams
RUNS = {
    "sweep/lr=0.01,optimizer=adam": ({"lr": 0.01, "optimizer": "adam"}, 0.30),
    "sweep/lr=0.1,optimizer=sgd": ({"lr": 0.1, "optimizer": "sgd"}, 0.60),
    "lightning_logs/version_0": ({"lr": 0.001, "optimizer": "adam"}, 0.20),
    "lightning_logs/version_1": ({"lr": 0.1, "optimizer": "adam"}, 0.50),
    "multirun/2026-11-28/10-00-00/0": ({"lr": 0.001, "optimizer": "sgd"}, 0.40),
    "multirun/2026-11-28/10-00-00/1": ({"lr": 0.01, "optimizer": "sgd"}, 0.70),
}
HPARAMS = ["lr", "optimizer"]


def _yaml(hparams: dict) -> str:
    return "".join(f"{key}: {value}\n" for key, value in hparams.items())


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    """The sweep, written by our writer: val/loss falls to the run's lowest value, then rises a little."""
    root = tmp_path_factory.mktemp("hparams-browser") / "logs"
    for run, (hparams, lowest) in RUNS.items():
        with SummaryWriter(str(root / run)) as writer:
            for step, loss in enumerate((lowest + 0.5, lowest, lowest + 0.05)):
                writer.add_scalar("val/loss", loss, step)
        if run.startswith("lightning_logs/"):  # save_hyperparameters() writes it next to the event files
            (root / run / "hparams.yaml").write_text(_yaml(hparams))
        elif run.startswith("multirun/"):  # a Hydra multirun job's composed configuration
            (root / run / ".hydra").mkdir()
            (root / run / ".hydra" / "config.yaml").write_text(_yaml(hparams))
    return root


@pytest.fixture(scope="module")
def server(logdir, tmp_path_factory):
    served = start_launcher(logdir, tmp_path_factory.mktemp("server"), "--hparams_metrics", "val/loss=min")
    try:
        # the files are read right after the first screen is served: wait until every run has its session
        wait_until(lambda: len(_groups(served.port)) == len(RUNS), "a session per run")
        yield served
    finally:
        stop_server(served)


def _runs_where(**wanted) -> list[str]:
    return sorted(run for run, (hparams, _) in RUNS.items() if all(hparams[k] == v for k, v in wanted.items()))


def _table(page) -> tuple[list[str], list[list[str]]]:
    """(column headers, rows of cell texts) of the table view as drawn: upstream's vaadin-grid renders each
    header and cell as a <slot> of its shadow table whose assigned element holds the text."""
    return page.locator("tf-hparams-table-view vaadin-grid#sessionGroupsTable").evaluate("""grid => {
        const text = cell => { const slot = cell.querySelector('slot');
            const shown = slot ? slot.assignedElements() : [];
            return shown.length ? shown[0].textContent.trim() : ''; };
        const rows = section => [...grid.shadowRoot.querySelectorAll(section + ' tr')]
            .filter(tr => !tr.hidden && getComputedStyle(tr).display !== 'none')
            .map(tr => [...tr.children].filter(cell => !cell.hidden).map(text));
        const head = rows('thead')[0] || [];
        return [head, rows('tbody#items').filter(row => row.length && row[0] !== '')];
    }""")


def _shown(page) -> dict[str, dict]:
    """{trial id: {column: cell text}} of the table view."""
    head, rows = _table(page)
    return {row[0]: dict(zip(head, row)) for row in rows}


def _pretty(number: float) -> str:
    """A number as the dashboard shows it (JavaScript's toPrecision(5): five significant digits, zeros kept)."""
    return "%#.5g" % number


def _names(page) -> list[str]:
    """The trial ids of the table view, in its order."""
    return [row[0] for row in _table(page)[1]]


def _open(page, server) -> None:
    page.goto(server.url + "/#hparams")
    wait_until(lambda: sorted(_names(page)) == sorted(RUNS), "every run in the table view")


def _exactly(text: str) -> re.Pattern:
    return re.compile(rf"^\s*{re.escape(text)}\s*$")


def _value_checkbox(page, hparam: str, value: str):
    """The query pane's checkbox of one discrete value of `hparam`."""
    block = page.locator("tf-hparams-query-pane div.hparam").filter(
        has=page.locator("paper-checkbox.hparam-checkbox", has_text=_exactly(hparam)))
    return block.locator("paper-checkbox.discrete-value-checkbox").filter(has_text=_exactly(value))


def _uncheck(page, hparam: str, value: str) -> None:
    box = _value_checkbox(page, hparam, value)
    box.click()
    wait_until(lambda: box.get_attribute("aria-checked") == "false", f"{hparam}={value} unchecked")


def _parallel_coordinates(page) -> None:
    page.locator("tf-hparams-sessions-pane paper-tab", has_text="Parallel Coordinates View").click()


def _lines(page) -> list[str]:
    """The session group names of the parallel-coordinates plot's lines on show (a brushed-out line gets the
    class invisible-path); d3 keeps each line's session group as its datum."""
    return page.locator("tf-hparams-parallel-coords-plot svg g.foreground path").evaluate_all(
        "paths => paths.filter(p => !p.classList.contains('invisible-path')"
        " && getComputedStyle(p).display !== 'none').map(p => p.__data__.name)")


def test_the_routes_serve_each_runs_discovered_hparams_and_filter_on_them(server):
    experiment = _post(server.port, "/data/plugin/hparams/experiment", {"experimentName": ""})
    domains = {info["name"]: info["domainDiscrete"] for info in experiment["hparamInfos"]}
    assert domains == {"lr": [0.001, 0.01, 0.1], "optimizer": ["adam", "sgd"]}
    groups = _groups(server.port)
    assert {name: group["hparams"] for name, group in groups.items()} == {run: h for run, (h, _) in RUNS.items()}
    for name, group in groups.items():
        assert [m["name"]["tag"] for m in group["metricValues"]] == [METRIC]
        assert group["metricValues"][0]["value"] == pytest.approx(RUNS[name][1], rel=1e-6)
    # what the dashboard asks when `sgd` is unchecked
    body = {"experimentName": "", "startIndex": 0, "sliceSize": 100, "allowedStatuses": ["STATUS_UNKNOWN"],
            "colParams": [{"hparam": "optimizer", "filterDiscrete": ["adam"], "includeInResult": True}]}
    adam = _post(server.port, "/data/plugin/hparams/session_groups", body)
    assert sorted(group["name"] for group in adam["sessionGroups"]) == _runs_where(optimizer="adam")


def test_the_table_lists_every_run_with_its_discovered_hparams(page, server):
    _open(page, server)
    head, _ = _table(page)
    assert head == ["Trial ID", "Show Metrics", *HPARAMS, METRIC]
    for run, cells in _shown(page).items():
        hparams, lowest = RUNS[run]
        assert cells["lr"] == _pretty(hparams["lr"]), (run, cells)
        assert cells["optimizer"] == hparams["optimizer"], (run, cells)
        assert float(cells[METRIC]) == pytest.approx(lowest, rel=1e-4), (run, cells)
    assert page.get_by_text("Number of matching session groups: %d" % len(RUNS)).is_visible()
    _parallel_coordinates(page)
    wait_until(lambda: sorted(_lines(page)) == sorted(RUNS), "a line per run")


def test_filters_on_discovered_hparams_leave_exactly_the_matching_runs(page, server):
    _open(page, server)
    _uncheck(page, "optimizer", "sgd")
    wait_until(lambda: sorted(_names(page)) == _runs_where(optimizer="adam"), "the adam runs only")
    _uncheck(page, "lr", _pretty(0.1))
    expected = sorted(run for run, (h, _) in RUNS.items() if h["optimizer"] == "adam" and h["lr"] != 0.1)
    assert len(expected) == 2
    wait_until(lambda: sorted(_names(page)) == expected, "the adam runs with lr below 0.1")
    page.get_by_text("Number of matching session groups: 2").wait_for(state="visible")

    # a numeric interval: the metric's Max keeps the run whose lowest val/loss is below it
    best = min(expected, key=lambda run: RUNS[run][1])
    threshold = (RUNS[expected[0]][1] + RUNS[expected[1]][1]) / 2
    page.locator("tf-hparams-query-pane div.metric paper-input[label='Max'] input").fill(str(threshold))
    wait_until(lambda: _names(page) == [best], "the run below the metric's Max")
    shot(page, "hparams_filtered")

    _parallel_coordinates(page)
    wait_until(lambda: _lines(page) == [best], "one line, the shown session's")
    axes = page.locator("tf-hparams-parallel-coords-plot svg g.axis-parent text.axis-title").all_text_contents()
    assert axes == [*HPARAMS, METRIC]


def _pick(page, label: str, item: str) -> None:
    """Choose `item` in the query pane's dropdown named `label` (Sorting's "Sort by", "Direction")."""
    menu = page.locator("tf-hparams-query-pane paper-dropdown-menu[label='%s']" % label)
    menu.click()
    menu.locator("paper-item", has_text=_exactly(item)).locator("visible=true").click()
    wait_until(lambda: menu.evaluate("menu => menu.selectedItemLabel") == item, f"{label}: {item}")


def test_sorting_by_a_column_orders_the_table(page, server):
    _open(page, server)
    by_loss = sorted(RUNS, key=lambda run: RUNS[run][1])
    assert _names(page) == sorted(RUNS) != by_loss  # unsorted, the dashboard lists the runs by name
    _pick(page, "Sort by", METRIC)
    _pick(page, "Direction", "Ascending")
    wait_until(lambda: _names(page) == by_loss, "the runs by lowest val/loss, ascending")
    _pick(page, "Direction", "Descending")
    wait_until(lambda: _names(page) == by_loss[::-1], "the runs by lowest val/loss, descending")
    _pick(page, "Sort by", "optimizer")
    wait_until(lambda: [RUNS[run][0]["optimizer"] for run in _names(page)] == ["sgd"] * 3 + ["adam"] * 3,
               "the sgd runs first")
