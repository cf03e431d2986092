"""Real sweeps, every front door: a Hydra `--multirun` of a small script (hydra-core from PyPI) and Ray
Tune's documented trial layout (params.json, result.json, progress.csv and the event file in each trial
directory; the real library needs a cluster start too heavy for the test budget on 2 cores). The reader
(`where`, `over`, `hparams_table`, `hparams_sources`), `tensorboard export --where`, `tensorboard reduce
--over` and `tensorboard runs ls` are checked against them."""
import csv
import io
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from upstream import upstream_read

from tensorboard import SummaryWriter
from tensorboard.reader import SummaryReader

REPO = Path(__file__).resolve().parents[2]

TRAIN = textwrap.dedent("""
    import math
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from tensorboard import SummaryWriter

    @hydra.main(version_base="1.3", config_path=".", config_name="config")
    def train(cfg):
        out = HydraConfig.get().runtime.output_dir
        with SummaryWriter(out + "/tb") as writer:
            for step in range(1, 6):
                loss = cfg.optimizer.lr * 10 + cfg.seed / 100 + 1.0 / step
                writer.add_scalar("val/loss", loss, step)
                writer.add_scalar("val/acc", 1 - loss / 10, step)

    if __name__ == "__main__":
        train()
""")

CONFIG = "seed: 0\nepochs: 5\noptimizer:\n  name: adam\n  lr: 0.001\n"


def run_module(module, *args, cwd=None):
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(REPO / "python")})


