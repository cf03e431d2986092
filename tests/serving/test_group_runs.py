"""`tensorboard --group_runs REGEX` and `--over KEYS` (and --runs, --exclude, --where) on our provider: beside
its members, each group is served as one run holding the members' mean and mean ± std, a Custom Scalars
margin chart per tag, new member points at the next reload; the flags pick our reader or say in one line
why they can't."""
from __future__ import annotations

import json
import subprocess
import sys
from urllib.parse import urlencode

import numpy as np
import pytest
from e2e_helpers import clean_env, http_get, stop_server
from serving_helpers import DEADLINE_S, HERE, start_launcher, wait_until
from stats.seeds import write_seeds

import tensorboard


@pytest.fixture
def sweep(tmp_path):
    written = write_seeds(tmp_path / "sweep", configs=("lr0.1", "lr0.01"), seeds=3, tags=("loss",), steps=40)
    return tmp_path / "sweep", written


def scalars(server, run, tag):
    status, body = http_get(server.url + "/data/plugin/scalars/scalars?" + urlencode({"run": run, "tag": tag}))
    return json.loads(body) if status == 200 else None


def test_each_group_is_served_as_its_mean_and_band(sweep, tmp_path):
    logdir, written = sweep
    server = start_launcher(logdir, tmp_path, "--group_runs", r"_seed\d+")
    try:
        assert "through standalone TensorBoard's reader (--data_provider=standalone)" in server.log()
        wait_until(lambda: "lr0.01 (mean)" in server.get("/data/runs"), "the group runs")
        assert sorted(server.get("/data/runs")) == sorted(
            [f"lr0.1_seed{k}" for k in range(3)] + [f"lr0.01_seed{k}" for k in range(3)] + ["lr0.1 (mean)",
                                                                                           "lr0.01 (mean)"])
        members = np.array([written[f"lr0.01_seed{k}"]["loss"] for k in range(3)])
        mean = scalars(server, "lr0.01 (mean)", "loss")
        assert [point[1] for point in mean] == list(range(40))
        np.testing.assert_allclose([point[2] for point in mean], members.mean(axis=0), rtol=1e-12)
        upper = [point[2] for point in scalars(server, "lr0.01 (mean)", "loss/upper")]
        np.testing.assert_allclose(upper, members.mean(axis=0) + members.std(axis=0, ddof=1), rtol=1e-12)
        layout = server.get("/data/plugin/custom_scalars/layout")
        (category,) = layout["category"]
        assert category["chart"] == [{"title": "loss", "margin": {"series": [
            {"value": "loss", "lower": "loss/lower", "upper": "loss/upper"}]}}]
        with tensorboard.SummaryWriter(logdir / "lr0.01_seed0") as writer:  # the group follows its members
            for step in range(40, 45):
                writer.add_scalar("loss", 1.0, step)
        with tensorboard.SummaryWriter(logdir / "lr0.01_seed1") as writer:
            for step in range(40, 45):
                writer.add_scalar("loss", 2.0, step)
        with tensorboard.SummaryWriter(logdir / "lr0.01_seed2") as writer:
            for step in range(40, 45):
                writer.add_scalar("loss", 6.0, step)
        wait_until(lambda: scalars(server, "lr0.01 (mean)", "loss")[-1][1] == 44, "the next reload")
        assert scalars(server, "lr0.01 (mean)", "loss")[-1][2] == 3.0
    finally:
        stop_server(server)


def test_over_groups_the_runs_where_keeps_by_their_configuration(tmp_path):
    logdir = tmp_path / "sweep"
    losses = {}
    for lr in (0.01, 0.1, 1.0):
        for seed in (1, 2, 3):
            run = f"lr={lr},seed={seed}"
            losses[run] = [lr * 10 + seed + step / 10 for step in range(5)]
            with tensorboard.SummaryWriter(logdir / run, metadata=False) as writer:
                for step, loss in enumerate(losses[run]):
                    writer.add_scalar("loss", loss, step)
    with tensorboard.SummaryWriter(logdir / "lr=0.5,seed=1", metadata=False) as writer:  # a group of one
        writer.add_scalar("loss", 1.0, 0)
    server = start_launcher(logdir, tmp_path, "--over", "seed", "--where", "lr < 1")
    try:
        # --over decides what is served: the first screen already holds the groups
        wait_until(lambda: server.get("/data/runs"), "the runs")
        assert sorted(server.get("/data/runs")) == sorted(
            [f"lr={lr},seed={seed}" for lr in (0.01, 0.1) for seed in (1, 2, 3)] +
            ["lr=0.5,seed=1", "lr=0.01 (mean)", "lr=0.1 (mean)"])
        mean = scalars(server, "lr=0.1 (mean)", "loss")
        members = np.array([losses[f"lr=0.1,seed={seed}"] for seed in (1, 2, 3)])
        assert [point[1] for point in mean] == list(range(5))
        np.testing.assert_allclose([point[2] for point in mean], members.mean(axis=0), rtol=1e-6)
        lower = [point[2] for point in scalars(server, "lr=0.1 (mean)", "loss/lower")]
        np.testing.assert_allclose(lower, members.mean(axis=0) - members.std(axis=0, ddof=1), rtol=1e-6)
        wait_until(lambda: "--over: 1 of 3 groups hold one run (lr=0.5,seed=1)" in server.log(), "the note")
    finally:
        stop_server(server)


def test_runs_and_exclude_pick_the_runs_served(sweep, tmp_path):
    logdir, _ = sweep
    server = start_launcher(logdir, tmp_path, "--runs", "^lr0\\.1_", "--exclude", "seed2$")
    try:
        wait_until(lambda: server.get("/data/runs"), "the runs")
        assert sorted(server.get("/data/runs")) == ["lr0.1_seed0", "lr0.1_seed1"]
    finally:
        stop_server(server)


@pytest.mark.parametrize("flags,message", [
    (["--group_runs", "x", "--data_provider=native"],
     "--group_runs is served by standalone TensorBoard's reader, not by --data_provider=native"),
    (["--runs", "("], "--runs '(' is not a valid regex"),
    (["--over", "seed", "--group_runs", "x"], "give --group_runs (a regex over run names) or --over"),
    (["--over", ","], "--over ',': expected one or more hyperparameter names"),
])
def test_flags_our_reader_alone_serves_are_refused_elsewhere_in_one_line(tmp_path, flags, message):
    result = subprocess.run([sys.executable, str(HERE / "run_launcher.py"), "--logdir", str(tmp_path), "--port", "0",
                             *flags], capture_output=True, text=True, timeout=DEADLINE_S, env=clean_env(),
                            stdin=subprocess.DEVNULL)
    assert result.returncode != 0
    assert message in result.stderr
