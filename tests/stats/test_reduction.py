"""`tensorboard.reader.reduce`: seeds reduced step by step with pandas' reductions, every point read,
groups by run name, and runs that can't be compared refused by name unless a lax option allows them."""
import os

import numpy as np
import pandas as pd
import pytest
from stats.seeds import write_seeds

import tensorboard
from tensorboard.reader import reduce
from tensorboard.stats.reduction import REDUCE_OPS, seed_statistics


def test_every_op_is_pandas_reduction_across_the_seeds(tmp_path):
    written = write_seeds(tmp_path, configs=("lr0.1",), steps=250)
    frame = reduce(str(tmp_path), "mean,std,min,max,median")
    assert list(frame.columns) == ["tag", "step", "mean", "std", "min", "max", "median", "n_runs"]
    for tag in ("loss", "acc"):
        table = pd.DataFrame({run: values[tag] for run, values in sorted(written.items())})
        rows = frame[frame["tag"] == tag]
        assert rows["step"].tolist() == list(range(250)) and (rows["n_runs"] == 5).all()
        for op in ("mean", "std", "min", "max", "median"):
            assert rows[op].to_numpy().tolist() == getattr(table, op)(axis=1).tolist(), op  # std: ddof=1


def test_group_by_reduces_each_configuration(tmp_path):
    written = write_seeds(tmp_path, steps=50)
    frame = reduce(tmp_path, ["mean"], group_by=r"_seed\d+")
    assert list(frame.columns) == ["group", "tag", "step", "mean", "n_runs"]
    assert list(dict.fromkeys(frame["group"])) == ["lr0.01", "lr0.1"]
    rows = frame[(frame["group"] == "lr0.01") & (frame["tag"] == "loss")]
    want = np.mean([written[f"lr0.01_seed{k}"]["loss"] for k in range(5)], axis=0)
    np.testing.assert_allclose(rows["mean"].to_numpy(), want, rtol=1e-15)


def test_filters_pick_the_seeds(tmp_path):
    write_seeds(tmp_path, steps=20)
    frame = reduce(tmp_path, "mean", runs="lr0.1_", exclude="seed[34]$", tags="^loss$")
    assert set(frame["tag"]) == {"loss"} and (frame["n_runs"] == 3).all()


def test_run_directories_are_one_run_each(tmp_path):
    write_seeds(tmp_path, configs=("a",), seeds=3, steps=10)
    dirs = [str(tmp_path / f"a_seed{k}") for k in range(3)]
    frame = reduce(dirs, "max")
    assert (frame["n_runs"] == 3).all() and len(frame) == 20
    with pytest.raises(ValueError, match="holds no event file itself .*give those, or the logdir"):
        reduce([str(tmp_path)], "mean")


def test_different_tags_are_refused_naming_the_run_and_the_tag(tmp_path):
    write_seeds(tmp_path, configs=("a",), seeds=2, steps=10)
    with tensorboard.SummaryWriter(tmp_path / "a_seed1") as writer:
        writer.add_scalar("extra", 1.0, 0)
    with pytest.raises(ValueError, match=r"run 'a_seed0' has no tag 'extra'.*--lax-tags"):
        reduce(tmp_path, "mean")
    frame = reduce(tmp_path, "mean", lax_tags=True)
    assert frame[frame["tag"] == "extra"]["n_runs"].tolist() == [1]


def test_unequal_steps_are_refused_unless_lax(tmp_path):
    write_seeds(tmp_path, configs=("a",), seeds=2, steps=10)
    write_seeds(tmp_path / "more", configs=("a",), seeds=1, steps=15)
    os.rename(tmp_path / "more" / "a_seed0", tmp_path / "a_seed9")
    os.rmdir(tmp_path / "more")
    with pytest.raises(ValueError, match=r"run 'a_seed9', tag 'loss': 15 steps, not the 10 steps of run 'a_seed0'"):
        reduce(tmp_path, "mean")
    assert reduce(tmp_path, "mean", lax_steps=True)["step"].max() == 9  # the steps all runs have
    some = reduce(tmp_path, "mean", min_runs_per_step=1)
    assert some["step"].max() == 14 and some[some["step"] > 9]["n_runs"].eq(1).all()
    assert reduce(tmp_path, "mean", min_runs_per_step=3)["step"].max() == 9


