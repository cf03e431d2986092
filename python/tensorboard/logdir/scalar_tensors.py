"""Scalars logged as tensors (the scalars plugin's TF2 form: `tf.summary.scalar`, Keras) are kept in a run's
tensors; a front door that draws scalars folds them into the run's scalars here, once, so that every
scalar tag reads the same way whichever form wrote it."""
from __future__ import annotations

from tensorboard.logdir.payloads import tensor_to_numpy
from tensorboard.logdir.run_data import RunData


def fold_scalar_tensors(run: RunData) -> RunData:
    """Appends the run's scalar tensors (tags the scalars plugin names, a number each) to `run.scalars`
    as float64 values, and returns the run. A tag that also has plain scalars keeps both; a tensor with
    no number (empty, text) is left out. The tensors stay as they are."""
    tags = set(run.plugin_content.get("scalars", ()))
    if not tags or not run.holds("tensors") or not len(run.tensors):
        return run
    store, scalars = run.tensors, run.scalars
    for tid, step, wall, file_id, tensor in zip(store.tags, store.steps, store.walls, store.files, store.values):
        tag = store.tag_names[tid]
        if tag in tags:
            array = tensor_to_numpy(tensor).reshape(-1)
            if array.size and array.dtype.kind in "biuf":
                scalars.add(tag, step, wall, file_id, float(array[0]))
    return run
