"""The HParams dashboard's routes on a real server (our launcher, upstream's renderer) for a sweep whose
hyperparameters live where sweep tools put them: `key=value` directory names, a Lightning hparams.yaml,
and a run that called add_hparams, served together; --hparams_metrics' best values; --where."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest
from e2e_helpers import processes, still_running
from serving_helpers import REPO, clean_env, send, start_launcher, stop_server, wait_until
from waiting import poll

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


def _sweep(root, runs=("lr=0.1,seed=1", "lr=0.01,seed=2")):
    """One point of `loss` in each run, read back by upstream's reader."""
    from upstream import upstream_read

    for run in runs:
        with SummaryWriter(str(root / run), metadata=False) as writer:
            writer.add_scalar("loss", 1.0, 0)
    seen = upstream_read(root, ("classic",))["runs"]
    assert all([point[::2] for point in seen[run]["scalars"]["loss"]] == [[0, 1.0]] for run in runs)


def _counted_discovery(monkeypatch) -> list:
    """The runs of each discovery the server runs itself (not the preload's, run in its child)."""
    from tensorboard.serving import served_hparams

    calls: list = []
    discover = served_hparams.discover_hparams
    monkeypatch.setattr(served_hparams, "discover_hparams",
                        lambda listing, *args, **kwargs: calls.append(sorted(kwargs["directories"])) or
                        discover(listing, *args, **kwargs))
    return calls


def _served_with(root, preload, where="lr < 0.05", hparams_file=None):
    from tensorboard.logdir.query import parse_query
    from tensorboard.serving import served_hparams
    from tensorboard.serving.ingester import size_guidance
    from tensorboard.serving.served_logdir import Logdir

    flags = served_hparams.HParamsFlags(hparams_file=hparams_file, where=parse_query(where, "--where"))
    hparams = served_hparams.ServedHParams(flags)
    sizes, default = size_guidance(None)
    logdir = Logdir({str(root): None}, sizes, default, after_reload=hparams.update, loaded_after_it=True)
    hparams.take_preload(preload)
    return hparams, logdir


def test_the_hparams_preload_finds_what_the_server_finds_itself(tmp_path):
    from tensorboard.serving.hparams_preload import HParamsPreload
    from tensorboard.serving.ingester import size_guidance
    from tensorboard.serving.served_hparams import HParamsFlags, ServedHParams
    from tensorboard.serving.served_logdir import Logdir

    _sweep(tmp_path, ("lr=0.1,seed=1", "b/lr=0.01/seed=2", "b/lr=0.01/seed=3/inner", "plain"))
    (tmp_path / "b" / "lr=0.01" / "hparams.yaml").write_text("optimizer: adam\nmodel:\n  width: 64\n")
    (tmp_path / "b" / "lr=0.01" / "seed=2" / "params.json").write_text('{"dropout": 0.5, "nested": {"x": [1, 2]}}')
    (tmp_path / "plain" / "hparams.yaml").write_text("lr: [unclosed\n")  # unusable: named, with its line
    preload = HParamsPreload(str(tmp_path), None)
    found = preload.result()
    sizes, default = size_guidance(None)
    logdir = Logdir({str(tmp_path): None}, sizes, default)
    with pytest.warns(UserWarning, match=r"plain.hparams.yaml, line \d") as told:
        own = ServedHParams(HParamsFlags()).discover(logdir.run_listings(logdir.listing()))
    assert found.hparams == own
    assert found.hparams["b/lr=0.01/seed=2"]["dropout"].source == "ray_tune"
    assert found.hparams["b/lr=0.01/seed=3/inner"]["optimizer"].value == "adam"
    (path, line, reason), = found.unusable
    assert str(told[0].message).startswith(f"{path}, line {line}: {reason}")
    assert preload.result() is found  # the child is waited for once


