"""add_hparams records the session in the writer's own run: upstream TensorBoard's server (2.21.0,
.venv-upstream) lists one run per writer, one HParams session group per run named by the run, metric
curves with all their points (no duplicate point), and a metric without a curve as one point in the
run. run_name= keeps the tensorboardX/torch layout (a sub-run)."""
from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.parse
import urllib.request

import pytest
from upstream import upstream_python

import tensorboard
from tensorboard.logdir.hparams import hparams_frame
from tensorboard.reader._events import read_runs

RATES = (0.1, 0.01, 0.001)
STEPS = 1500  # above upstream's default 1000 scalars per series: the server keeps up to 100,000
DEADLINE_S = 180  # guards against a hang only


def final_loss(lr: float) -> float:
    return 1.0 / (1.0 + (STEPS - 1) * lr)


def write_sweep(root) -> None:
    for lr in RATES:
        with tensorboard.SummaryWriter(str(root / f"lr_{lr}")) as writer:
            for step in range(STEPS):
                writer.add_scalar("loss", 1.0 / (1.0 + step * lr), step)
                if step % 100 == 0:
                    writer.add_scalar("accuracy", 1.0 - 1.0 / (2.0 + step * lr), step)
            writer.add_hparams({"lr": lr, "optimizer": "adam"},
                               {"loss": final_loss(lr), "accuracy": 0.5, "best_epoch": 7.0}, global_step=STEPS - 1)
    with tensorboard.SummaryWriter(str(root / "legacy")) as writer:  # tensorboardX's layout, asked for
        for step in range(10):
            writer.add_scalar("loss", 1.0 / (step + 1), step)
        writer.add_hparams({"lr": 0.5, "optimizer": "sgd"}, {"loss": 0.1}, run_name="trial")


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    root = tmp_path_factory.mktemp("hparams-sweep")
    write_sweep(root)
    return root


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Upstream:
    def __init__(self, port: int):
        self.url = f"http://127.0.0.1:{port}"

    def get(self, path: str):
        with urllib.request.urlopen(self.url + path, timeout=30) as resp:
            return json.loads(resp.read())

    def post(self, path: str, body: dict):
        request = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json", "X-XSRF-Protected": "1"})
        with urllib.request.urlopen(request, timeout=30) as resp:
            return json.loads(resp.read())


@pytest.fixture(scope="module")
def server(sweep, tmp_path_factory):
    """Upstream TensorBoard 2.21.0's own server (.venv-upstream), Python loader, every scalar kept."""
    port = _free_port()
    log = open(tmp_path_factory.mktemp("upstream-server") / "server.log", "w+")
    proc = subprocess.Popen([upstream_python(), "-m", "tensorboard.main", "--logdir", str(sweep), "--host", "127.0.0.1",
                             "--port", str(port), "--load_fast=false", "--reload_interval=1",
                             "--samples_per_plugin", "scalars=100000"],
                            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": ""},
                            start_new_session=True)
    try:
        srv = Upstream(port)
        deadline = time.monotonic() + DEADLINE_S
        while True:  # until every run's curve is loaded to its end (runs are listed before they are read)
            try:
                if all(len(_scalars(srv, f"lr_{lr}", "loss")) == STEPS for lr in RATES) and \
                        len(_scalars(srv, "legacy", "loss")) == 10 and _sessions_loaded(srv):
                    break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise AssertionError(f"upstream server did not load the logdir:\n{log.read()[-3000:]}")
            time.sleep(0.3)
        yield srv
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=60)
        log.close()


def _sessions_loaded(server) -> bool:
    """Every run's session group is served with its metrics (the sessions' files are read to their ends)."""
    groups = _session_groups(server)
    return sorted(groups) == sorted([f"lr_{lr}" for lr in RATES] + ["legacy/trial"]) and \
        all(group["metricValues"] for group in groups.values())


def test_one_run_per_writer(server):
    assert sorted(server.get("/data/runs")) == sorted([f"lr_{lr}" for lr in RATES] + ["legacy", "legacy/trial"])


