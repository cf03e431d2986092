"""Seed 002 ("在MXNet中使用Tensorboard"): the low-level FileWriter workflow from Module.fit callbacks.

Adapted only in its data: MNISTIter over downloaded MNIST files becomes NDArrayIter over
synthetic MNIST-shaped digits, with fewer examples and epochs. Every logging call is the
tutorial's. Usage: seed002_module_fit.py [LOGDIR] (default logs/), run inside .venv-mxnet.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import logging

import mxnet as mx
import numpy as np
from synthetic_mnist import make_digits

import tensorboard

LOGDIR = sys.argv[1] if len(sys.argv) > 1 else 'logs/'
NUM_EPOCH = int(os.environ.get("SEED_EPOCHS", "3"))

# setup logging
head = '%(asctime)-15s %(message)s'
logging.basicConfig(level=logging.DEBUG, format=head)

# data: synthetic MNIST-shaped digits instead of MNISTIter over the downloaded files
num_examples = 6000
batch_size = 100
num_batches = num_examples / batch_size
train_images, train_labels = make_digits(num_examples, seed=1)
eval_images, eval_labels = make_digits(1000, seed=2)
train_iter = mx.io.NDArrayIter(train_images.reshape(-1, 784).astype(np.float32) / 255, train_labels,
                               batch_size=batch_size, shuffle=True, label_name='softmax_label')
eval_iter = mx.io.NDArrayIter(eval_images.reshape(-1, 784).astype(np.float32) / 255, eval_labels,
                              batch_size=batch_size, label_name='softmax_label')

# network
num_classes = 10
mlp = mx.sym.Variable('data')
mlp = mx.sym.FullyConnected(data=mlp, name='fc1', num_hidden=128)
mlp = mx.sym.Activation(data=mlp, name='relu1', act_type="relu")
mlp = mx.sym.FullyConnected(data=mlp, name = 'fc2', num_hidden = 64)
mlp = mx.sym.Activation(data=mlp, name='relu2', act_type="relu")
mlp = mx.sym.FullyConnected(data=mlp, name='fc3', num_hidden=num_classes)
mlp = mx.sym.SoftmaxOutput(data=mlp, name='softmax')

# build model
model = mx.mod.Module(symbol=mlp, context=mx.cpu())
optimizer_params = {
    'learning_rate': 0.01, # learning rate
    'momentum': 0.9, # momentum
    'wd': 0.0001, # weight decay
    'lr_scheduler': mx.lr_scheduler.FactorScheduler(num_batches, factor=0.9)
}
batch_end_callbacks = [mx.callback.Speedometer(batch_size, 100)]
epoch_end_callbacks = []
eval_batch_end_callbacks = []
eval_end_callbacks = []

# initialize summary writer
summary_writer = tensorboard.FileWriter(LOGDIR)

# monitor train accuracy at the end of each epoch
def monitor_train_acc(param):
    if param.nbatch + 1 == num_batches: # last batch
        metric = dict(param.eval_metric.get_name_value())
        summary_writer.add_summary(tensorboard.summary.scalar('train-accuracy', metric['accuracy']))
batch_end_callbacks.append(monitor_train_acc)

# monitor evaluation accuracy at the end of each epoch
def monitor_eval_acc(param):
    metric = dict(param.eval_metric.get_name_value())
    summary_writer.add_summary(tensorboard.summary.scalar('eval-accuracy', metric['accuracy']))
eval_end_callbacks.append(monitor_eval_acc)

# monitor fc1 gradient using Monitor
def monitor_fc1_gradient(g):
    summary_writer.add_summary(tensorboard.summary.histogram('fc1-backward-weight', g.asnumpy().flatten()))
    stat = mx.nd.norm(g) / np.sqrt(g.size)
    return stat
monitor = mx.mon.Monitor(100, monitor_fc1_gradient, pattern='fc1_backward_weight')

# monitor fc1 weight every 100 batches
def monitor_fc1_weight(param):
    if param.nbatch % 100 == 0:
        arg_params, aux_params = param.locals['self'].get_params()
        summary_writer.add_summary(tensorboard.summary.histogram('fc1-weight',
                                                                 arg_params['fc1_weight'].asnumpy().flatten()))
batch_end_callbacks.append(monitor_fc1_weight)

# monitor fc1 weight at the end of each epoch
def monitor_fc1_weight_img(epoch, net, arg_params, aux_params):
    img = arg_params['fc1_weight'].asnumpy()
    img = img[..., np.newaxis]
    img = (img - img.min()) * 0xffff / (img.max() - img.min())
    img = img.astype(np.int16)
    summary_writer.add_summary(tensorboard.summary.image('fc1-weight_epoch{0}'.format(epoch), img))
epoch_end_callbacks.append(monitor_fc1_weight_img)

# start training
model.fit(
    train_data=train_iter,
    begin_epoch=0,
    num_epoch=NUM_EPOCH,
    eval_data=eval_iter,
    eval_metric='accuracy',
    optimizer='sgd',
    optimizer_params=optimizer_params,
    initializer = mx.init.Uniform(),
    batch_end_callback = batch_end_callbacks,
    epoch_end_callback = epoch_end_callbacks,
    eval_batch_end_callback = eval_batch_end_callbacks,
    eval_end_callback = eval_end_callbacks,
    monitor = monitor
)

# close summary writer
summary_writer.close()
