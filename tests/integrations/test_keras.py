"""tensorboard.integrations.keras.TensorBoard in real Keras 3 `fit` runs on the JAX and torch backends
(each in a subprocess: Keras fixes its backend at import), read back by upstream's reader."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from upstream import as_array, plugin_content, upstream_python, upstream_read

REPO = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).with_name("keras_fit_script.py")
EPOCHS, SAMPLES, BATCH = 3, 64, 16
STEPS_PER_EPOCH = SAMPLES // BATCH
BACKENDS = ["jax", "torch"]


def run_script(backend: str, *args: str) -> None:
    env = {**os.environ, "KERAS_BACKEND": backend, "PYTHONPATH": str(REPO / "python")}
    result = subprocess.run([sys.executable, str(SCRIPT), *args], env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def fit(tmp_path_factory, backend: str, kind: str, **kwargs) -> tuple[dict, dict, Path]:
    logdir = tmp_path_factory.mktemp(f"{backend}_{kind}")
    if kwargs.get("embeddings_metadata"):
        (logdir / kwargs["embeddings_metadata"]).write_text("".join(f"token{i}\n" for i in range(10)))
    out = logdir.parent / f"{logdir.name}.json"
    run_script(backend, "fit", str(logdir), kind, json.dumps(kwargs), str(out))
    seen = json.loads(out.read_text())
    assert seen["backend"] == backend
    assert not seen["tensorflow_imported"], "TensorFlow was imported"
    return upstream_read(logdir)["runs"], seen, logdir


@pytest.fixture(scope="module", params=BACKENDS)
def default_fit(request, tmp_path_factory):
    return fit(tmp_path_factory, request.param, "functional")


@pytest.fixture(scope="module", params=BACKENDS)
def full_fit(request, tmp_path_factory):
    return fit(tmp_path_factory, request.param, "sequential", histogram_freq=2, write_images=True, update_freq=3,
               write_steps_per_second=True, write_graph=False)


def scalars(runs: dict, run: str, tag: str) -> tuple[list, list]:
    entries = runs[run]["scalars"][tag]
    return [s for s, _, _ in entries], [v for _, _, v in entries]


def test_runs_and_epoch_scalars_equal_the_history(default_fit):
    runs, seen, _ = default_fit
    history = seen["history"]
    assert set(runs) == {"train", "validation"}
    for metric in ("loss", "accuracy"):
        steps, values = scalars(runs, "train", f"epoch_{metric}")
        assert steps == list(range(EPOCHS))
        assert values == pytest.approx(history[metric], rel=1e-6)
        steps, values = scalars(runs, "validation", f"epoch_{metric}")
        assert steps == list(range(EPOCHS))
        assert values == pytest.approx(history[f"val_{metric}"], rel=1e-6)
    steps, values = scalars(runs, "train", "epoch_learning_rate")
    assert steps == list(range(EPOCHS)) and values == pytest.approx([0.05] * EPOCHS)
    # Defaults log nothing per batch, no histograms, no steps per second.
    assert set(runs["train"]["scalars"]) == {"epoch_loss", "epoch_accuracy", "epoch_learning_rate"}
    assert set(runs["validation"]["scalars"]) == {"epoch_loss", "epoch_accuracy", "evaluation_loss_vs_iterations",
                                                  "evaluation_accuracy_vs_iterations"}
    assert not runs["train"]["histograms"] and not runs["train"]["images"]


def test_evaluation_vs_iterations_after_each_validation_and_evaluate(default_fit):
    runs, seen, _ = default_fit
    assert seen["iterations"] == EPOCHS * STEPS_PER_EPOCH
    for metric in ("loss", "accuracy"):
        steps, values = scalars(runs, "validation", f"evaluation_{metric}_vs_iterations")
        # one per epoch's validation inside fit(), then the standalone evaluate() at the same iteration count
        assert steps == [STEPS_PER_EPOCH * (e + 1) for e in range(EPOCHS)] + [seen["iterations"]]
        assert values == pytest.approx(seen["history"][f"val_{metric}"] + [seen["evaluation"][metric]], rel=1e-6)


def _upstream_keras_graph(model_json: str) -> list:
    """Upstream's graph plugin conversion (keras_util) of a logged model config: [(node, inputs)]."""
    code = ("import json, sys\nfrom tensorboard.plugins.graph import keras_util\n"
            "g = keras_util.keras_model_to_graph_def(json.loads(sys.stdin.read()))\n"
            "print(json.dumps([[n.name, list(n.input)] for n in g.node]))")
    result = subprocess.run([upstream_python(), "-c", code], input=model_json, capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": ""})
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_write_graph_logs_the_conceptual_graph(default_fit):
    runs, seen, _ = default_fit
    train = runs["train"]
    assert train["metadata"]["keras"]["plugin_name"] == "graph_keras_model"
    assert plugin_content(train, "keras") == b"1"
    [(step, _, tensor)] = train["tensors"]["keras"]
    logged = str(as_array(tensor).reshape(-1)[0])
    assert step == 0 and json.loads(logged) == json.loads(seen["model_json"])
    nodes = dict((name, inputs) for name, inputs in _upstream_keras_graph(logged))
    assert nodes == {"classifier/features": [], "classifier/hidden": ["classifier/features"],
                     "classifier/logits": ["classifier/hidden"]}
    assert "keras" not in runs["validation"]["tensors"]


def test_weight_histograms_every_histogram_freq_epochs(full_fit):
    runs, seen, _ = full_fit
    hists = runs["train"]["histograms"]
    assert set(hists) == {f"{path}/histogram" for path in seen["weights"]}
    assert {path.split("/")[-1] for path in seen["weights"]} == {"kernel", "bias"}
    for path, final in seen["weights"].items():
        entries = hists[f"{path}/histogram"]
        assert [s for s, _ in entries] == [0, 2]
        _, last = entries[-1]  # epoch 2 is the last: its histogram holds the final weights
        array = np.asarray(final)
        assert last["num"] == array.size == sum(last["bucket"])
        assert last["sum"] == pytest.approx(array.sum(), rel=1e-5, abs=1e-5)
        assert last["min"] == pytest.approx(array.min()) and last["max"] == pytest.approx(array.max())


def test_write_images_shows_each_weight(full_fit):
    runs, seen, _ = full_fit
    images = runs["train"]["image_samples"]
    assert set(images) == {f"{path}/image" for path in seen["weights"]}
    for path, final in seen["weights"].items():
        shape = np.asarray(final).shape
        # bias: n pixels high, 1 wide; kernel: the shorter side vertical
        height, width = (shape[0], 1) if len(shape) == 1 else (min(shape), max(shape))
        entries = images[f"{path}/image"]
        assert [step for step, _ in entries] == [0, 2]
        assert all([(i["width"], i["height"]) for i in samples] == [(width, height)] for _, samples in entries)


@pytest.mark.parametrize("backend", BACKENDS)
def test_conv_kernel_images_are_samples_as_keras_shows_them(backend, tmp_path_factory):
    """Keras's callback: a 4-d kernel with 1, 3 or 4 filters is a batch of colour images (first axis);
    a 1-d conv kernel one grey image per filter; at most 3 images, each a sample of its own."""
    runs, seen, _ = fit(tmp_path_factory, backend, "conv", histogram_freq=1, write_images=True, write_graph=False)
    images = runs["train"]["image_samples"]
    kernel2d = np.asarray(seen["weights"]["sequential/conv2d/kernel"])  # (3, 3, 2, 3)
    _, samples = images["sequential/conv2d/kernel/image"][-1]
    assert [(i["width"], i["height"], i["mode"]) for i in samples] == [(2, 3, "RGB")] * 3
    for index, sample in enumerate(samples):
        expected = np.clip(np.round(kernel2d[index] * 255), 0, 255).astype(np.uint8)
        assert np.array_equal(as_array(sample["pixels"]), expected)
    kernel1d = np.asarray(seen["weights"]["sequential/conv1d/kernel"])  # (2, 3, 4): 4 filters, 3 shown
    _, samples = images["sequential/conv1d/kernel/image"][-1]
    assert [(i["width"], i["height"]) for i in samples] == [(3, 2)] * 3
    for index, sample in enumerate(samples):
        expected = np.clip(np.round(kernel1d[:, :, index] * 255), 0, 255).astype(np.uint8)
        assert np.array_equal(as_array(sample["pixels"]), expected)


def test_an_epoch_and_an_evaluation_are_on_disk_when_they_end(tmp_path):
    """Each epoch's and each evaluation's records are flushed as Keras's callback flushes them, also
    after a fit that raised (its writer stays open): a process killed afterwards keeps them."""
    run_script("jax", "interrupted", str(tmp_path))
    runs = upstream_read(tmp_path)["runs"]
    assert scalars(runs, "train", "epoch_loss")[0] == [0, 1]
    assert scalars(runs, "validation", "epoch_loss")[0] == [0, 1]
    assert scalars(runs, "validation", "evaluation_loss_vs_iterations")[0] == [4, 8, 8]


def test_update_freq_int_logs_batches_every_n(full_fit):
    runs, seen, _ = full_fit
    total = EPOCHS * STEPS_PER_EPOCH
    expected_steps = list(range(3, total + 1, 3))
    assert len(seen["batch_logs"]) == total
    for metric in ("loss", "accuracy"):
        steps, values = scalars(runs, "train", f"batch_{metric}")
        assert steps == expected_steps
        assert values == pytest.approx([seen["batch_logs"][s - 1][metric] for s in expected_steps], rel=1e-6)
    assert not any(tag.startswith("batch_") for tag in runs["validation"]["scalars"])


def test_write_steps_per_second(full_fit):
    runs, _, _ = full_fit
    steps, values = scalars(runs, "train", "batch_steps_per_second")
    assert steps == list(range(3, EPOCHS * STEPS_PER_EPOCH + 1, 3)) and all(v > 0 for v in values)
    steps, values = scalars(runs, "train", "epoch_steps_per_second")
    assert steps == list(range(EPOCHS)) and all(v > 0 for v in values)
    assert "keras" not in runs["train"]["tensors"]  # write_graph=False


def test_embeddings_go_to_the_projector(tmp_path_factory):
    runs, seen, logdir = fit(tmp_path_factory, "jax", "embedding", embeddings_freq=2,
                             embeddings_metadata="labels.tsv")
    projector = runs["train"]["projector"]
    names = sorted(e["tensor_name"] for e in projector["embeddings"])
    assert names == ["tokens:00000", "tokens:00002"]
    last = next(e for e in projector["embeddings"] if e["tensor_name"] == "tokens:00002")
    [matrix] = [np.asarray(w) for path, w in seen["weights"].items() if path.endswith("tokens/embeddings")]
    np.testing.assert_allclose(as_array(last["tensor"]), matrix, rtol=1e-6)
    assert last["metadata"] == [f"token{i}" for i in range(10)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_arguments_raise_clear_errors(backend, tmp_path):
    out = tmp_path / "errors.json"
    run_script(backend, "errors", str(out), str(tmp_path / "logs"))
    seen = json.loads(out.read_text())
    assert not seen.pop("tensorflow_imported")
    expected = {
        "profile_batch": ("ValueError", "profile_batch=5"),
        "profile_batch_range": ("ValueError", "profile_batch=(2, 4)"),
        "update_freq": ("ValueError", "update_freq"),
        "update_freq_zero": ("ValueError", "update_freq"),
        "histogram_freq": ("ValueError", "histogram_freq"),
        "embeddings_freq": ("ValueError", "embeddings_freq"),
        "write_images": ("TypeError", "write_images"),
        "log_dir": ("TypeError", "log_dir"),
        "embeddings_metadata": ("TypeError", "embeddings_metadata"),
        "embeddings_metadata_layer": ("ValueError", "no_such_layer"),
    }
    for case, (kind, named) in expected.items():
        assert seen[case][0] == kind, (case, seen[case])
        assert named in seen[case][1], (case, seen[case])
    assert "TensorFlow" in seen["profile_batch"][1]
    kind, messages = seen["subclassed_graph"]
    assert kind is None and any("write_graph" in m and "no graph written" in m for m in messages)


def test_non_finite_weights_warn_naming_the_weight(tmp_path):
    """A diverged weight's histogram counts only its finite values: the callback says so, per weight."""
    out = tmp_path / "diverged.json"
    run_script("jax", "diverged", str(tmp_path / "logs"), str(out))
    messages = json.loads(out.read_text())["messages"]
    assert any("'sequential/dense/kernel': 3 of 12 values are NaN or infinite at epoch 0" in m for m in messages)
    assert any("'sequential/dense/bias': 3 of 3 values" in m and "so none is written" in m for m in messages)
    histograms = upstream_read(tmp_path / "logs")["runs"]["train"]["histograms"]
    assert [h["num"] for _, h in histograms["sequential/dense/kernel/histogram"]] == [9.0]
    assert "sequential/dense/bias/histogram" not in histograms
