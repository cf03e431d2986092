"""The report with --where and --over (`tensorboard export --out page.html`, `export_report`, `show`): only
the runs the query keeps, and each configuration of two or more of them drawn as its mean with a ± std
band, equal to the members' statistics; both --group_runs and --over is refused by name."""
from __future__ import annotations

import numpy as np
import pytest
from upstream import upstream_read

from tensorboard import SummaryWriter
from tensorboard.logdir.selection import CLI_FLAGS
from tensorboard.report import export_report, show
from tensorboard.report.cli import build_page, main, report_selection


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    root = tmp_path_factory.mktemp("report") / "sweep"
    losses = {}
    for lr in (0.01, 0.1, 1.0):
        for seed in (1, 2, 3):
            run = f"lr={lr},seed={seed}"
            losses[run] = [lr + seed / 10 + 1 / (step + 1) for step in range(6)]
            with SummaryWriter(str(root / run), metadata=False) as writer:
                for step, loss in enumerate(losses[run]):
                    writer.add_scalar("loss", loss, step)
    read = upstream_read(root, ("classic",))["runs"]  # what upstream's reader sees of the sweep, too
    assert sorted(read) == sorted(losses)
    for run, view in read.items():
        assert [value for _, _, value in view["scalars"]["loss"]] == pytest.approx(losses[run], rel=1e-6)
    return root, losses


def test_where_and_over_pick_the_runs_and_draw_each_configuration(sweep):
    root, losses = sweep
    selection = report_selection(None, None, "lr < 1", "seed", None, None)
    _, report = build_page(str(root), ("scalars",), selection, None, 1000, None, False, None, None, group_runs=None)
    members = [f"lr={lr},seed={seed}" for lr in (0.01, 0.1) for seed in (1, 2, 3)]
    assert sorted(report.runs) == sorted(members + ["lr=0.01 (mean)", "lr=0.1 (mean)"])
    (series,) = [s for s in report.scalars["loss"] if report.runs[s.run] == "lr=0.1 (mean)"]
    values = np.array([losses[f"lr=0.1,seed={seed}"] for seed in (1, 2, 3)])
    np.testing.assert_allclose(series.values, values.mean(axis=0), rtol=1e-6)
    np.testing.assert_allclose(series.band[1], values.mean(axis=0) + values.std(axis=0, ddof=1), rtol=1e-5)


def test_the_command_line_writes_the_page_and_refuses_group_runs_with_over(sweep, tmp_path, capsys):
    root, _ = sweep
    out = tmp_path / "page.html"
    assert main(["--logdir", str(root), "--out", str(out), "--where", "lr == 1.0", "--quiet"]) == 0
    page = out.read_text()
    assert "lr=1.0,seed=2" in page and "lr=0.1,seed=2" not in page
    assert main(["--logdir", str(root), "--out", str(tmp_path / "b.html"), "--over", "seed",
                 "--group_runs", "x", "--quiet"]) == 2
    assert "give --group_runs (a regex over run names) or --over (hyperparameters), not both" in capsys.readouterr().err
    with pytest.raises(ValueError, match="--over: no run has a hyperparameter 'epochs'"):
        export_report(str(root), str(tmp_path / "c.html"), over="epochs")
    with pytest.raises(ValueError, match="give group_runs .* or over"):
        show(str(root), group_runs="x", over="seed")
    assert report_selection(None, None, None, None, None, "x", CLI_FLAGS).over == ()
