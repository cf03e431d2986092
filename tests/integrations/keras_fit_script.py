"""Trains a tiny Keras 3 model with our TensorBoard callback and writes what Keras saw as JSON.

Run in a subprocess with KERAS_BACKEND set (Keras fixes its backend at import):
    keras_fit_script.py fit LOGDIR KIND CALLBACK_KWARGS_JSON OUT_JSON    (KIND: sequential|functional|embedding|conv)
    keras_fit_script.py interrupted LOGDIR   (fit raises in epoch 1, evaluate() runs, then the process dies)
    keras_fit_script.py errors OUT_JSON
    keras_fit_script.py diverged LOGDIR OUT_JSON   (weight histograms of a model whose weights hold NaN/inf)
"""
import json
import sys
import warnings

import keras
import numpy as np

from tensorboard.integrations.keras import TensorBoard

EPOCHS, SAMPLES, BATCH = 3, 64, 16


def data(kind):
    rng = np.random.default_rng(0)
    if kind == "embedding":
        x = rng.integers(0, 10, size=(SAMPLES + 16, 5)).astype("int32")
        y = (x.sum(axis=1) > 22).astype("int32")
    elif kind == "conv":
        x = rng.normal(size=(SAMPLES + 16, 6, 6, 2)).astype("float32")
        y = (x[:, 0, 0, 0] > 0).astype("int32")
    else:
        x = rng.normal(size=(SAMPLES + 16, 6)).astype("float32")
        y = (x[:, 0] + x[:, 1] > 0).astype("int32")
    return (x[:SAMPLES], y[:SAMPLES]), (x[SAMPLES:], y[SAMPLES:])