def test_the_first_update_takes_the_preload_s_discovery_and_its_parsed_files(tmp_path, monkeypatch):
    from tensorboard.logdir import hparams_sources
    from tensorboard.serving.hparams_preload import HParamsPreload

    _sweep(tmp_path)
    (tmp_path / "lr=0.1,seed=1" / "hparams.yaml").write_text("optimizer: sgd\n")
    (tmp_path / "lr=0.01,seed=2" / "hparams.yaml").write_text("optimizer: [\n")
    calls = _counted_discovery(monkeypatch)
    hparams, logdir = _served_with(tmp_path, HParamsPreload(str(tmp_path), None))
    with pytest.warns(UserWarning, match="seed=2.hparams.yaml"):  # the child's unusable file, told by the server
        logdir.reload()
    assert calls == []
    assert [run for run in logdir.runs() if hparams.wants(run)] == ["lr=0.01,seed=2"]

    read = []  # a run that appears later: the server discovers, reading only the files it has not parsed
    original = hparams_sources.read_config_bytes
    monkeypatch.setattr(hparams_sources, "read_config_bytes",
                        lambda listing, paths: read.append(sorted(paths)) or original(listing, paths))
    _sweep(tmp_path, ("lr=0.001,seed=3",))
    (tmp_path / "lr=0.001,seed=3" / "hparams.yaml").write_text("optimizer: adam\n")
    logdir.reload()
    assert len(calls) == 1 and "lr=0.001,seed=3" in calls[0]
    assert read == [[str(tmp_path / "lr=0.001,seed=3" / "hparams.yaml")]]
    assert sorted(run for run in logdir.runs() if hparams.wants(run)) == ["lr=0.001,seed=3", "lr=0.01,seed=2"]


def test_a_preload_that_misses_runs_failed_or_used_another_hparams_file_is_not_taken(tmp_path, monkeypatch, caplog):
    from tensorboard.serving import hparams_preload

    _sweep(tmp_path)
    calls = _counted_discovery(monkeypatch)
    early = hparams_preload.HParamsPreload(str(tmp_path), None)
    early.result()
    _sweep(tmp_path, ("lr=0.001,seed=3",))  # found after the child's walk
    hparams, logdir = _served_with(tmp_path, early)
    logdir.reload()
    assert len(calls) == 1 and len(calls[0]) == 3
    assert sorted(run for run in logdir.runs() if hparams.wants(run)) == ["lr=0.001,seed=3", "lr=0.01,seed=2"]

    def fails(root, hparams_file, walk=None):
        raise OSError("the disk went away")

    monkeypatch.setattr(hparams_preload, "discover_below", fails)  # in the child, forked after this
    failed = hparams_preload.HParamsPreload(str(tmp_path), None)
    hparams, logdir = _served_with(tmp_path, failed)
    logdir.reload()
    assert len(calls) == 2 and failed.result() is None
    assert "OSError: the disk went away" in caplog.text  # the child's failure is told, then the server discovers

    other = hparams_preload.HParamsPreload(str(tmp_path), None)
    hparams, logdir = _served_with(tmp_path, other, hparams_file="config.json")  # stopped, not taken
    assert other.result() is None
    logdir.reload()
    assert len(calls) == 3


def test_the_preload_lists_the_runs_from_the_child_s_walk(tmp_path, monkeypatch):
    from tensorboard.logdir import discovery
    from tensorboard.serving import hparams_preload, preload

    _sweep(tmp_path, ("lr=0.1,seed=1", "b/lr=0.01/seed=2", "plain"))
    (tmp_path / "b" / "lr=0.01" / "hparams.yaml").write_text("optimizer: adam\n")
    walks = []  # the walks this process makes (the child's is made in the child, forked after this)
    original = discovery.local_run_directories
    monkeypatch.setattr(discovery, "local_run_directories", lambda *a, **k: walks.append(a) or original(*a, **k))
    own = _listed_by_a_logdir(tmp_path)
    walks.clear()
    early = hparams_preload.HParamsPreload(str(tmp_path), None)
    work = preload.Preload(str(tmp_path), walk=early.walk())
    try:
        assert walks == []  # listed from the child's walk, not walked again
        assert work.found == own[0] and work.walked == own[1]
        assert set(early.result().hparams) == set(own[0])  # then the discovery, from the same walk
    finally:
        work.cancel()
        early.cancel()


def _listed_by_a_logdir(root) -> tuple[dict, dict]:
    """(run name -> where, the walk's configuration file names) of a Logdir that walks `root` itself."""
    from tensorboard.serving.ingester import size_guidance
    from tensorboard.serving.served_logdir import Logdir

    sizes, default = size_guidance(None)
    logdir = Logdir({str(root): None}, sizes, default)
    return logdir.listing(), logdir.walked


