"""The HParams dashboard's routes on a real server (our launcher, upstream's renderer) for a sweep whose
hyperparameters live where sweep tools put them: `key=value` directory names, a Lightning hparams.yaml,
and a run that called add_hparams, served together; --hparams_metrics' best values; --where."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from serving_helpers import REPO, clean_env, send, start_launcher, stop_server, wait_until

from tensorboard import SummaryWriter

LOSSES = {"sweep/lr=0.1,seed=1": [0.9, 0.4, 0.6], "sweep/lr=0.01,seed=2": [0.8, 0.7, 0.75], "logged": [0.5, 0.3, 0.35]}


@pytest.fixture(scope="module")
def logdir(tmp_path_factory):
    root = tmp_path_factory.mktemp("hparams") / "logs"
    for run, losses in LOSSES.items():
        with SummaryWriter(str(root / run), metadata=False) as writer:
            for step, loss in enumerate(losses):
                writer.add_scalar("val/loss", loss, step)
                writer.add_scalar("val/acc", 1.0 - loss, step)
            if run == "logged":
                writer.add_hparams({"lr": 0.5, "optimizer": "sgd"}, {"val/loss": losses[-1]})
    (root / "sweep" / "lr=0.01,seed=2" / "hparams.yaml").write_text("optimizer: adam\nmodel:\n  width: 64\n")
    return root


def _post(port: int, route: str, body: dict) -> dict:
    status, _, data = send(port, route, method="POST", body=json.dumps(body).encode(),
                           headers={"Content-Type": "application/json"})
    assert status == 200, data[:500]
    return json.loads(data)


def _groups(port: int) -> dict:
    body = {"experimentName": "", "startIndex": 0, "sliceSize": 100, "colParams": [],
            "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"]}
    return {group["name"]: group for group in _post(port, "/data/plugin/hparams/session_groups", body)["sessionGroups"]}


def _runs(port: int) -> list[str]:
    status, _, body = send(port, "/data/runs")
    assert status == 200
    return sorted(json.loads(body))


@pytest.fixture(scope="module")
def server(logdir, tmp_path_factory):
    served = start_launcher(logdir, tmp_path_factory.mktemp("server"), "--hparams_metrics", "val/loss=min,val/acc")
    try:
        wait_until(lambda: len(_runs(served.port)) == 3, "the three runs served")
        # the hparams are found right after the first screen is served (without --where, it does not wait)
        wait_until(lambda: "seed" in {info["name"] for info in _post(served.port, "/data/plugin/hparams/experiment",
                                                                     {"experimentName": ""}).get("hparamInfos", [])},
                   "the discovered hparams served (seed: only a directory name holds it)")
        yield served
    finally:
        stop_server(served)


def test_every_source_reaches_the_dashboard_as_add_hparams_would(server):
    experiment = _post(server.port, "/data/plugin/hparams/experiment", {"experimentName": ""})
    assert {info["name"] for info in experiment["hparamInfos"]} == {"lr", "seed", "optimizer", "model.width"}
    assert [m["name"]["tag"] for m in experiment["metricInfos"]] == ["val/loss (min)", "val/acc"]
    groups = wait_until(lambda: (found := _groups(server.port)) and len(found) == 3 and found, "three sessions")
    assert groups["sweep/lr=0.1,seed=1"]["hparams"] == {"lr": 0.1, "seed": 1.0}
    assert groups["sweep/lr=0.01,seed=2"]["hparams"] == {"lr": 0.01, "seed": 2.0, "optimizer": "adam",
                                                         "model.width": 64.0}
    assert groups["logged"]["hparams"] == {"lr": 0.5, "optimizer": "sgd"}


def test_a_best_value_is_the_lowest_point_and_last_stays_the_last(server):
    groups = _groups(server.port)
    for run, losses in LOSSES.items():
        metrics = {m["name"]["tag"]: m["value"] for m in groups[run]["metricValues"]}
        assert metrics["val/loss (min)"] == pytest.approx(min(losses), rel=1e-6)
        assert metrics["val/acc"] == pytest.approx(1.0 - losses[-1], rel=1e-6)


def test_the_scalars_dashboard_gains_no_tag(server):
    status, _, body = send(server.port, "/data/plugin/scalars/tags")
    assert status == 200
    assert {tag for tags in json.loads(body).values() for tag in tags} == {"val/loss", "val/acc"}  # no "(min)"


def test_where_serves_the_runs_whose_hparams_match(logdir, tmp_path):
    served = start_launcher(logdir, tmp_path, "--where", 'lr < 0.2 and optimizer != "sgd"')
    try:
        # a run lacking `optimizer` matches no comparison on it, != included
        wait_until(lambda: _runs(served.port) == ["sweep/lr=0.01,seed=2"], "only the adam run with lr < 0.2")
    finally:
        stop_server(served)


def test_a_bad_query_stops_the_server_with_one_line_naming_the_flag(logdir):
    done = subprocess.run([sys.executable, str(REPO / "tests" / "serving" / "run_launcher.py"), "--logdir",
                           str(logdir), "--port", "0", "--where", "lr <"], capture_output=True, text=True, timeout=300,
                          env=clean_env())
    assert done.returncode != 0
    assert "--where" in done.stderr and "Traceback" not in done.stderr


def test_the_first_update_takes_the_discovery_begun_before_the_read_unless_runs_appeared(tmp_path, monkeypatch):
    from tensorboard.logdir.query import parse_query
    from tensorboard.serving import served_hparams
    from tensorboard.serving.ingester import size_guidance
    from tensorboard.serving.served_logdir import Logdir

    calls = []
    discover = served_hparams.discover_hparams
    monkeypatch.setattr(served_hparams, "discover_hparams",
                        lambda listing, *args, **kwargs: calls.append(sorted(kwargs["directories"])) or
                        discover(listing, *args, **kwargs))
    for run in ("lr=0.1,seed=1", "lr=0.01,seed=2"):
        with SummaryWriter(str(tmp_path / run), metadata=False) as writer:
            writer.add_scalar("loss", 1.0, 0)
    hparams = served_hparams.ServedHParams(served_hparams.HParamsFlags(where=parse_query("lr < 0.05", "--where")))
    sizes, default = size_guidance(None)
    logdir = Logdir({str(tmp_path): None}, sizes, default, after_reload=hparams.update, loaded_after_it=True)
    hparams.prefetch(logdir.run_listings(logdir.listing()))
    logdir.reload()
    assert calls == [["lr=0.01,seed=2", "lr=0.1,seed=1"]]  # the prefetch's, taken by the first update
    assert [run for run in logdir.runs() if hparams.wants(run)] == ["lr=0.01,seed=2"]

    calls.clear()  # a run that appears after the prefetch began: the update discovers again
    hparams.prefetch(logdir.run_listings(logdir.listing()))
    with SummaryWriter(str(tmp_path / "lr=0.001,seed=3"), metadata=False) as writer:
        writer.add_scalar("loss", 1.0, 0)
    logdir.reload()
    assert len(calls) == 2 and "lr=0.001,seed=3" in calls[1]
    assert sorted(run for run in logdir.runs() if hparams.wants(run)) == ["lr=0.001,seed=3", "lr=0.01,seed=2"]


def test_the_served_hparams_take_config_file_names_from_the_reload_s_walk(tmp_path, monkeypatch):
    from tensorboard.logdir import hparams_sources
    from tensorboard.serving import served_hparams
    from tensorboard.serving.ingester import size_guidance
    from tensorboard.serving.served_logdir import Logdir

    for run in ("lr=0.1/0", "lr=0.01/1"):
        with SummaryWriter(str(tmp_path / run), metadata=False) as writer:
            writer.add_scalar("loss", 1.0, 0)
    (tmp_path / "lr=0.1" / "0" / "hparams.yaml").write_text("seed: 3\n")
    (tmp_path / "lr=0.01" / ".hydra").mkdir()
    (tmp_path / "lr=0.01" / ".hydra" / "config.yaml").write_text("optimizer: adam\n")
    hparams = served_hparams.ServedHParams(served_hparams.HParamsFlags())
    sizes, default = size_guidance(None)
    logdir = Logdir({str(tmp_path): None}, sizes, default, after_reload=hparams.update)
    listed = []
    listdir = hparams_sources.os.listdir
    monkeypatch.setattr(hparams_sources.os, "listdir", lambda path: listed.append(path) or listdir(path))
    logdir.reload()
    assert listed == []  # each directory's file names come from the walk that found the runs
    from tensorboard.plugins.hparams import plugin_data_pb2

    def served(run):
        content = hparams.contents(run)[served_hparams.SESSION_START_INFO_TAG]
        start = plugin_data_pb2.HParamsPluginData.FromString(content).session_start_info
        return {key: getattr(value, value.WhichOneof("kind")) for key, value in start.hparams.items()}

    assert served("lr=0.1/0") == {"seed": 3.0, "lr": 0.1}
    assert served("lr=0.01/1") == {"optimizer": "adam", "lr": 0.01}
