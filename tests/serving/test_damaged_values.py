"""A damaged value spoils only itself when served: a logdir of healthy runs plus one run per kind of damage
(tests/robustness/damaged_values.py: wrong shapes, wrong dtypes, huge declared shapes, empty tensors, bad plugin
content, bytes that are no Event), each damaged run also holding healthy tags. Served by our reader (the default),
every route of every healthy tag and run answers exactly as on the same logdir without the damaged values, and
the damage is logged once per file and tag."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from e2e_helpers import get_json, stop_server
from serving_helpers import start_launcher

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "robustness"))
from damaged_values import CASES, write_logdir  # noqa: E402


@pytest.fixture(scope="module")
def servers(tmp_path_factory):
    """(damaged logdir's server, clean twin's server), both through our reader (the default). Upstream's Python
    loader is no reference here: a record that is no Event ends its reload thread, and every run with it."""
    tmp = tmp_path_factory.mktemp("damaged")
    started = []
    try:
        for damaged in (True, False):
            logdir = write_logdir(tmp / ("damaged" if damaged else "clean"), damaged)
            started.append(start_launcher(logdir, tmp))
        yield tuple(started)
    finally:
        for server in started:
            stop_server(server)


def healthy_view(server) -> dict:
    """Every route's answer for the healthy tags ("loss", "weights", "notes") of every run."""
    from urllib.parse import quote

    runs = sorted(get_json(f"{server.url}/data/runs"))
    view = {"runs": runs}
    for run in runs:
        q = quote(run)
        view[run] = {
            "scalars": get_json(f"{server.url}/data/plugin/scalars/scalars?run={q}&tag=loss"),
            "histograms": get_json(f"{server.url}/data/plugin/histograms/histograms?run={q}&tag=weights"),
            "text": get_json(f"{server.url}/data/plugin/text/text?run={q}&tag=notes"),
        }
    for plugin in ("scalars", "histograms", "text"):
        tags = get_json(f"{server.url}/data/plugin/{plugin}/tags")
        view[plugin + "_tags"] = {run: sorted(tag for tag in tags.get(run, {}) if tag != "bad") for run in runs}
    return view


def test_damaged_values_spoil_only_themselves(servers):
    from waiting import eventually

    damaged, clean = servers
    expected = ["b_good", "c_good"] + sorted(f"bad_{case}" for case in CASES)
    assert eventually(lambda: get_json(f"{clean.url}/data/runs") and
                      sorted(get_json(f"{clean.url}/data/runs")) == sorted(expected))
    assert eventually(lambda: sorted(get_json(f"{damaged.url}/data/runs")) == sorted(expected))
    got, want = healthy_view(damaged), healthy_view(clean)
    assert got["runs"] == want["runs"]
    for run in want["runs"]:
        for kind in ("scalars", "histograms"):  # [wall time, step, value]: the logdirs were written at other times
            assert [point[1:] for point in got[run][kind]] == [point[1:] for point in want[run][kind]], (run, kind)
        assert [(p["step"], p["text"]) for p in got[run]["text"]] == [(p["step"], p["text"]) for p in want[run]["text"]]
    for plugin in ("scalars", "histograms", "text"):
        assert got[plugin + "_tags"] == want[plugin + "_tags"], plugin


def test_the_damage_is_logged_once_per_file_and_tag(servers):
    from waiting import eventually

    damaged, _ = servers
    assert eventually(lambda: "a damaged value is left out" in damaged.log())
    lines = [line for line in damaged.log().splitlines() if "a damaged value is left out" in line]
    named = {re.search(r"bad_(\w+)/", line).group(1) for line in lines}
    assert named == set(CASES) - {"not_an_event"}, named  # that one is a damaged record: the file is cut there
    assert len(lines) == len(set(lines)), lines  # once, though the server reloads