def test_a_child_that_fails_before_its_walk_leaves_the_preload_to_walk(tmp_path, monkeypatch, caplog):
    from tensorboard.serving import hparams_preload, preload

    _sweep(tmp_path)

    def fails(root):
        raise OSError("the disk went away")

    monkeypatch.setattr(hparams_preload, "walk_below", fails)  # in the child, forked after this
    early = hparams_preload.HParamsPreload(str(tmp_path), None)
    assert early.walk() is None and early.result() is None
    assert "walking the logdir at start-up: OSError: the disk went away" in caplog.text
    work = preload.Preload(str(tmp_path), walk=early.walk())
    try:
        assert sorted(work.found) == ["lr=0.01,seed=2", "lr=0.1,seed=1"]
    finally:
        work.cancel()


@pytest.mark.parametrize("flags, urgent", [(["--where", "lr < 1"], True), (["--over", "seed"], True),
                                            (["--hparams_file", "c.json"], False), ([], False)])
def test_the_launcher_starts_finding_hparams_at_once_at_the_lowest_priority_unless_they_decide_the_runs(
        tmp_path, monkeypatch, flags, urgent):
    from tensorboard.serving import hparams_preload, preload

    _sweep(tmp_path)
    # a child lowered to the lowest priority ends there, sending nothing (forked after this)
    monkeypatch.setattr(hparams_preload, "_lowest_priority", lambda: os._exit(3))
    preload.start_for(["--logdir", str(tmp_path), *flags])
    work = preload.take_pending(str(tmp_path))
    try:
        assert work.hparams.urgent == urgent
        found = work.hparams.result()
        assert (set(found.hparams) if urgent else found) == ({"lr=0.1,seed=1", "lr=0.01,seed=2"} if urgent else None)
    finally:
        work.cancel()


def test_a_low_priority_child_still_at_work_after_the_wait_is_stopped_and_the_server_discovers(tmp_path, monkeypatch):
    from tensorboard.serving import hparams_preload

    _sweep(tmp_path)
    calls = _counted_discovery(monkeypatch)
    never, unused = os.pipe()  # nothing is written: the child waits on it for good
    monkeypatch.setattr(hparams_preload, "discover_below", lambda root, hparams_file, walk: os.read(never, 1))
    monkeypatch.setattr(hparams_preload, "PATIENCE_S", 0.0)  # how long the server waits is not what is tested
    try:
        busy = hparams_preload.HParamsPreload(str(tmp_path), None, urgent=False)
        hparams, logdir = _served_with(tmp_path, busy)
        logdir.reload()
    finally:
        os.close(never)
        os.close(unused)
    assert busy.done() and busy.result() is None
    assert len(calls) == 1 and sorted(run for run in logdir.runs() if hparams.wants(run)) == ["lr=0.01,seed=2"]


CHILD_OF_A_SERVER = """
import os, sys
from tensorboard.serving import hparams_preload
never, unused = os.pipe()
hparams_preload.discover_below = lambda root, hparams_file, walk: os.read(never, 1)  # at work for good
print(hparams_preload.HParamsPreload(sys.argv[1], None, urgent=False).pid, flush=True)
sys.stdin.read()
"""


@pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")
def test_the_hparams_child_ends_when_its_server_is_killed(tmp_path):
    server = subprocess.Popen([sys.executable, "-c", CHILD_OF_A_SERVER, str(tmp_path)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env=clean_env(PYTHONPATH=str(REPO / "python")))
    try:
        child = int(server.stdout.readline())
        started = {pid: cmd for pid, (_, _, cmd) in processes().items() if pid == child}
    finally:
        server.kill()
        server.wait()
        server.stdin.close()
        server.stdout.close()
    try:
        assert poll(lambda: not still_running(started))
    finally:
        for pid in still_running(started):  # stopped here if the kernel did not
            os.kill(pid, signal.SIGKILL)


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


def test_the_pages_give_the_server_s_wait_for_the_child_and_its_rediscovery_period():
    from tensorboard.serving.hparams_preload import PATIENCE_S
    from tensorboard.serving.served_hparams import REDISCOVER_S

    for name in ("experiments.md", "troubleshooting.md"):
        text = " ".join((REPO / "docs" / name).read_text(encoding="utf-8").split())
        assert f"{PATIENCE_S:g} seconds" in text, name
        assert REDISCOVER_S == 60 and "at least once a minute" in text, name
