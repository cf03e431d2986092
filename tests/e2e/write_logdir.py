"""Writes a logdir with every kind of data, using OUR logger from an installed wheel.

Run with the Python of the environment under test:
    <venv>/bin/python tests/e2e/write_logdir.py LOGDIR
Prints one JSON object: {"errors": {kind: message}} for the `add_*` calls that
raised (each kind is written independently so one missing feature does not
hide the others). The expected values live in tests/e2e/expected.py.
"""

import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import expected as E  # noqa: E402  (the shared expectations, not a package)


def _graph_def():
    """A three-node GraphDef built with our generated protos."""
    from tensorboard.src import graph_pb2

    graph = graph_pb2.GraphDef()
    for name, op, inputs in E.GRAPH_NODES:
        node = graph.node.add()
        node.name, node.op = name, op
        node.input.extend(inputs)
    return graph


def write_all(logdir):
    """Write every kind of summary into `logdir`; return {kind: error}."""
    import numpy as np

    import tensorboard

    errors = {}
    writer = tensorboard.SummaryWriter(os.path.join(logdir, E.RUN))
    rng = np.random.default_rng(0)
    actions = {
        "scalars": lambda: [writer.add_scalar(E.SCALAR_TAG, v, s) for s, v in enumerate(E.SCALAR_VALUES)],
        "histograms": lambda: [writer.add_histogram(E.HISTOGRAM_TAG, rng.normal(size=200), s) for s in range(3)],
        "images": lambda: writer.add_image(
            E.IMAGE_TAG, np.full((E.IMAGE_HW[0], E.IMAGE_HW[1], 3), 200, np.uint8), 0, dataformats="HWC"
        ),
        "audio": lambda: writer.add_audio(
            E.AUDIO_TAG, np.sin(np.linspace(0, 200, E.AUDIO_RATE)).astype(np.float32), 0, E.AUDIO_RATE
        ),
        "text": lambda: writer.add_text(E.TEXT_TAG, E.TEXT_VALUE, 0),
        "pr_curves": lambda: writer.add_pr_curve(
            E.PR_TAG, np.array([1, 0, 1, 1, 0] * 4), np.linspace(0.05, 0.95, 20), 0
        ),
        "graphs": lambda: writer.add_graph(_graph_def()),
        "custom_scalars": lambda: writer.add_custom_scalars(E.CUSTOM_LAYOUT),
        "projector": lambda: writer.add_embedding(
            mat=rng.normal(size=(E.EMBEDDING_POINTS, 4)),
            metadata=["p%d" % i for i in range(E.EMBEDDING_POINTS)],
            tag=E.EMBEDDING_TAG,
            global_step=0,
        ),
        "hparams": lambda: writer.add_hparams(E.HPARAMS, E.HPARAM_METRICS, run_name=E.HPARAM_RUN),
    }
    for kind, action in actions.items():
        try:
            action()
        except Exception:  # pylint: disable=broad-except
            errors[kind] = traceback.format_exc(limit=3)
    writer.close()
    return errors


if __name__ == "__main__":
    print(json.dumps({"errors": write_all(sys.argv[1])}))