def test_a_step_logged_twice_is_refused_unless_told_which_counts(tmp_path):
    with tensorboard.SummaryWriter(tmp_path / "r") as writer:
        for step, value in ((0, 1.0), (1, 2.0), (1, 4.0), (2, 3.0)):
            writer.add_scalar("x", value, step)
    with pytest.raises(ValueError, match=r"run 'r', tag 'x': step 1 is logged more than once"):
        reduce(tmp_path, "mean")
    assert reduce(tmp_path, "mean", duplicate_steps="keep-first")["mean"].tolist() == [1.0, 2.0, 3.0]
    assert reduce(tmp_path, "mean", duplicate_steps="keep-last")["mean"].tolist() == [1.0, 4.0, 3.0]
    assert reduce(tmp_path, "mean", duplicate_steps="mean")["mean"].tolist() == [1.0, 3.0, 3.0]


@pytest.mark.parametrize("ops,message", [("mean,var", "'var' is no reduction"), ([], "'nothing' is no reduction")])
def test_unknown_ops_are_refused(tmp_path, ops, message):
    write_seeds(tmp_path, configs=("a",), seeds=1, steps=3)
    with pytest.raises(ValueError, match=message):
        reduce(tmp_path, ops)


def test_no_runs_is_an_error_not_an_empty_frame(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="nothing to reduce"):
        reduce(tmp_path / "empty", "mean")


def test_the_seed_runs_read_back_by_upstream(tmp_path):
    """The seeds these tests reduce are what upstream's reader reads, value for value."""
    from upstream import upstream_read

    written = write_seeds(tmp_path, configs=("lr0.1",), seeds=2, steps=30)
    runs = upstream_read(tmp_path)["runs"]
    for name, tags in written.items():
        for tag, values in tags.items():
            assert [row[0] for row in runs[name]["scalars"][tag]] == list(range(30))
            assert [row[2] for row in runs[name]["scalars"][tag]] == values.tolist()


def sum_rounding(table: np.ndarray, op: str) -> np.ndarray:
    """A bound on what summing a step's runs in another order changes in `op`: a few units of rounding of
    the sum of magnitudes (of the squared deviations for std), per step."""
    eps = np.finfo(np.float64).eps
    with np.errstate(invalid="ignore", over="ignore"):
        scale = np.nansum(np.abs(table), axis=0) / np.maximum(np.sum(~np.isnan(table), axis=0), 1)
    runs = table.shape[0]
    if op == "std":
        return np.nan_to_num(8 * runs * eps * scale, nan=0.0, posinf=np.inf)
    return np.nan_to_num(2 * runs * eps * scale, nan=0.0, posinf=np.inf)


@pytest.mark.parametrize("runs", [1, 2, 3, 5, 8, 9, 40])
def test_seed_statistics_are_pandas_reductions(runs):
    """The NumPy reductions `tensorboard reduce` writes are what pandas gives on a table with a column per
    run, to the rounding of a sum in another order (bit for bit with pandas 3.1, not with pandas 2): NaN
    (a step a run lacks, or a NaN logged) skipped, ±inf, zeros of both signs, one step to many. The sign
    of a zero min or max among zeros of both signs is left open (pandas' own depends on how NumPy's loop
    meets the arrays in memory)."""
    rng = np.random.default_rng(runs)
    for trial in range(60):
        steps = int(rng.choice([1, 2, 3, 5, 6, 7, 50]))
        table = rng.standard_normal((runs, steps)) * 10 ** rng.uniform(-3, 6)
        if trial % 2:
            table = table.astype(np.float32).astype(np.float64)
        if trial % 3 == 0:
            table[rng.random(table.shape) < 0.2] = np.nan
        if trial % 5 == 0:
            table[rng.random(table.shape) < 0.3] = rng.choice([0.0, -0.0, np.inf, -np.inf])
        if trial % 7 == 0:
            table[:] = rng.choice([0.0, -0.0], table.shape)
        got = seed_statistics(table, np.isnan(table), REDUCE_OPS)
        by_run = pd.concat([pd.Series(row) for row in table], axis=1)  # as pandas builds a table of runs
        for op in REDUCE_OPS:
            with np.errstate(invalid="ignore"):
                want = getattr(by_run, op)(axis=1).to_numpy(np.float64)
            if op in ("min", "max"):
                np.testing.assert_array_equal(got[op], want, err_msg=op)
            else:  # sums in another order (pandas 2 against 3, or another SIMD loop): a rounding apart
                bound = sum_rounding(table, op)
                with np.errstate(invalid="ignore"):
                    close = (got[op] == want) | (np.isnan(got[op]) & np.isnan(want)) | \
                        (np.abs(got[op] - want) <= bound)
                assert close.all(), (op, got[op], want, bound)
