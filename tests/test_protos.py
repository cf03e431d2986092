"""Our .proto field numbers and names agree with what upstream TensorBoard reads."""
import json
import os
import subprocess
import sys

from upstream import REPO, upstream_python

OURS = {
    "tensorboard.src.event_pb2": "tensorboard.compat.proto.event_pb2",
    "tensorboard.src.summary_pb2": "tensorboard.compat.proto.summary_pb2",
    "tensorboard.src.tensor_pb2": "tensorboard.compat.proto.tensor_pb2",
    "tensorboard.src.tensor_shape_pb2": "tensorboard.compat.proto.tensor_shape_pb2",
    "tensorboard.src.types_pb2": "tensorboard.compat.proto.types_pb2",
    "tensorboard.src.resource_handle_pb2": "tensorboard.compat.proto.resource_handle_pb2",
    "tensorboard.src.graph_pb2": "tensorboard.compat.proto.graph_pb2",
    "tensorboard.src.plugin_data_pb2": "tensorboard.plugins.text.plugin_data_pb2",
    "tensorboard.src.layout_pb2": "tensorboard.plugins.custom_scalar.layout_pb2",
    "tensorboard.src.hparams_pb2": "tensorboard.plugins.hparams.plugin_data_pb2",
    "tensorboard.src.mesh_pb2": "tensorboard.plugins.mesh.plugin_data_pb2",
    "tensorboard.src.projector_config_pb2": "tensorboard.plugins.projector.projector_config_pb2",
}
UPSTREAM_EXTRA = [
    "tensorboard.compat.proto.node_def_pb2", "tensorboard.compat.proto.attr_value_pb2",
    "tensorboard.compat.proto.versions_pb2", "tensorboard.compat.proto.histogram_pb2",
    "tensorboard.plugins.scalar.plugin_data_pb2", "tensorboard.plugins.histogram.plugin_data_pb2",
    "tensorboard.plugins.image.plugin_data_pb2", "tensorboard.plugins.audio.plugin_data_pb2",
    "tensorboard.plugins.pr_curve.plugin_data_pb2", "tensorboard.plugins.hparams.api_pb2",
]
DUMP = str(REPO / "tests" / "tools" / "dump_descriptors.py")


def dump(python, modules, pythonpath):
    out = subprocess.run([python, DUMP, *modules], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": pythonpath})
    return json.loads(out.stdout)


def test_every_message_matches_upstream_field_numbers():
    ours = dump(sys.executable, list(OURS), str(REPO / "python"))
    upstream = dump(upstream_python(), list(OURS.values()) + UPSTREAM_EXTRA, "")
    compared = 0
    for name, fields in ours.items():
        # Full names agree too: upstream's packages are `tensorboard` and `tensorboard.hparams`/`.mesh`.
        assert name in upstream, f"{name} has no upstream counterpart"
        for field, spec in fields.items():
            assert upstream[name].get(field) == spec, (
                f"{name}.{field}: ours {spec}, upstream {upstream[name].get(field)}")
            compared += 1
    assert compared > 200
