"""tensorboard.integrations.mxnet in a real Module.fit (MXNet venv), read back by upstream."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from seeds.mxnet_venv import run_mxnet
from upstream import upstream_run

SCRIPT = Path(__file__).with_name("mxnet_callbacks_script.py")
EPOCHS, BATCHES = 3, 12


@pytest.fixture(scope="module", params=["FileWriter", "SummaryWriter"])
def fitted(request, tmp_path_factory):
    logdir = tmp_path_factory.mktemp(request.param)
    run_mxnet([str(SCRIPT), str(logdir), request.param], cwd=logdir)
    return upstream_run(logdir), json.loads((logdir / "expected.json").read_text())


def test_eval_metrics_once_per_epoch_by_name(fitted):
    run, expected = fitted
    for name in ("accuracy", "cross-entropy"):
        values = run["scalars"][f"eval-{name}"]
        assert [s for s, _, _ in values] == list(range(EPOCHS))
        assert [v for _, _, v in values] == pytest.approx([e[name] for e in expected["eval"]], rel=1e-5)


def test_train_metrics_every_fourth_batch(fitted):
    run, expected = fitted
    assert expected["train_batches"] == EPOCHS * BATCHES
    steps = [s for s, _, _ in run["scalars"]["train-accuracy"]]
    assert steps == list(range(4, EPOCHS * BATCHES + 1, 4))


def test_parameter_histograms(fitted):
    run, expected = fitted
    hists = run["histograms"]
    epoch_tags = {"fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias"}
    assert epoch_tags <= set(hists)
    for tag in epoch_tags:
        assert [s for s, _ in hists[tag]] == list(range(EPOCHS))
    _, last = hists["fc1_weight"][-1]
    assert last["num"] == 32 * 784 and sum(last["bucket"]) == 32 * 784
    assert last["sum"] == pytest.approx(expected["fc1_weight_sum"], rel=1e-3, abs=1e-3)
    assert [s for s, _ in hists["batch/fc1_weight"]] == list(range(0, EPOCHS * BATCHES, 6))


def test_gradient_monitor_names_gradients_by_variable(fitted):
    run, _ = fitted
    hists = run["histograms"]
    for tag, size in (("grad/fc1_backward_weight", 32 * 784), ("grad/fc2_backward_weight", 10 * 32)):
        entries = hists[tag]
        assert [s for s, _ in entries] == list(range(1, EPOCHS * BATCHES + 1, 5))
        assert all(h["num"] == size and sum(h["bucket"]) == size for _, h in entries)
        assert any(h["max"] > h["min"] for _, h in entries)


def test_graph_is_logged(fitted):
    run, _ = fitted
    names = {n["name"] for n in run["graph"]["node"]}
    assert {"fc1/FullyConnected", "fc1/weight", "relu1", "softmax"} <= names


@pytest.mark.parametrize("frequency", [0, -1, 2.7, "4", True, None])
def test_callback_frequency_must_be_a_positive_int(tmp_path, frequency):
    """A frequency the callbacks would have rounded or clamped (0 -> 1, 2.7 -> 2) raises naming it."""
    import tensorboard
    from tensorboard.integrations.mxnet import LogMetricsCallback, LogParamsCallback

    with tensorboard.SummaryWriter(tmp_path) as writer:
        for callback in (LogMetricsCallback, LogParamsCallback):
            with pytest.raises(ValueError, match=f"^frequency: expected a positive int .*got {frequency!r}$"):
                callback(writer, frequency=frequency)
        assert LogMetricsCallback(writer, frequency=3).frequency == 3
