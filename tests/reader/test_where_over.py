"""The reader's where=, over= and hparams_file= beside runs=, and `reduce --over` telling about what it
can't group well: runs with and without add_hparams selected together."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tensorboard import SummaryWriter
from tensorboard.reader import SummaryReader

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture()
def logdir(tmp_path):
    for lr in (0.01, 0.1):
        for seed in (1, 2):
            with SummaryWriter(str(tmp_path / f"lr={lr}" / f"seed={seed}")) as writer:
                for step in range(4):
                    writer.add_scalar("loss", lr + seed + step, step)
    with SummaryWriter(str(tmp_path / "logged")) as writer:  # add_hparams only
        writer.add_hparams({"lr": 0.01, "seed": 3, "note": "x"}, {"hp/score": 0.0}, run_name=".")
        writer.add_scalar("loss", 9.0, 0)
    (tmp_path / "logged" / "exp.toml").write_text("batch = 32\n")
    return tmp_path


def test_where_selects_runs_with_and_without_add_hparams(logdir):
    reader = SummaryReader(str(logdir), where="lr == 0.01", extra_columns={"dir_name"})
    assert sorted(set(reader.scalars.dir_name)) == ["logged", "lr=0.01/seed=1", "lr=0.01/seed=2"]
    both = SummaryReader(str(logdir), where="lr == 0.01", runs="seed", exclude="seed=2", extra_columns={"dir_name"})
    assert sorted(set(both.scalars.dir_name)) == ["lr=0.01/seed=1"]
    named = SummaryReader(str(logdir), where="batch >= 32", hparams_file="exp.toml")
    table = named.hparams_table
    assert list(table.run) == ["logged"] and list(table.batch) == [32] and list(table.note) == ["x"]


def test_over_groups_and_the_table_called_with_metrics(logdir):
    reader = SummaryReader(str(logdir), over="seed")
    assert reader.groups == {"lr=0.01,note=x": ["logged"], "lr=0.01": ["lr=0.01/seed=1", "lr=0.01/seed=2"],
                             "lr=0.1": ["lr=0.1/seed=1", "lr=0.1/seed=2"]}
    best = reader.hparams_table("loss=max")
    assert dict(zip(best.run, best["loss (max)"])) == {"logged": 9.0, "lr=0.01/seed=1": pytest.approx(4.01),
                                                       "lr=0.01/seed=2": pytest.approx(5.01),
                                                       "lr=0.1/seed=1": pytest.approx(4.1),
                                                       "lr=0.1/seed=2": pytest.approx(5.1)}
    assert SummaryReader(str(logdir)).groups == {}


@pytest.mark.parametrize("kwargs, message", [
    ({"where": "lr <"}, "where 'lr <': at column 5"),
    ({"where": "depth > 1"}, "no run has a hyperparameter 'depth' (at column 1); the keys are: lr, note, seed"),
    ({"over": "sed"}, "over: no run has a hyperparameter 'sed'; the keys are: lr, note, seed"),
    ({"over": ""}, "over '': expected one or more hyperparameter names"),
    ({"hparams_file": "../x.json"}, "hparams_file '../x.json': expected a file name relative"),
    ({"where": 3}, "where must be a string"),
])
def test_bad_where_over_hparams_file_name_the_argument(logdir, kwargs, message):
    with pytest.raises((ValueError, TypeError)) as caught:
        SummaryReader(str(logdir), **kwargs)
    assert message in str(caught.value)


def reduce(*args):
    return subprocess.run([sys.executable, "-m", "tensorboard.cli.reduce", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO / "python")})


def test_reduce_over_notes_groups_of_one_and_group_by_notes_mixed_groups(logdir, tmp_path_factory):
    out = tmp_path_factory.mktemp("out")
    done = reduce("--logdir", logdir, "--over", "seed", "--out", out / "a")
    assert done.returncode == 0, done.stderr
    assert "note: 1 of 3 groups hold one run (logged)" in done.stderr
    assert sorted(os.listdir(out / "a")) == ["lr=0.01", "lr=0.01,note=x", "lr=0.1"]
    mixed = reduce("--logdir", logdir, "--group_by", "^[^/]+/", "--exclude", "logged", "--out", out / "b")
    assert mixed.returncode == 0, mixed.stderr
    assert "note: group 'seed=1' holds runs that differ in lr" in mixed.stderr
    refused = reduce("--logdir", logdir, "--over", "seed", "--group_by", "x", "--out", out / "c")
    assert refused.returncode == 2 and "not both" in refused.stderr
    nothing = reduce("--logdir", logdir, "--where", "lr > 1", "--out", out / "d")
    assert nothing.returncode == 1 and "no run to reduce matches --where 'lr > 1'" in nothing.stderr
