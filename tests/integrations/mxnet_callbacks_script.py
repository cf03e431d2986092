"""Run in .venv-mxnet: seed 002's workflow with tensorboard.integrations.mxnet's one-liners.

Usage: mxnet_callbacks_script.py LOGDIR WRITER   (WRITER: FileWriter or SummaryWriter)
Writes LOGDIR/expected.json with what MXNet itself saw (metrics per epoch, final fc1 weight).
"""
import json
import logging
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "seeds"))

import mxnet as mx
import numpy as np
from synthetic_mnist import make_digits

import tensorboard
from tensorboard.integrations.mxnet import GradientMonitor, LogMetricsCallback, LogParamsCallback

logging.basicConfig(level=logging.INFO)
logdir, writer_name = sys.argv[1], sys.argv[2]
mx.random.seed(0)
np.random.seed(0)
images, labels = make_digits(1200, seed=1)
val_images, val_labels = make_digits(400, seed=2)
train_iter = mx.io.NDArrayIter(images.reshape(-1, 784).astype(np.float32) / 255, labels, batch_size=100,
                               label_name="softmax_label")
eval_iter = mx.io.NDArrayIter(val_images.reshape(-1, 784).astype(np.float32) / 255, val_labels,
                              batch_size=100, label_name="softmax_label")
net = mx.sym.Variable("data")
net = mx.sym.FullyConnected(net, name="fc1", num_hidden=32)
net = mx.sym.Activation(net, name="relu1", act_type="relu")
net = mx.sym.FullyConnected(net, name="fc2", num_hidden=10)
net = mx.sym.SoftmaxOutput(net, name="softmax")

writer = getattr(tensorboard, writer_name)(logdir)
writer.add_graph(net, input_to_model={"data": (100, 784)})
seen = {"eval": [], "train_batches": 0}


def record_eval(param):
    seen["eval"].append(dict(param.eval_metric.get_name_value()))


def count(param):
    seen["train_batches"] += 1


model = mx.mod.Module(net, context=mx.cpu())
model.fit(train_iter, eval_data=eval_iter, eval_metric=["accuracy", "ce"], num_epoch=3,
          optimizer_params={"learning_rate": 0.1, "momentum": 0.9}, initializer=mx.init.Xavier(),
          batch_end_callback=[count, LogMetricsCallback(writer, "train-", frequency=4),
                              LogParamsCallback(writer, pattern="fc1_weight", prefix="batch/", frequency=6)],
          eval_end_callback=[record_eval, LogMetricsCallback(writer, "eval-")],
          epoch_end_callback=LogParamsCallback(writer, include_aux=True),
          monitor=GradientMonitor(writer, interval=5, pattern="fc._backward_weight", prefix="grad/"))
writer.close()
arg_params, _ = model.get_params()
with open(os.path.join(logdir, "expected.json"), "w") as f:
    json.dump({"eval": seen["eval"], "train_batches": seen["train_batches"],
               "fc1_weight_sum": float(arg_params["fc1_weight"].asnumpy().astype(np.float64).sum())}, f)
