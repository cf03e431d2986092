#!/usr/bin/env python3
"""Standalone TensorBoard demo: trains a small digit classifier and logs every data type.

    .venv/bin/python demo/demo.py --logdir demo_logs [--framework auto|mxnet|numpy] [--epochs 30] [--port 6006]
    .venv/bin/tensorboard --logdir demo_logs --port 6006

Data: scikit-learn's bundled 8x8 handwritten digits (`load_digits()`, no download).
Model: a 64-32-10 MLP, trained with SGD + momentum at three learning rates, one run each
(`lr_0.01`, `lr_0.1`, `lr_0.5`). MXNet Gluon is used when importable (or asked for),
otherwise a NumPy implementation with hand-written backprop.

Logged: loss/accuracy curves (train and validation), weight and gradient
histograms, input digits, misclassified digits, a confusion-matrix figure (matplotlib;
an image without it), audio (a tone per predicted digit), text notes, per-digit PR curves,
hparams in each run itself (learning rate -> the validation curves' final accuracy/loss, so
the run list shows exactly one run per learning rate), the model graph, hidden-layer
embeddings with digit sprites for the Projector, a Custom Scalars layout (train vs validation,
the batch losses' range as a margin) and the hidden layer as a 3-D point cloud (Mesh).
At the end the demo writes `report.html` into the logdir: every run in one self-contained page.

Each run starts from a fresh logdir: a directory this script wrote (it holds the marker file
`.tensorboard-demo`) is removed first; any other non-empty directory is refused.
"""
from __future__ import annotations

import argparse
import math
import os
import shlex
import shutil
import sys
import time
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.join(HERE, "..", "python")
if os.path.exists(os.path.join(SOURCE, "tensorboard", "src", "graph_pb2.py")):  # a built source checkout
    sys.path.insert(0, SOURCE)

import tensorboard  # noqa: E402
from tensorboard.graph import GraphBuilder  # noqa: E402

HIDDEN = 32
CLASSES = 10
LEARNING_RATES = (0.01, 0.1, 0.5)
MARKER = ".tensorboard-demo"  # written into the logdir: the demo only ever removes a directory holding it
# one colour per digit for the 3-D point cloud (uint8 RGB)
DIGIT_COLORS = np.array([[31, 119, 180], [255, 127, 14], [44, 160, 44], [214, 39, 40], [148, 103, 189],
                         [140, 86, 75], [227, 119, 194], [127, 127, 127], [188, 189, 34], [23, 190, 207]],
                        dtype=np.uint8)
LAYOUT = {
    "loss": {"train vs validation": ["Multiline", [r"^loss/(train|validation)$"]],
             "train: epoch mean, batch min..max": ["Margin", ["loss/train", "loss/train_batch_min",
                                                              "loss/train_batch_max"]]},
    "accuracy": {"train vs validation": ["Multiline", [r"^accuracy/(train|validation)$"]]},
}


# -- data ----------------------------------------------------------------------------------

def load_data(seed: int = 0) -> dict[str, np.ndarray]:
    """scikit-learn's digits, scaled to [0, 1], split 80/20."""
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        sys.exit("demo.py needs scikit-learn for its data set (sklearn.datasets.load_digits): "
                 "pip install scikit-learn")
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.RandomState(seed).permutation(len(x))
    split = int(0.8 * len(x))
    train, val = order[:split], order[split:]
    return {"x_train": x[train], "y_train": y[train], "x_val": x[val], "y_val": y[val]}


# -- models --------------------------------------------------------------------------------