def _session_groups(server) -> dict:
    body = {"experimentName": "", "startIndex": 0, "sliceSize": 100, "colParams": [],
            "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"]}
    groups = server.post("/data/plugin/hparams/session_groups", body)["sessionGroups"]
    return {group["name"]: group for group in groups}


def test_one_session_group_per_run_named_by_the_run(server):
    groups = _session_groups(server)
    assert sorted(groups) == sorted([f"lr_{lr}" for lr in RATES] + ["legacy/trial"])
    for lr in RATES:
        group = groups[f"lr_{lr}"]
        assert [s["name"] for s in group["sessions"]] == [f"lr_{lr}"]
        assert group["hparams"] == {"lr": lr, "optimizer": "adam"}
        metrics = {m["name"]["tag"]: m["value"] for m in group["metricValues"]}
        assert metrics["loss"] == pytest.approx(final_loss(lr), rel=1e-6)  # the curve's last point
        assert metrics["best_epoch"] == 7.0


def test_experiment_lists_the_hparams_and_metrics(server):
    experiment = server.post("/data/plugin/hparams/experiment", {"experimentName": ""})
    assert {h["name"] for h in experiment["hparamInfos"]} == {"lr", "optimizer"}
    assert {"loss", "accuracy", "best_epoch"} <= {m["name"]["tag"] for m in experiment["metricInfos"]}


def _scalars(server, run: str, tag: str) -> list:
    query = urllib.parse.urlencode({"run": run, "tag": tag})
    return server.get(f"/data/plugin/scalars/scalars?{query}")


def test_metric_curves_keep_every_point_and_gain_none(server):
    for lr in RATES:
        points = _scalars(server, f"lr_{lr}", "loss")
        assert [step for _, step, _ in points] == list(range(STEPS))  # no duplicate at the hparams' step
        assert [step for _, step, _ in _scalars(server, f"lr_{lr}", "accuracy")] == list(range(0, STEPS, 100))


def test_a_metric_without_a_curve_is_one_point_in_the_run(server):
    for lr in RATES:
        assert [(step, value) for _, step, value in _scalars(server, f"lr_{lr}", "best_epoch")] == [(STEPS - 1, 7.0)]


def test_run_name_keeps_the_sub_run_layout(server):
    assert [value for _, _, value in _scalars(server, "legacy/trial", "loss")] == [pytest.approx(0.1)]


def test_hparams_table_one_row_per_run_with_final_metrics(sweep):
    frame = hparams_frame(read_runs(sweep)).set_index("run")
    assert sorted(frame.index) == sorted([f"lr_{lr}" for lr in RATES] + ["legacy/trial"])
    for lr in RATES:
        row = frame.loc[f"lr_{lr}"]
        assert row["lr"] == lr and row["optimizer"] == "adam"
        assert row["loss"] == pytest.approx(final_loss(lr), rel=1e-6)
        assert row["best_epoch"] == 7.0
    assert frame.loc["legacy/trial", "loss"] == pytest.approx(0.1)
    from tensorboard.report import hparams_table

    assert hparams_table(sweep, runs="^lr_").set_index("run").equals(frame.drop(index="legacy/trial"))


def test_a_second_trial_on_one_writer_goes_to_a_sub_run_with_a_warning(tmp_path):
    """tensorboardX scripts that log every trial through one writer keep working: the first session
    is the run's own, a later one with other hparams gets a time-stamped sub-run, as tensorboardX's."""
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("loss", 1.0, 0)
        writer.add_hparams({"lr": 0.1}, {"loss": 1.0})
        writer.add_hparams({"lr": 0.1}, {"loss": 0.5})  # the same hparams again: the same run
        with pytest.warns(UserWarning, match="goes to a time-stamped sub-run"):
            writer.add_hparams({"lr": 0.2}, {"loss": 0.25})
    rows = {row["run"]: row for row in hparams_frame(read_runs(tmp_path)).to_dict("records")}
    assert len(rows) == 2 and rows["."]["lr"] == 0.1 and rows["."]["loss"] == 1.0  # the own curve's last point
    (sub,) = [name for name in rows if name != "."]
    assert rows[sub]["lr"] == 0.2 and rows[sub]["loss"] == 0.25
