"""Run in .venv-mxnet: writes MXNet graphs to OUT/<run> and MXNet's own JSON beside them.

Runs: symbol (seed 002's MLP with inferred shapes), gluon (hybridized and run),
gluon_traced (not hybridized, traced from an example input), export (the exported
*-symbol.json path). Also records the error for a block that was never run.
"""
import json
import os
import sys

import mxnet as mx
from mxnet import gluon

import tensorboard

out = sys.argv[1]

mlp = mx.sym.Variable("data")
mlp = mx.sym.FullyConnected(data=mlp, name="fc1", num_hidden=128)
mlp = mx.sym.Activation(data=mlp, name="relu1", act_type="relu")
mlp = mx.sym.FullyConnected(data=mlp, name="fc2", num_hidden=10)
mlp = mx.sym.SoftmaxOutput(data=mlp, name="softmax")
with tensorboard.FileWriter(os.path.join(out, "symbol")) as writer:
    writer.add_graph(mlp, input_to_model={"data": (32, 784)})
with open(os.path.join(out, "symbol.json"), "w") as f:
    f.write(mlp.tojson())


def convnet():
    net = gluon.nn.HybridSequential()
    with net.name_scope():
        net.add(gluon.nn.Conv2D(channels=8, kernel_size=3, activation="relu"))
        net.add(gluon.nn.BatchNorm())
        net.add(gluon.nn.MaxPool2D(pool_size=2))
        net.add(gluon.nn.Flatten())
        net.add(gluon.nn.Dense(10))
    net.initialize(mx.init.Xavier())
    return net


net = convnet()
try:
    tensorboard.SummaryWriter(os.path.join(out, "never_run")).add_graph(net)
    error = None
except ValueError as e:
    error = str(e)
with open(os.path.join(out, "never_run_error.txt"), "w") as f:
    f.write(error or "")

traced = convnet()
with tensorboard.SummaryWriter(os.path.join(out, "gluon_traced")) as sw:
    sw.add_graph(traced, input_to_model=mx.nd.zeros((4, 1, 28, 28)))
with open(os.path.join(out, "gluon_traced.json"), "w") as f:
    f.write(traced(mx.sym.var("data")).tojson())

net.hybridize()
net(mx.nd.random.uniform(shape=(4, 1, 28, 28)))
with tensorboard.SummaryWriter(os.path.join(out, "gluon")) as sw:
    sw.add_graph(net)
with open(os.path.join(out, "gluon.json"), "w") as f:
    f.write(net._cached_graph[1].tojson())
json.dump({k: list(v.shape) for k, v in net.collect_params().items()},
          open(os.path.join(out, "gluon_params.json"), "w"))

net.export(os.path.join(out, "exported"))
with tensorboard.SummaryWriter(os.path.join(out, "export")) as sw:
    sw.add_graph(os.path.join(out, "exported-symbol.json"))
print("ok")