class NumpyMLP:
    """64 -> 32 (ReLU) -> 10 (softmax) with cross-entropy and SGD + momentum, in NumPy."""

    name = "numpy"

    def __init__(self, lr: float, seed: int = 0, momentum: float = 0.9) -> None:
        rng = np.random.RandomState(seed)
        self.params = {
            "hidden/weight": (rng.randn(64, HIDDEN) * math.sqrt(2 / 64)).astype(np.float32),
            "hidden/bias": np.zeros(HIDDEN, np.float32),
            "output/weight": (rng.randn(HIDDEN, CLASSES) * math.sqrt(1 / HIDDEN)).astype(np.float32),
            "output/bias": np.zeros(CLASSES, np.float32),
        }
        self.velocity = {k: np.zeros_like(v) for k, v in self.params.items()}
        self.lr, self.momentum = lr, momentum
        self.grads: dict[str, np.ndarray] = {}

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(class probabilities, hidden activations)."""
        p = self.params
        hidden = np.maximum(x @ p["hidden/weight"] + p["hidden/bias"], 0)
        logits = hidden @ p["output/weight"] + p["output/bias"]
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(axis=1, keepdims=True), hidden

    def train_step(self, x: np.ndarray, y: np.ndarray) -> float:
        p = self.params
        probs, hidden = self.forward(x)
        loss = float(-np.log(probs[np.arange(len(y)), y] + 1e-12).mean())
        d_logits = probs.copy()
        d_logits[np.arange(len(y)), y] -= 1
        d_logits /= len(y)
        d_hidden = (d_logits @ p["output/weight"].T) * (hidden > 0)
        self.grads = {"output/weight": hidden.T @ d_logits, "output/bias": d_logits.sum(0),
                      "hidden/weight": x.T @ d_hidden, "hidden/bias": d_hidden.sum(0)}
        for key, grad in self.grads.items():
            self.velocity[key] = self.momentum * self.velocity[key] - self.lr * grad
            p[key] += self.velocity[key]
        return loss

    def weights(self) -> dict[str, np.ndarray]:
        return self.params

    def graph(self) -> Any:
        """The MLP as a GraphDef: one node per operation, scoped by layer, with shapes."""
        g = GraphBuilder()
        x = g.add("input/digits", "Input", attrs={"dtype": "float32"}, shapes=[[-1, 64]])
        labels = g.add("input/labels", "Input", attrs={"dtype": "int64"}, shapes=[[-1]])
        prev, width = x, 64
        for layer, units, act in (("hidden", HIDDEN, "Relu"), ("output", CLASSES, "Softmax")):
            w = g.add(f"{layer}/weight", "Parameter", shapes=[[width, units]])
            b = g.add(f"{layer}/bias", "Parameter", shapes=[[units]])
            mm = g.add(f"{layer}/MatMul", "MatMul", [prev, w], attrs={"transpose_b": False}, shapes=[[-1, units]])
            add = g.add(f"{layer}/BiasAdd", "BiasAdd", [mm, b], shapes=[[-1, units]])
            prev = g.add(f"{layer}/{act}", act, [add], attrs={"axis": -1} if act == "Softmax" else {},
                         shapes=[[-1, units]])
            width = units
        g.add("loss/CrossEntropy", "SparseSoftmaxCrossEntropy", [prev, labels], shapes=[[]])
        return g.build()


class MXNetMLP:
    """The same MLP in MXNet Gluon (HybridSequential, hybridized), trained with autograd."""

    name = "mxnet"

    def __init__(self, lr: float, seed: int = 0, momentum: float = 0.9) -> None:
        import mxnet as mx
        from mxnet import gluon

        self.mx = mx
        mx.random.seed(seed)
        self.net = gluon.nn.HybridSequential(prefix="mlp_")
        with self.net.name_scope():
            self.net.add(gluon.nn.Dense(HIDDEN, activation="relu", prefix="hidden_"))
            self.net.add(gluon.nn.Dense(CLASSES, prefix="output_"))
        self.net.initialize(mx.init.Xavier(magnitude=2.0))
        self.net.hybridize()
        self.trainer = gluon.Trainer(self.net.collect_params(), "sgd", {"learning_rate": lr, "momentum": momentum})
        self.loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        self.grads: dict[str, np.ndarray] = {}

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        data = self.mx.nd.array(x)
        hidden = self.net[0](data)
        probs = self.mx.nd.softmax(self.net[1](hidden))
        return probs.asnumpy(), hidden.asnumpy()

    def train_step(self, x: np.ndarray, y: np.ndarray) -> float:
        data, label = self.mx.nd.array(x), self.mx.nd.array(y)
        with self.mx.autograd.record():
            loss = self.loss_fn(self.net(data), label)
        loss.backward()
        self.trainer.step(len(x))
        self.grads = {self._tag(k): p.grad().asnumpy() for k, p in self.net.collect_params().items()}
        return float(loss.mean().asscalar())

    def weights(self) -> dict[str, np.ndarray]:
        return {self._tag(k): p.data().asnumpy() for k, p in self.net.collect_params().items()}

    @staticmethod
    def _tag(name: str) -> str:  # "mlp_hidden_weight" -> "hidden/weight"
        return name[len("mlp_"):].replace("_", "/", 1)

    def graph(self) -> Any:
        return self.net  # hybridized and run: add_graph converts its cached symbol


def pick_model(framework: str):
    if framework in ("auto", "mxnet"):
        try:
            import mxnet  # noqa: F401

            return MXNetMLP
        except Exception as error:  # noqa: BLE001 - MXNet 1.9 fails on new NumPy with AttributeError
            if framework == "mxnet":
                sys.exit(f"--framework mxnet, but MXNet does not import: {error}")
    return NumpyMLP


# -- logging helpers -----------------------------------------------------------------------

def upscale(images: np.ndarray, factor: int = 4) -> np.ndarray:
    """N x 64 digits -> N x 1 x 32 x 32 in [0, 1], big enough to see."""
    square = images.reshape(-1, 8, 8)
    return np.kron(square, np.ones((factor, factor), dtype=square.dtype))[:, None]


def confusion(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    matrix = np.zeros((CLASSES, CLASSES), dtype=np.int64)
    np.add.at(matrix, (y_true, y_pred), 1)
    return matrix


def log_confusion(writer: Any, matrix: np.ndarray, step: int) -> None:
    """A matplotlib figure when available; otherwise the matrix as a heat-map image."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("demo: matplotlib is not installed; logging the confusion matrix as a plain image instead")
        heat = matrix / max(matrix.max(), 1)
        writer.add_image("confusion_matrix", np.kron(heat, np.ones((16, 16))), global_step=step, dataformats="HW")
        return
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.imshow(matrix, cmap="Blues")
    ax.set_xlabel("predicted digit")
    ax.set_ylabel("true digit")
    ax.set_xticks(range(CLASSES))
    ax.set_yticks(range(CLASSES))
    for (i, j), count in np.ndenumerate(matrix):
        ax.text(j, i, str(count), ha="center", va="center", color="white" if count > matrix.max() / 2 else "black")
    ax.set_title(f"validation confusion matrix, epoch {step}")
    writer.add_figure("confusion_matrix", fig, global_step=step)


