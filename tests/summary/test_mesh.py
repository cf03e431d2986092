"""summary.mesh: one tensor per component, with the mesh plugin's metadata."""
import json

import numpy as np
import pytest

from tensorboard import summary
from tensorboard.src import mesh_pb2, types_pb2


def test_point_cloud_with_float_colors():
    proto = summary.mesh("pc", np.zeros((4, 3)), colors=np.ones((4, 3)) * 0.5, config_dict={"b": 1, "a": 2})
    tags = [v.tag for v in proto.value]
    assert tags == ["pc_VERTEX", "pc_COLOR"]
    vertex, color = proto.value
    assert vertex.tensor.dtype == types_pb2.DT_FLOAT and color.tensor.dtype == types_pb2.DT_UINT8
    assert set(color.tensor.tensor_content) == {128}
    meta = mesh_pb2.MeshPluginData.FromString(vertex.metadata.plugin_data.content)
    assert meta.components == (1 << mesh_pb2.MeshPluginData.VERTEX) | (1 << mesh_pb2.MeshPluginData.COLOR)
    assert list(meta.shape) == [1, 4, 3] and json.loads(meta.json_config) == {"a": 2, "b": 1}


@pytest.mark.parametrize("kwargs,match", [
    (dict(vertices=np.zeros((4, 2))), "^vertices: "),
    (dict(vertices=np.zeros((1, 4, 3)), faces=np.zeros((2, 2, 3))), "^faces: batch size"),
    (dict(vertices=np.zeros((4, 3)), colors=np.zeros((3, 3))), "^colors: "),
])
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        summary.mesh("m", **kwargs)
