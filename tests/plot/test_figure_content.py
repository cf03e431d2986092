"""`tensorboard.reader.plot`'s figures checked by what they draw, not by pixels: a line per run (and a
faint raw line behind each smoothed one), a line and a band per group of seeds, smoothed values equal to
`reader.smooth`'s, band edges equal to `reader.reduce`'s mean ± std, the x axis joined on step, log axes
that leave out non-positive values with a warning, thinning that keeps every extremum, histograms and
distributions as TensorBoard computes them."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from plot_logdir import CONFIGS, EPOCH_EVERY, RUNS, SEEDS, STEPS, TAGS

import tensorboard
from tensorboard.plot.draw import PALETTE
from tensorboard.plot.thinning import extrema_indices
from tensorboard.reader import SummaryReader, plot, reduce, smooth
from tensorboard.report.downsample import histogram_percentiles

GROUP = r"_seed\d+"


def drawn(ax, prefix: str = "") -> dict:
    """{label: Line2D} of the axes' lines whose labels start with `prefix` (run lines: no underscore)."""
    return {line.get_label()[len(prefix):]: line for line in ax.lines
            if (line.get_label().startswith(prefix) if prefix else not line.get_label().startswith("_"))}


def bands(ax) -> dict:
    """{name: (x, lower, upper)} of the axes' bands, read back from the polygons' vertices."""
    out = {}
    for collection in ax.collections:
        label = collection.get_label()
        if label.startswith("_band:"):
            vertices = np.concatenate([path.vertices for path in collection.get_paths()])
            xs = np.unique(vertices[:, 0])
            out[label[len("_band:"):]] = (xs, np.array([vertices[vertices[:, 0] == x, 1].min() for x in xs]),
                                          np.array([vertices[vertices[:, 0] == x, 1].max() for x in xs]))
    return out


def scalars(logdir) -> dict:
    """{(run, tag): (steps, values)} as SummaryReader reads them."""
    frame = SummaryReader(str(logdir), extra_columns={"dir_name"}).scalars
    return {(run, tag): (rows["step"].to_numpy(), rows["value"].to_numpy())
            for (run, tag), rows in frame.groupby(["dir_name", "tag"])}


def test_a_panel_per_tag_a_line_per_run_and_a_faint_raw_line_behind_each(sweep):
    fig = plot(sweep, "^train/", smoothing=0.6)
    assert [ax.get_title() for ax in fig.axes] == list(TAGS)
    for ax in fig.axes:
        lines, raws = drawn(ax), drawn(ax, "_raw:")
        assert sorted(lines) == sorted(raws) == sorted(RUNS)
        for run in RUNS:
            assert raws[run].get_alpha() < 1 and lines[run].get_alpha() in (None, 1)
            assert raws[run].get_color() == lines[run].get_color()
            assert ax.lines.index(raws[run]) < ax.lines.index(lines[run])  # drawn first: behind
        assert bands(ax) == {}
    legend = [text.get_text() for text in fig.legends[0].get_texts()]
    assert sorted(legend) == sorted(RUNS)


def test_a_run_has_one_colour_in_every_panel_from_a_colour_blind_safe_palette(sweep):
    fig = plot(sweep, "^train/")
    first, second = (drawn(ax) for ax in fig.axes)
    assert {run: line.get_color() for run, line in first.items()} == \
        {run: line.get_color() for run, line in second.items()}
    assert len({line.get_color() for line in first.values()}) == len(RUNS)
    assert {line.get_color() for line in first.values()} <= set(PALETTE)


def test_smoothed_values_equal_reader_smooth(sweep):
    weight = 0.8
    fig = plot(sweep, "loss", smoothing=weight)
    read = scalars(sweep)
    (ax,) = fig.axes
    for run, line in drawn(ax).items():
        steps, values = read[(run, "train/loss")]
        np.testing.assert_array_equal(line.get_xdata(), steps)
        np.testing.assert_allclose(line.get_ydata(), smooth(values, weight), rtol=1e-12)
        np.testing.assert_array_equal(drawn(ax, "_raw:")[run].get_ydata(), values)