def point_cloud(hidden: np.ndarray) -> np.ndarray:
    """Hidden activations projected on their first three principal axes: [1, N, 3] float32, within [-1, 1]."""
    centred = hidden - hidden.mean(axis=0)
    _, _, axes = np.linalg.svd(centred, full_matrices=False)
    points = centred @ axes[:3].T
    return (points / max(float(np.abs(points).max()), 1e-12))[None].astype(np.float32)


def tones(predictions: np.ndarray, sample_rate: int = 16000, seconds: float = 0.25) -> np.ndarray:
    """One short tone per predicted digit: digit d sounds at 440 Hz * 2^(d/12)."""
    t = np.arange(int(sample_rate * seconds)) / sample_rate
    envelope = np.minimum(1, np.minimum(t, t[::-1]) * 40)
    clips = [0.5 * envelope * np.sin(2 * np.pi * 440 * 2 ** (d / 12) * t) for d in predictions]
    return np.concatenate(clips).astype(np.float32)


def notes(lr: float, model_name: str, matrix: np.ndarray, seconds: float) -> str:
    per_class = matrix.diagonal() / np.maximum(matrix.sum(axis=1), 1)
    rows = "\n".join(f"| {d} | {per_class[d]:.3f} | {matrix[d].sum()} |" for d in range(CLASSES))
    return (f"**{model_name} MLP** 64-{HIDDEN}-{CLASSES}, SGD lr={lr}, momentum 0.9, "
            f"trained in {seconds:.1f} s.\n\n| digit | recall | samples |\n|---|---|---|\n{rows}")


