"""The seed documents' workflows, run for real in the MXNet 1.9.1 venv and read back by upstream.

seed002_module_fit.py: FileWriter + tensorboard.summary.* from Module.fit callbacks and a Monitor.
seed003_gluon_mnist.py: SummaryWriter from a Gluon training loop, the graph, ConvNet-code embeddings.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from graph.graph_view import GraphView
from seeds.mxnet_venv import run_mxnet
from seeds.synthetic_mnist import make_digits
from upstream import as_array, upstream_read

HERE = Path(__file__).parent
EPOCHS_002 = 3
BATCHES_002 = 6000 // 100
EPOCHS_003 = 2
TRAIN_003, BATCH_003 = 3000, 100


@pytest.fixture(scope="module")
def seed002(tmp_path_factory):
    work = tmp_path_factory.mktemp("seed002")
    os.environ["SEED_EPOCHS"] = str(EPOCHS_002)
    run_mxnet([str(HERE / "seed002_module_fit.py")], cwd=work)  # the tutorial's 'logs/'
    return upstream_read(work / "logs")["runs"]


@pytest.fixture(scope="module")
def seed003(tmp_path_factory):
    work = tmp_path_factory.mktemp("seed003")
    run_mxnet([str(HERE / "seed003_gluon_mnist.py"), "--logdir", "./logs", "--epochs", str(EPOCHS_003)], cwd=work)
    return upstream_read(work / "logs")["runs"]


def test_seed002_accuracy_scalars_once_per_epoch(seed002):
    run = seed002["."]
    for tag in ("train-accuracy", "eval-accuracy"):
        values = [v for _, _, v in run["scalars"][tag]]
        assert len(values) == EPOCHS_002, tag
        assert all(0.0 <= v <= 1.0 for v in values)
    # the synthetic digits are learnable: validation accuracy ends well above chance
    assert run["scalars"]["eval-accuracy"][-1][2] > 0.5


def test_seed002_weight_histograms_count_every_weight(seed002):
    hist = seed002["."]["histograms"]["fc1-weight"]
    assert len(hist) == EPOCHS_002 * len(range(0, BATCHES_002, 100))
    for _, h in hist:
        assert h["num"] == 128 * 784 and sum(h["bucket"]) == 128 * 784
        assert h["min"] <= h["max"]


def test_seed002_weight_images_per_epoch(seed002):
    images = seed002["."]["images"]
    assert sorted(images) == [f"fc1-weight_epoch{e}" for e in range(EPOCHS_002)]
    for tag, entries in images.items():
        (_, width, height, decoded), = entries
        assert (width, height) == (784, 128) and (decoded["width"], decoded["height"]) == (784, 128)
        assert decoded["mode"] in ("L", "I;16", "I")


def test_seed003_training_curves(seed003):
    scalars = seed003["."]["scalars"]
    steps = [s for s, _, _ in scalars["cross_entropy"]]
    assert steps == list(range(EPOCHS_003 * (TRAIN_003 // BATCH_003)))
    assert [s for s, _, _ in scalars["train_acc"]] == list(range(EPOCHS_003))
    assert [s for s, _, _ in scalars["valid_acc"]] == list(range(EPOCHS_003))
    losses = [v for _, _, v in scalars["cross_entropy"]]
    assert np.mean(losses[-10:]) < np.mean(losses[:10])


def test_seed003_first_minibatch_images(seed003):
    entries = seed003["."]["images"]["minist_first_minibatch"]
    assert [e[0] for e in entries] == list(range(EPOCHS_003))
    for _, width, height, decoded in entries:  # 100 digits tiled into one image
        assert width * height >= BATCH_003 * 28 * 28
        assert as_array(decoded["pixels"]).max() > 0


def test_seed003_gradient_histograms_with_1000_bins(seed003):
    hists = seed003["."]["histograms"]
    sizes = {"dense0_weight": 128 * 784, "dense0_bias": 128, "dense1_weight": 64 * 128, "dense1_bias": 64,
             "dense2_weight": 10 * 64, "dense2_bias": 10}
    assert sorted(hists) == sorted(f"hybridsequential0_{k}" for k in sizes)
    for key, size in sizes.items():
        entries = hists[f"hybridsequential0_{key}"]
        assert [step for step, _ in entries] == list(range(EPOCHS_003))
        for _, h in entries:
            assert h["num"] == size and sum(h["bucket"]) == size
            assert len(h["bucket"]) <= 1000 + 2


def test_seed003_graph_has_the_gluon_structure(seed003):
    view = GraphView.from_upstream(seed003["."]["graph"])
    dense = [f"hybridsequential0/dense{i}/fwd" for i in range(3)]
    for name in dense:
        assert view.nodes[name]["op"] == "FullyConnected"
    assert view.nodes[dense[0]]["inputs"][0] == ("data", 0)
    assert view.nodes["hybridsequential0/dense0/relu/fwd"]["inputs"] == [(dense[0], 0)]
    assert view.nodes[dense[1]]["inputs"][0] == ("hybridsequential0/dense0/relu/fwd", 0)
    assert view.nodes[dense[2]]["attrs"]["num_hidden"] == 10
    assert view.nodes["hybridsequential0/dense0/weight"]["attrs"]["_output_shapes"] == [[128, 784]]


def test_seed003_convnet_codes_embedding(seed003):
    projector = seed003["."]["projector"]
    (embedding,) = projector["embeddings"]
    assert embedding["tensor_shape"] == [200, 64]
    assert as_array(embedding["tensor"]).shape == (200, 64)
    labels = make_digits(500, seed=2)[1][:200]
    assert embedding["metadata"] == [str(label) for label in labels]
    assert embedding["sprite"]["single_image_dim"] == [28, 28]