def test_groups_draw_one_line_and_one_band_each_whose_edges_are_reduce_mean_plus_minus_std(sweep):
    fig = plot(sweep, "^train/", group_runs=GROUP)
    frame = reduce(sweep, "mean,std", group_by=GROUP)
    for ax, tag in zip(fig.axes, TAGS):
        assert sorted(drawn(ax)) == sorted(bands(ax)) == sorted(CONFIGS)
        for group, (x, lower, upper) in bands(ax).items():
            rows = frame[(frame["group"] == group) & (frame["tag"] == tag)]
            np.testing.assert_array_equal(x, rows["step"].to_numpy())
            np.testing.assert_allclose(lower, rows["mean"] - rows["std"], rtol=1e-12)
            np.testing.assert_allclose(upper, rows["mean"] + rows["std"], rtol=1e-12)
            np.testing.assert_allclose(drawn(ax)[group].get_ydata(), rows["mean"], rtol=1e-12)


def test_a_minmax_band_spans_the_seeds(sweep):
    fig = plot(sweep, "loss", group_runs=GROUP, band="minmax")
    read = scalars(sweep)
    for group, (_, lower, upper) in bands(fig.axes[0]).items():
        seeds = np.array([read[(f"{group}_seed{s}", "train/loss")][1] for s in range(SEEDS)])
        np.testing.assert_array_equal(lower, seeds.min(axis=0))
        np.testing.assert_array_equal(upper, seeds.max(axis=0))