def build(kind):
    keras.utils.set_random_seed(0)
    if kind == "sequential":
        model = keras.Sequential([keras.Input((6,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(2)])
    elif kind == "functional":
        inputs = keras.Input((6,), name="features")
        hidden = keras.layers.Dense(8, activation="relu", name="hidden")(inputs)
        model = keras.Model(inputs, keras.layers.Dense(2, name="logits")(hidden), name="classifier")
    elif kind == "conv":  # kernels (3, 3, 2, 3) and (2, 3, 4): images as Keras's own callback shows them
        model = keras.Sequential([keras.Input((6, 6, 2)), keras.layers.Conv2D(3, 3, name="conv2d"),
                                  keras.layers.Reshape((16, 3)), keras.layers.Conv1D(4, 2, name="conv1d"),
                                  keras.layers.Flatten(), keras.layers.Dense(2, name="dense")])
    else:
        model = keras.Sequential([keras.Input((5,)), keras.layers.Embedding(10, 3, name="tokens"),
                                  keras.layers.GlobalAveragePooling1D(), keras.layers.Dense(2)])
    model.compile(keras.optimizers.SGD(0.05), keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def fit(logdir, kind, kwargs, out):
    (x, y), (xv, yv) = data(kind)
    model = build(kind)
    batch_logs = []
    recorder = keras.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: batch_logs.append(dict(logs)))
    history = model.fit(x, y, validation_data=(xv, yv), epochs=EPOCHS, batch_size=BATCH, verbose=0,
                        callbacks=[TensorBoard(logdir, **kwargs), recorder])
    weights = {w.path: keras.ops.convert_to_numpy(w).tolist() for w in model.weights}
    iterations_after_fit = int(keras.ops.convert_to_numpy(model.optimizer.iterations))
    evaluation = model.evaluate(xv, yv, verbose=0, return_dict=True, callbacks=[TensorBoard(logdir, **kwargs)])
    json.dump({"backend": keras.backend.backend(), "tensorflow_imported": "tensorflow" in sys.modules,
               "history": history.history, "batch_logs": batch_logs, "weights": weights,
               "iterations": iterations_after_fit, "evaluation": evaluation, "model_json": model.to_json()},
              open(out, "w"))


def interrupted(logdir):
    """A fit that raises in epoch 1 (as a KeyboardInterrupt would), an evaluate() with the same callback,
    then a hard exit (a kill): what is on disk must be what the callback had logged by then."""
    import os

    (x, y), (xv, yv) = data("sequential")
    model = build("sequential")
    callback = TensorBoard(logdir)

    def stop(epoch, logs):
        if epoch == 1:
            raise RuntimeError("interrupted")

    try:
        model.fit(x, y, validation_data=(xv, yv), epochs=EPOCHS, batch_size=BATCH, verbose=0,
                  callbacks=[callback, keras.callbacks.LambdaCallback(on_epoch_end=stop)])
    except RuntimeError:
        pass
    model.evaluate(xv, yv, verbose=0, callbacks=[callback])
    os._exit(0)  # no atexit, no close: only what was flushed survives


def error_of(make):
    """(type name, message) of what make() raises, or (None, warnings) if it raises nothing."""
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            make()
    except Exception as err:
        return [type(err).__name__, str(err)]
    return [None, [str(w.message) for w in caught]]


class Subclassed(keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = keras.layers.Dense(2)

    def call(self, x):
        return self.dense(x)


def errors(out, logdir):
    cases = {
        "profile_batch": lambda: TensorBoard(logdir, profile_batch=5),
        "profile_batch_range": lambda: TensorBoard(logdir, profile_batch=(2, 4)),
        "update_freq": lambda: TensorBoard(logdir, update_freq="sometimes"),
        "update_freq_zero": lambda: TensorBoard(logdir, update_freq=0),
        "histogram_freq": lambda: TensorBoard(logdir, histogram_freq=-1),
        "embeddings_freq": lambda: TensorBoard(logdir, embeddings_freq=1.5),
        "write_images": lambda: TensorBoard(logdir, write_images="yes"),
        "log_dir": lambda: TensorBoard(log_dir=3),
        "embeddings_metadata": lambda: TensorBoard(logdir, embeddings_metadata=[1, 2]),
    }
    result = {name: error_of(make) for name, make in cases.items()}

    (x, y), _ = data("embedding")
    model = build("embedding")
    result["embeddings_metadata_layer"] = error_of(lambda: model.fit(
        x, y, epochs=1, verbose=0,
        callbacks=[TensorBoard(logdir, embeddings_freq=1, embeddings_metadata={"no_such_layer": "m.tsv"})]))

    (x, y), _ = data("sequential")
    subclassed = Subclassed()
    subclassed.compile("sgd", keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    result["subclassed_graph"] = error_of(lambda: subclassed.fit(
        x, y, epochs=1, verbose=0, callbacks=[TensorBoard(logdir + "/subclassed")]))
    result["tensorflow_imported"] = "tensorflow" in sys.modules
    json.dump(result, open(out, "w"))


def diverged(logdir, out):
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, name="dense")])
    model.compile("sgd", "mse")
    kernel, bias = model.layers[0].get_weights()
    kernel[0, :] = np.nan
    bias[:] = np.inf
    model.layers[0].set_weights([kernel, bias])
    callback = TensorBoard(logdir, histogram_freq=1)  # driven as fit() drives it: a step would spread the NaN
    callback.set_model(model)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        callback.on_train_begin()
        callback.on_epoch_begin(0)
        callback.on_epoch_end(0, {"loss": 1.0})
        callback.on_train_end()
    messages = [str(w.message) for w in caught if "NaN or infinite" in str(w.message)]
    json.dump({"messages": messages, "tensorflow_imported": "tensorflow" in sys.modules}, open(out, "w"))


if __name__ == "__main__":
    if sys.argv[1] == "fit":
        fit(sys.argv[2], sys.argv[3], json.loads(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "diverged":
        diverged(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "interrupted":
        interrupted(sys.argv[2])
    else:
        errors(sys.argv[2], sys.argv[3])
