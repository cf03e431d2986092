"""Seed 003 (the MXBoard demo): Gluon MNIST training logged with SummaryWriter, then ConvNet codes
as embeddings.

Adapted only in its data and size: `gluon.data.vision.MNIST` (a download) becomes synthetic
MNIST-shaped digits, with fewer examples and epochs; the embedding part uses the trained
network's penultimate-layer codes of validation digits instead of a downloaded ImageNet
ResNet-152. Every SummaryWriter call is the demo's.
Usage: seed003_gluon_mnist.py [--logdir ./logs] [--epochs 2], run inside .venv-mxnet.
"""
from __future__ import print_function

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mxnet as mx
import numpy as np
from mxnet import autograd, gluon
from mxnet.gluon import nn
from synthetic_mnist import make_digits

from tensorboard import SummaryWriter

parser = argparse.ArgumentParser(description='MXNet Gluon MNIST Example')
parser.add_argument('--logdir', type=str, default='./logs')
parser.add_argument('--batch-size', type=int, default=100)
parser.add_argument('--epochs', type=int, default=2)
parser.add_argument('--lr', type=float, default=0.1)
parser.add_argument('--momentum', type=float, default=0.9)
parser.add_argument('--num-train', type=int, default=3000)
opt = parser.parse_args()

# define network: HybridSequential, so that the graph can be plotted
net = nn.HybridSequential()
with net.name_scope():
    net.add(nn.Dense(128, activation='relu'))
    net.add(nn.Dense(64, activation='relu'))
    net.add(nn.Dense(10))


# data: synthetic MNIST-shaped digits instead of gluon.data.vision.MNIST (a download)
def transformer(data, label):
    data = data.reshape((-1,)).astype(np.float32) / 255
    return data, label


train_images, train_labels = make_digits(opt.num_train, seed=1)
val_images, val_labels = make_digits(500, seed=2)
train_data = gluon.data.DataLoader(
    gluon.data.ArrayDataset(mx.nd.array(train_images, dtype=np.uint8), train_labels).transform(transformer),
    batch_size=opt.batch_size, shuffle=True, last_batch='discard')
val_data = gluon.data.DataLoader(
    gluon.data.ArrayDataset(mx.nd.array(val_images, dtype=np.uint8), val_labels).transform(transformer),
    batch_size=opt.batch_size, shuffle=False)


def test(ctx):
    metric = mx.metric.Accuracy()
    for data, label in val_data:
        data = data.as_in_context(ctx)
        label = label.as_in_context(ctx)
        output = net(data)
        metric.update([label], [output])
    return metric.get()


def train(epochs, ctx):
    # Collect all parameters from net and its children, then initialize them.
    net.initialize(mx.init.Xavier(magnitude=2.24), ctx=ctx)
    net.hybridize()
    # Trainer is for updating parameters with gradient.
    trainer = gluon.Trainer(net.collect_params(), 'sgd',
                            {'learning_rate': opt.lr, 'momentum': opt.momentum})
    metric = mx.metric.Accuracy()
    loss = gluon.loss.SoftmaxCrossEntropyLoss()

    # collect parameter names for logging the gradients of parameters in each epoch
    params = net.collect_params()
    param_names = params.keys()

    # define a summary writer that logs data and flushes to the file every 5 seconds
    sw = SummaryWriter(logdir=opt.logdir, flush_secs=5)

    global_step = 0
    for epoch in range(epochs):
        # reset data iterator and metric at begining of epoch.
        metric.reset()
        for i, (data, label) in enumerate(train_data):
            # Copy data to ctx if necessary
            data = data.as_in_context(ctx)
            label = label.as_in_context(ctx)
            # Start recording computation graph with record() section.
            # Recorded graphs can then be differentiated with backward.
            with autograd.record():
                output = net(data)
                L = loss(output, label)
            L.backward()

            # take a gradient step with batch_size equal to data.shape[0]
            trainer.step(data.shape[0])
            # update metric at last.
            metric.update([label], [output])

            sw.add_scalar(tag='cross_entropy', value=L.mean().asscalar(), global_step=global_step)
            global_step += 1

            if i == 0:  # i here represents the minibatch id
                sw.add_image('minist_first_minibatch', data.reshape((opt.batch_size, 1, 28, 28)), epoch)

        if epoch == 0:
            sw.add_graph(net)

        grads = [i.grad() for i in net.collect_params().values()]
        assert len(grads) == len(param_names)
        # logging the gradients of parameters for checking convergence
        for i, name in enumerate(param_names):
            sw.add_histogram(tag=name, values=grads[i], global_step=epoch, bins=1000)

        name, acc = metric.get()
        print('[Epoch %d] Training: %s=%f' % (epoch, name, acc))
        # logging training accuracy
        sw.add_scalar(tag='train_acc', value=acc, global_step=epoch)

        name, val_acc = test(ctx)
        print('[Epoch %d] Validation: %s=%f' % (epoch, name, val_acc))
        # logging the validation accuracy
        sw.add_scalar(tag='valid_acc', value=val_acc, global_step=epoch)

    sw.close()


def convnet_codes(ctx, count=200):
    """The demo's "ConvNet codes": the last hidden layer's outputs (before the classifier)."""
    images = val_images[:count]
    data = mx.nd.array(images.reshape(count, -1).astype(np.float32) / 255, ctx=ctx)
    codes = data
    for layer in list(net._children.values())[:-1]:
        codes = layer(codes)
    return codes, mx.nd.array(images.reshape(count, 1, 28, 28), ctx=ctx), val_labels[:count]


if __name__ == '__main__':
    ctx = mx.cpu()
    train(opt.epochs, ctx)
    # plot_convnet_embedding.py: write the codes as an embedding with their images and labels
    codes, images, labels = convnet_codes(ctx)
    with SummaryWriter(logdir=opt.logdir) as sw:
        sw.add_embedding(tag='mnist_codes', embedding=codes, labels=[str(l) for l in labels], images=images / 255.0)