def test_x_as_another_scalar_is_joined_on_step(sweep):
    fig = plot(sweep, "loss", x="epoch", runs="lr0.1_seed0")
    (ax,) = fig.axes
    line = drawn(ax)["lr0.1_seed0"]
    read = scalars(sweep)
    steps, values = read[("lr0.1_seed0", "train/loss")]
    at = steps % EPOCH_EVERY == 0
    np.testing.assert_array_equal(line.get_xdata(), steps[at] // EPOCH_EVERY)
    np.testing.assert_array_equal(line.get_ydata(), values[at])
    assert ax.get_xlabel() == "epoch"


def test_relative_time_starts_at_zero(sweep):
    fig = plot(sweep, "loss", x="relative", runs="seed0")
    for line in drawn(fig.axes[0]).values():
        x = np.asarray(line.get_xdata(), np.float64)
        assert x[0] >= 0 and np.all(np.diff(x) >= 0)
    assert fig.axes[0].get_xlabel().startswith("relative time")


def test_log_axes_leave_out_non_positive_values_with_one_warning(tmp_path):
    values = [4.0, 0.0, 2.0, -1.0, 1.0]
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        for step, value in enumerate(values):
            writer.add_scalar("v", value, step)
    with pytest.warns(UserWarning) as caught:
        fig = plot(tmp_path, logx=True, logy=True)
    messages = sorted(str(w.message) for w in caught)
    assert messages == ["logx: 1 values at or below 0 are not drawn on the log x axis",
                        "logy: 2 values at or below 0 are not drawn on the log y axis"]
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    line = drawn(ax)["."]
    y = np.asarray(line.get_ydata())
    assert np.isnan(y[[0, 1, 3]]).all() and list(y[[2, 4]]) == [2.0, 1.0]  # step 0: not on a log x axis
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plot(tmp_path)  # a linear axis draws everything, quietly


def test_thinning_keeps_every_extremum_of_each_stretch():
    rng = np.random.default_rng(7)
    y = rng.standard_normal(100_000).cumsum()
    y[12_345] = 1e6  # a spike
    y[99_000] = -1e6
    y[500:510] = np.nan
    keep = extrema_indices([y], 400)
    assert len(keep) <= 400 + 2 and keep[0] == 0 and keep[-1] == len(y) - 1
    assert np.all(np.diff(keep) > 0)
    assert 12_345 in keep and 99_000 in keep
    starts = keep[np.isin(keep, np.floor(np.linspace(0, len(y) - 1, 400 // 3 + 1) + 0.5).astype(int))]
    for lo, hi in zip(starts[:-1], starts[1:]):  # every stretch's min and max are among the kept points
        stretch, kept = y[lo:hi], y[keep[(keep >= lo) & (keep < hi)]]
        assert np.nanmax(stretch) == np.nanmax(kept) and np.nanmin(stretch) == np.nanmin(kept)
    assert np.array_equal(extrema_indices([y[:300]], 400), np.arange(300))


def test_a_long_line_is_thinned_to_about_max_points_keeping_its_extremes(tmp_path):
    values = np.sin(np.arange(20_000) / 50.0) + np.arange(20_000) * 1e-5
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        for step, value in enumerate(values):
            writer.add_scalar("wave", float(value), step)
    line = drawn(plot(tmp_path, max_points=500).axes[0])["."]
    y = np.asarray(line.get_ydata())
    assert 100 < len(y) <= 502
    stored = values.astype(np.float32).astype(np.float64)  # add_scalar keeps a float32
    assert y.max() == stored.max() and y.min() == stored.min()
    assert line.get_xdata()[0] == 0 and line.get_xdata()[-1] == len(values) - 1


def test_histograms_a_panel_per_run_and_tag_with_every_value_counted(sweep):
    fig = plot(sweep, "weights", kind="histogram", runs="seed0")
    assert sorted(ax.get_title() for ax in fig.axes) == sorted(f"weights ({cfg}_seed0)" for cfg in CONFIGS)
    frame = SummaryReader(str(sweep), extra_columns={"dir_name"}).histograms
    steps = sorted(frame[frame["dir_name"] == "lr0.1_seed0"]["step"])
    ax = next(ax for ax in fig.axes if "lr0.1_seed0" in ax.get_title())
    assert [c.get_label() for c in ax.collections] == [f"_step:{s}" for s in steps]  # offset: a ridge per step
    overlay = plot(sweep, "weights", kind="histogram", runs="lr0.1_seed0", histogram_mode="overlay").axes[0]
    assert [line.get_label() for line in overlay.lines] == [f"_step:{s}" for s in steps]


def test_rebinned_counts_keep_the_total():
    from tensorboard.plot.histograms import rebinned

    limits, counts = np.array([-1.0, 0.0, 1.0, 2.0]), np.array([0.0, 3.0, 5.0, 2.0])
    edges = np.linspace(-1.0, 2.0, 7)
    out = rebinned(-0.5, 1.5, limits, counts, edges)
    assert out.sum() == pytest.approx(10.0) and (out >= 0).all()
    assert out[:1].sum() == 0  # nothing below the histogram's min


def test_distribution_bands_are_tensorboards_percentiles(sweep):
    fig = plot(sweep, "weights", kind="distribution", runs="lr0.01_seed1")
    (ax,) = fig.axes
    frame = SummaryReader(str(sweep), extra_columns={"dir_name"}).histograms
    from tensorboard.logdir import Selection, read_runs

    (run,) = read_runs(sweep, selection=Selection.of(runs="lr0.01_seed1", kinds={"histograms"}))
    store = run.histograms
    order = np.argsort(np.frombuffer(store.steps, np.int64), kind="stable")
    expected = np.array([histogram_percentiles(h.min, h.max, h.limits, h.counts)
                         for h in (store.values[int(i)] for i in order)])
    assert len(frame[frame["dir_name"] == "lr0.01_seed1"]) == len(expected)
    np.testing.assert_allclose(drawn(ax)["median"].get_ydata(), expected[:, 4])
    assert [c.get_label() for c in ax.collections] == [f"_band:{i}" for i in range(4)]
    x, lower, upper = bands(ax)["0"]
    np.testing.assert_allclose(lower, expected[:, 0])
    np.testing.assert_allclose(upper, expected[:, 8])


@pytest.mark.parametrize("kwargs, named", [
    ({"smoothing": 1.5}, "smoothing"), ({"band": "iqr"}, "band"), ({"kind": "images"}, "kind"),
    ({"x": "wall", "group_runs": GROUP}, "x"), ({"group_runs": "("}, "group_runs"), ({"runs": "("}, "runs"),
    ({"size": "3"}, "size"), ({"max_points": 1}, "max_points"), ({"style": "no-such-style"}, "style"),
    ({"x": "no_such_tag"}, "x"), ({"tags": "no_such_tag"}, "tags"), ({"logx": True, "x": "wall"}, "logx"),
    ({"kind": "histogram", "smoothing": 0.5}, "smoothing"), ({"histogram_mode": "side"}, "histogram_mode"),
])
def test_bad_arguments_are_refused_naming_them(sweep, kwargs, named):
    with pytest.raises(ValueError, match=rf"^{named}\b"):
        plot(sweep, **kwargs)


def test_steps_bound_every_line(sweep):
    fig = plot(sweep, "loss", steps=(50, 60))
    for line in drawn(fig.axes[0]).values():
        assert list(line.get_xdata()) == list(range(50, 61))
    assert STEPS > 60


def test_scalars_logged_as_tensors_are_drawn_as_scalars(tmp_path):
    values = [0.123456789012345678, 0.5, 0.25]  # float64 tensors, the scalars plugin's TF2 form
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        for step, value in enumerate(values):
            writer.add_scalar("dp", value, step, double_precision=True)
            writer.add_scalar("plain", value, step)
    assert "dp" in SummaryReader(str(tmp_path)).tensors["tag"].tolist()  # stored as a tensor, not a scalar
    fig = plot(tmp_path)
    lines = {ax.get_title().split(" (")[0]: drawn(ax)["."] for ax in fig.axes}
    assert list(lines["dp"].get_ydata()) == values
    assert list(lines["dp"].get_xdata()) == [0, 1, 2]


def test_wall_time_is_drawn_as_utc_datetimes(sweep):
    fig = plot(sweep, "loss", x="wall", runs="lr0.1_seed1")
    line = drawn(fig.axes[0])["lr0.1_seed1"]
    frame = SummaryReader(str(sweep), extra_columns={"dir_name", "wall_time"}).scalars
    rows = frame[(frame["dir_name"] == "lr0.1_seed1") & (frame["tag"] == "train/loss")].sort_values("step")
    expected = (rows["wall_time"].to_numpy() * 1e3).astype("datetime64[ms]")
    np.testing.assert_array_equal(np.asarray(line.get_xdata()), expected)
    assert fig.axes[0].get_xlabel() == "wall time (UTC)"


def test_a_style_sheet_is_applied_over_our_settings(sweep):
    import matplotlib.colors

    dark = plot(sweep, "loss", runs="seed0", style="dark_background").axes[0]
    assert matplotlib.colors.to_hex(dark.get_facecolor()) == "#000000"
    assert matplotlib.colors.to_hex(plot(sweep, "loss", runs="seed0").axes[0].get_facecolor()) == "#ffffff"


@pytest.fixture(scope="module")
def configured(sweep, tmp_path_factory):
    """The sweep with each run's configuration in a params.json beside its event files (Ray Tune's file)."""
    import json
    import shutil

    root = tmp_path_factory.mktemp("configured") / "sweep"
    shutil.copytree(sweep, root)
    for cfg in CONFIGS:
        for seed in range(SEEDS):
            (root / f"{cfg}_seed{seed}" / "params.json").write_text(json.dumps({"lr": float(cfg[2:]), "seed": seed}))
    return root


def test_over_draws_each_configuration_as_the_mean_of_its_seeds(configured):
    fig = plot(configured, "^train/", over="seed")
    frame = reduce(configured, "mean,std", group_by=GROUP)
    for ax, tag in zip(fig.axes, TAGS):
        assert sorted(drawn(ax)) == sorted(bands(ax)) == ["lr=0.01", "lr=0.1"]  # named after what varies
        for group, (x, lower, upper) in bands(ax).items():
            rows = frame[(frame["group"] == "lr" + group[3:]) & (frame["tag"] == tag)]
            np.testing.assert_array_equal(x, rows["step"].to_numpy())
            np.testing.assert_allclose(lower, rows["mean"] - rows["std"], rtol=1e-12)
            np.testing.assert_allclose(upper, rows["mean"] + rows["std"], rtol=1e-12)


def test_where_draws_only_the_runs_whose_hyperparameters_match(configured):
    fig = plot(configured, "^train/loss$", where="lr < 0.05 and seed != 2")
    assert sorted(drawn(fig.axes[0])) == ["lr0.01_seed0", "lr0.01_seed1"]


@pytest.mark.parametrize("kwargs, named", [({"over": "seed", "group_runs": GROUP}, "over"),
                                           ({"where": "lr <"}, "where"), ({"where": "depth > 2"}, "where")])
def test_hyperparameter_arguments_are_refused_naming_them(configured, kwargs, named):
    with pytest.raises(ValueError, match=named):
        plot(configured, "^train/loss$", **kwargs)
