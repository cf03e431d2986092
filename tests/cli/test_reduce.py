"""`tensorboard reduce`: a run per op and a band run per group, read back by upstream's reader; the Custom
Scalars layout draws each tag as a margin chart; an existing --out is refused, and a write is atomic.
Against tensorboard-reducer (run from the upstream test environment): the same value at every step it
keeps, and every step kept here."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from stats.seeds import write_seeds
from upstream import CLASSIC, as_array, upstream_python, upstream_read

from tensorboard.reader import reduce
from tensorboard.src import layout_pb2

REPO = Path(__file__).resolve().parents[2]


def run_reduce(*args):
    return subprocess.run([sys.executable, "-m", "tensorboard.cli.reduce", *map(str, args)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO / "python")})


def scalars(view, tag):
    return {step: value for step, _, value in view["scalars"][tag]}


def test_a_run_per_op_and_group_read_back_by_upstream(tmp_path):
    write_seeds(tmp_path / "sweep", steps=120)
    out = tmp_path / "out"
    result = run_reduce("--logdir", tmp_path / "sweep", "--group_by", r"_seed\d+", "--out", out, "-r", "mean,max")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("\n") == 1 and "wrote 6 runs from 10" in result.stderr
    runs = upstream_read(out)["runs"]
    assert sorted(runs) == [f"{g}/{r}" for g in ("lr0.01", "lr0.1") for r in ("band", "max", "mean")]
    frame = reduce(tmp_path / "sweep", "mean,max,std", group_by=r"_seed\d+")
    for group in ("lr0.01", "lr0.1"):
        rows = frame[(frame["group"] == group) & (frame["tag"] == "loss")]
        for op in ("mean", "max"):
            got = scalars(runs[f"{group}/{op}"], "loss")
            assert list(got) == list(range(120))
            assert list(got.values()) == rows[op].astype(np.float32).astype(float).tolist()
        band = runs[f"{group}/band"]
        lower = (rows["mean"] - rows["std"]).astype(np.float32).astype(float).tolist()
        upper = (rows["mean"] + rows["std"]).astype(np.float32).astype(float).tolist()
        assert list(scalars(band, "loss/lower").values()) == lower
        assert list(scalars(band, "loss/upper").values()) == upper
    layouts = [run["tensors"]["custom_scalars__config__"] for run in runs.values()
               if "custom_scalars__config__" in run.get("tensors", {})]
    assert len(layouts) == 1  # once: the plugin shows every band run in each chart
    raw = as_array(layouts[0][0][2]).item()
    layout = layout_pb2.Layout.FromString(raw.encode("utf-8") if isinstance(raw, str) else raw)
    (category,) = layout.category
    assert category.title == "mean ± std"
    charts = {chart.title: chart.margin.series[0] for chart in category.chart}
    assert set(charts) == {"loss", "acc"}
    assert (charts["loss"].value, charts["loss"].lower, charts["loss"].upper) == ("loss", "loss/lower", "loss/upper")


def test_an_existing_out_is_kept_unless_forced_and_never_a_strangers_directory(tmp_path):
    write_seeds(tmp_path / "sweep", configs=("a",), seeds=2, steps=5)
    out = tmp_path / "out"
    assert run_reduce("--logdir", tmp_path / "sweep", "--out", out).returncode == 0
    again = run_reduce("--logdir", tmp_path / "sweep", "--out", out)
    assert again.returncode == 2 and "exists; pass --force" in again.stderr
    assert run_reduce("--logdir", tmp_path / "sweep", "--out", out, "--force", "-r", "max").returncode == 0
    assert sorted(os.listdir(out)) == ["band", "max"]
    (out / "notes.txt").write_text("mine")
    refused = run_reduce("--logdir", tmp_path / "sweep", "--out", out, "--force")
    assert refused.returncode == 2 and "which no reduce wrote" in refused.stderr
    assert (out / "notes.txt").read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "sweep"]  # no temporary directory left


@pytest.mark.parametrize("args,message", [
    ([], "give either RUN_DIRs or --logdir"),
    (["R", "--group_by", "x"], "--group_by groups the runs of --logdir"),
    (["--logdir", "L", "-r", "mean,mode"], "--ops: 'mode' is no reduction"),
    (["--logdir", "L", "--exclude", "("], "--exclude '(' is not a valid regex"),
])
def test_bad_arguments_are_refused_in_one_line(tmp_path, args, message):
    result = run_reduce(*[str(tmp_path / a) if a in ("L", "R") else a for a in args], "--out", tmp_path / "out")
    assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_refusals_name_the_run_and_the_tag(tmp_path):
    write_seeds(tmp_path / "a", configs=("x",), seeds=1, steps=5)
    write_seeds(tmp_path / "b", configs=("x",), seeds=1, steps=7)
    result = run_reduce(tmp_path / "a" / "x_seed0", tmp_path / "b" / "x_seed0", "--out", tmp_path / "out")
    assert result.returncode == 1 and "tag 'loss': 7 steps, not the 5 steps" in result.stderr
    assert run_reduce(tmp_path / "a" / "x_seed0", tmp_path / "b" / "x_seed0", "--out", tmp_path / "out",
                      "--lax-steps").returncode == 0


def test_the_same_values_as_tensorboard_reducer_at_every_step_it_keeps(tmp_path):
    steps = 12_000  # more than the 10,000 points upstream's EventAccumulator keeps of a tag
    write_seeds(tmp_path / "sweep", configs=("cfg",), seeds=3, tags=("loss", "acc"), steps=steps)
    seeds = sorted(str(p) for p in (tmp_path / "sweep").iterdir())
    reducer = Path(upstream_python()).parent / "tb-reducer"
    theirs = subprocess.run([str(reducer), *seeds, "-o", str(tmp_path / "theirs") + "/", "-r", "mean,min,max,median"],
                            capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": ""})
    assert theirs.returncode == 0, theirs.stderr
    ours = run_reduce(*seeds, "--out", tmp_path / "ours", "-r", "mean,min,max,median")
    assert ours.returncode == 0, ours.stderr
    # 3 seeds: a median that is not their mean. 12,000 steps in 4 runs a side: the classic view alone
    # (upstream's migrated path is read in the test above)
    their_runs, our_runs = (upstream_read(tmp_path / side, CLASSIC)["runs"] for side in ("theirs", "ours"))
    for op in ("mean", "min", "max", "median"):
        for tag in ("loss", "acc"):
            kept, ours_op = scalars(their_runs[op], tag), scalars(our_runs[op], tag)
            assert list(ours_op) == list(range(steps))  # every step
            assert 0 < len(kept) < steps  # tensorboard-reducer reduces a sample
            assert {step: ours_op[step] for step in kept} == kept, (op, tag)


def test_writes_the_same_runs_where_pandas_cannot_be_imported(tmp_path):
    """`tensorboard reduce` needs NumPy only: with pandas unimportable it writes what it writes with it."""
    write_seeds(tmp_path / "sweep", configs=("a",), seeds=3, steps=40)
    args = ["--logdir", str(tmp_path / "sweep"), "-r", "mean,std,median"]
    without = subprocess.run([sys.executable, "-c", "import runpy, sys; sys.modules['pandas'] = None; "
                              "sys.argv[0] = 'reduce'; runpy.run_module('tensorboard.cli.reduce', run_name='__main__')",
                              *args, "--out", str(tmp_path / "without")], capture_output=True, text=True, timeout=300,
                             env={**os.environ, "PYTHONPATH": str(REPO / "python")})
    assert without.returncode == 0, without.stderr
    assert run_reduce(*args, "--out", tmp_path / "with").returncode == 0
    runs = {side: upstream_read(tmp_path / side)["runs"] for side in ("without", "with")}
    assert sorted(runs["without"]) == ["band", "mean", "median", "std"]
    for run in runs["with"]:
        for tag in ("loss", "acc"):
            assert scalars(runs["without"][run], tag) == scalars(runs["with"][run], tag)