@pytest.fixture(scope="module")
def hydra_sweep(tmp_path_factory):
    pytest.importorskip("hydra")
    work = tmp_path_factory.mktemp("hydra")
    (work / "train.py").write_text(TRAIN)
    (work / "config.yaml").write_text(CONFIG)
    sweep = work / "multirun"
    done = subprocess.run([sys.executable, "train.py", "--multirun", "optimizer.lr=0.01,0.1", "seed=1,2",
                           f"hydra.sweep.dir={sweep}", "hydra/job_logging=disabled", "hydra/hydra_logging=disabled"],
                          cwd=work, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PYTHONPATH": str(REPO / "python")})
    assert done.returncode == 0, done.stderr[-3000:]
    return sweep


def test_hydra_jobs_hparams_in_the_reader_with_their_sources(hydra_sweep):
    reader = SummaryReader(str(hydra_sweep))
    table = reader.hparams_table.sort_values(["optimizer.lr", "seed"])
    assert list(table["run"]) == ["0/tb", "1/tb", "2/tb", "3/tb"]
    assert list(table["optimizer.lr"]) == [0.01, 0.01, 0.1, 0.1] and list(table["seed"]) == [1, 2, 1, 2]
    assert set(table["optimizer.name"]) == {"adam"} and set(table["epochs"]) == {5}
    assert list(table.columns[-2:]) == ["val/loss", "val/acc"]  # the scalar tags every run shares, last values
    sources = reader.hparams_sources
    assert set(sources["source"]) == {"hydra"}
    assert all(origin.endswith(os.path.join(".hydra", "config.yaml")) for origin in sources["origin"])
    best = reader.hparams_table(metrics={"val/loss": "min", "val/acc": "max"}).sort_values(["optimizer.lr", "seed"])
    assert list(best["val/loss (min)"]) == pytest.approx([0.1 + 0.01 + 0.2, 0.1 + 0.02 + 0.2, 1 + 0.01 + 0.2,
                                                         1 + 0.02 + 0.2], rel=1e-6)


def test_hydra_where_and_over_in_the_reader_export_reduce_and_runs(hydra_sweep, tmp_path):
    chosen = SummaryReader(str(hydra_sweep), where="optimizer.lr < 0.05 and optimizer.name == 'adam'", over="seed",
                           extra_columns={"dir_name"})
    assert sorted(set(chosen.scalars["dir_name"])) == ["0/tb", "1/tb"] and chosen.groups == {"all": ["0/tb", "1/tb"]}
    grouped = SummaryReader(str(hydra_sweep), over=["seed"])
    assert grouped.groups == {"optimizer.lr=0.01": ["0/tb", "1/tb"], "optimizer.lr=0.1": ["2/tb", "3/tb"]}

    out = tmp_path / "table.csv"
    done = run_module("tensorboard.cli.export", "--logdir", hydra_sweep, "--out", out, "--where", "seed == 2")
    assert done.returncode == 0, done.stderr
    assert sorted({row["run"] for row in csv.DictReader(out.open())}) == ["1/tb", "3/tb"]

    reduced = tmp_path / "reduced"
    done = run_module("tensorboard.cli.reduce", "--logdir", hydra_sweep, "--out", reduced, "--over", "seed")
    assert done.returncode == 0, done.stderr
    assert "note:" not in done.stderr  # every group holds two seeds and nothing else differs
    runs = upstream_read(reduced)["runs"]
    assert sorted(runs) == ["optimizer.lr=0.01/band", "optimizer.lr=0.01/mean", "optimizer.lr=0.1/band",
                            "optimizer.lr=0.1/mean"]
    mean = [value for _, _, value in runs["optimizer.lr=0.1/mean"]["scalars"]["val/loss"]]
    assert mean == pytest.approx([1 + 0.015 + 1.0 / step for step in range(1, 6)], rel=1e-6)

    listed = run_module("tensorboard.cli.runs", "ls", hydra_sweep, "--format", "csv", "--metrics", "val/loss=min")
    rows = list(csv.DictReader(io.StringIO(listed.stdout)))
    assert [(r["run"], r["optimizer.lr"], r["seed"]) for r in rows] == [
        ("0/tb", "0.01", "1"), ("1/tb", "0.01", "2"), ("2/tb", "0.1", "1"), ("3/tb", "0.1", "2")]
    assert "epochs" not in rows[0]  # the same in every run: not shown by default


def write_ray_trial(experiment, index, lr, momentum):
    """One trial directory as Ray Tune documents it (tune's default trial dirname, params.json,
    result.json lines, progress.csv, the TBX logger's event file)."""
    name = f"train_fn_3c7b5_{index:05d}_{index}_lr={lr:.4f},momentum={momentum:.4f}_2026-11-28_10-00-0{index}"
    trial = experiment / name
    trial.mkdir(parents=True)
    config = {"lr": lr, "momentum": momentum, "model": {"layers": 2, "act": "relu"}}
    (trial / "params.json").write_text(json.dumps(config, indent=2))
    results = [{"loss": lr + 1.0 / it, "training_iteration": it, "trial_id": f"3c7b5_{index:05d}",
                "config": config} for it in range(1, 4)]
    (trial / "result.json").write_text("".join(json.dumps(r) + "\n" for r in results))
    (trial / "progress.csv").write_text("loss,training_iteration\n" +
                                        "".join(f"{r['loss']},{r['training_iteration']}\n" for r in results))
    with SummaryWriter(str(trial)) as writer:
        for r in results:
            writer.add_scalar("ray/tune/loss", r["loss"], r["training_iteration"])
    return name


def test_ray_tune_trial_layout(tmp_path):
    experiment = tmp_path / "ray_results" / "train_fn_2026-11-28_10-00-00"
    names = [write_ray_trial(experiment, i, lr, m) for i, (lr, m) in enumerate([(0.001, 0.9), (0.01, 0.9),
                                                                                 (0.01, 0.99)])]
    (experiment / "experiment_state-2026-11-28_10-00-00.json").write_text("{}")
    reader = SummaryReader(str(tmp_path / "ray_results"), where="lr >= 0.01 and model.act == 'relu'")
    table = reader.hparams_table(metrics="ray/tune/loss=min")
    prefix = "train_fn_2026-11-28_10-00-00/"
    assert list(table["run"]) == [prefix + names[1], prefix + names[2]]
    assert list(table["momentum"]) == [0.9, 0.99] and list(table["model.layers"]) == [2, 2]
    assert list(table["ray/tune/loss (min)"]) == pytest.approx([0.01 + 1 / 3, 0.01 + 1 / 3], rel=1e-6)
    sources = reader.hparams_sources
    assert set(sources[sources.name.isin(["lr", "momentum", "model.act"])]["source"]) == {"ray_tune"}
    assert set(sources.name) == {"lr", "momentum", "model.layers", "model.act"}  # the trial name agrees on lr