# -- training ------------------------------------------------------------------------------

def train_run(logdir: str, lr: float, model_class, data: dict, epochs: int, batch: int, seed: int,
              rich: bool) -> dict[str, float]:
    """Trains one model and logs it to `logdir`; `rich` adds images, audio and the figure."""
    model = model_class(lr, seed=seed)
    rng = np.random.RandomState(seed)
    x_train, y_train, x_val, y_val = data["x_train"], data["y_train"], data["x_val"], data["y_val"]
    writer = tensorboard.SummaryWriter(logdir, flush_secs=10)
    writer.add_text("notes/setup", f"Run `{os.path.basename(logdir)}`: {model.name} MLP on scikit-learn digits "
                    f"({len(x_train)} train / {len(x_val)} validation), lr={lr}, batch {batch}.", 0)
    writer.add_images("digits/train_samples", upscale(x_train[:32]), 0)
    writer.add_custom_scalars(LAYOUT)
    start, step = time.time(), 0
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(x_train))
        losses = []
        for first in range(0, len(order), batch):
            idx = order[first:first + batch]
            losses.append(model.train_step(x_train[idx], y_train[idx]))
            step += 1
        probs_train, _ = model.forward(x_train)
        probs_val, hidden_val = model.forward(x_val)
        train_loss = float(np.mean(losses))
        val_loss = float(-np.log(probs_val[np.arange(len(y_val)), y_val] + 1e-12).mean())
        train_acc = float((probs_train.argmax(1) == y_train).mean())
        val_acc = float((probs_val.argmax(1) == y_val).mean())
        writer.add_scalar("loss/train", train_loss, epoch)
        writer.add_scalar("loss/train_batch_min", float(np.min(losses)), epoch)
        writer.add_scalar("loss/train_batch_max", float(np.max(losses)), epoch)
        writer.add_scalar("loss/validation", val_loss, epoch)
        writer.add_scalar("accuracy/train", train_acc, epoch)
        writer.add_scalar("accuracy/validation", val_acc, epoch)
        writer.add_scalar("learning_rate", lr, epoch)
        for name, values in model.weights().items():
            writer.add_histogram(f"weights/{name}", values, epoch)
        for name, values in model.grads.items():
            writer.add_histogram(f"gradients/{name}", values, epoch)
        if epoch == 1:
            writer.add_graph(model.graph())
        if epoch % max(1, epochs // 3) == 0 or epoch == epochs:
            for digit in range(CLASSES):
                writer.add_pr_curve(f"pr_curve/digit_{digit}", y_val == digit, probs_val[:, digit], global_step=epoch)
            writer.add_mesh("hidden_layer_3d", point_cloud(hidden_val), colors=DIGIT_COLORS[y_val][None],
                            config_dict={"material": {"cls": "PointsMaterial", "size": 0.05}}, global_step=epoch)
    seconds = time.time() - start
    predictions = probs_val.argmax(1)
    matrix = confusion(y_val, predictions)
    writer.add_text("notes/summary", notes(lr, model.name, matrix, seconds), epochs)
    wrong = np.flatnonzero(predictions != y_val)[:16]
    if len(wrong):
        writer.add_images("digits/misclassified", upscale(x_val[wrong]), epochs)
        writer.add_text("notes/misclassified", ", ".join(f"{y_val[i]}→{predictions[i]}" for i in wrong), epochs)
    if rich:
        log_confusion(writer, matrix, epochs)
        writer.add_audio("audio/predicted_digits", tones(predictions[:8]), global_step=epochs, sample_rate=16000)
        writer.add_text("notes/audio", "Each tone is one validation digit's prediction: digit d plays at "
                        f"440·2^(d/12) Hz. Predictions: {', '.join(map(str, predictions[:8]))}; "
                        f"true: {', '.join(map(str, y_val[:8]))}.", epochs)
    writer.add_embedding(mat=hidden_val, metadata=[str(d) for d in y_val], label_img=upscale(x_val, 2),
                         global_step=epochs, tag="hidden_layer")
    # The session goes into this run: the HParams dashboard lists one trial per run, named by the run,
    # and its metrics are the run's own validation curves (their last points).
    writer.add_hparams({"lr": lr, "hidden_units": HIDDEN, "framework": model.name, "epochs": epochs},
                       {"accuracy/validation": val_acc, "loss/validation": val_loss}, global_step=epochs)
    writer.close()
    return {"accuracy": val_acc, "loss": val_loss, "seconds": seconds}


def fresh_logdir(logdir: str) -> None:
    """Empties `logdir` when this script wrote it (it holds MARKER); refuses any other non-empty directory."""
    if os.path.isdir(logdir) and os.listdir(logdir):
        if not os.path.isfile(os.path.join(logdir, MARKER)):
            sys.exit(f"demo: {logdir} exists and was not written by demo.py (no {MARKER} file in it); "
                     f"pass another --logdir, or remove {logdir} yourself")
        shutil.rmtree(logdir)
    elif os.path.exists(logdir) and not os.path.isdir(logdir):
        sys.exit(f"demo: --logdir {logdir} is a file, not a directory")
    os.makedirs(logdir, exist_ok=True)
    with open(os.path.join(logdir, MARKER), "w") as f:
        f.write("Written by demo/demo.py: running it again removes this directory and writes it afresh.\n")


def launcher_command(logdir: str, port: int) -> str:
    """A command that serves `logdir` as printed: the `tensorboard` next to this interpreter when there is one."""
    here = os.path.join(os.path.dirname(sys.executable), "tensorboard")
    if os.path.exists(here):
        relative = os.path.relpath(here)
        launcher = relative if not relative.startswith("..") else here
        launcher = launcher if os.sep in launcher else os.path.join(".", launcher)
    else:
        launcher = shutil.which("tensorboard") or "tensorboard"
    return f"{shlex.quote(launcher)} --logdir {shlex.quote(logdir)} --port {port}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--logdir", default="demo_logs", help="where to write the runs (default: demo_logs)")
    parser.add_argument("--framework", choices=("auto", "mxnet", "numpy"), default="auto",
                        help="auto: MXNet when importable, else NumPy")
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--port", type=int, default=os.environ.get("DEMO_PORT", "6006"),
                        help="the port the printed tensorboard command uses (default: $DEMO_PORT, else 6006)")
    args = parser.parse_args(argv)
    data = load_data(args.seed)
    model_class = pick_model(args.framework)
    fresh_logdir(args.logdir)
    print(f"demo: {model_class.name} MLP on {len(data['x_train'])} digits, {args.epochs} epochs, "
          f"learning rates {', '.join(map(str, LEARNING_RATES))} -> {args.logdir}")
    for index, lr in enumerate(LEARNING_RATES):
        result = train_run(os.path.join(args.logdir, f"lr_{lr}"), lr, model_class, data, args.epochs,
                           args.batch_size, args.seed, rich=(index == 1))
        print(f"demo: lr={lr}: validation accuracy {result['accuracy']:.3f}, loss {result['loss']:.3f} "
              f"({result['seconds']:.1f} s)")
    from tensorboard.report import export_report

    report = os.path.join(args.logdir, "report.html")
    export_report(args.logdir, report, title=f"demo: {model_class.name} MLP, learning rates "
                  f"{', '.join(map(str, LEARNING_RATES))}")
    print(f"demo: wrote {report}: the runs in one self-contained page (open it in a browser, offline)")
    print(f"demo: done. View it with: {launcher_command(args.logdir, args.port)}  "
          f"(then open http://localhost:{args.port}/)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
