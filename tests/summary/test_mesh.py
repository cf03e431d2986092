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


def test_integer_colors_faces_and_wide_vertices_keep_their_values():
    vertices = np.array([[0.0, 1.0, 2.0], [1e30, -1e30, 3.5], [0, 0, 1], [1, 1, 1]])  # float64, within float32
    proto = summary.mesh("m", vertices, colors=np.array([[255, 0, 7]] * 4, np.int64),
                         faces=np.array([[0, 1, 2], [1, 2, 3]], np.uint64))
    vertex, face, color = proto.value
    assert np.frombuffer(vertex.tensor.tensor_content, np.float32).reshape(4, 3).tolist() == \
        vertices.astype(np.float32).tolist()
    assert np.frombuffer(face.tensor.tensor_content, np.int32).tolist() == [0, 1, 2, 1, 2, 3]
    assert np.frombuffer(color.tensor.tensor_content, np.uint8).tolist() == [255, 0, 7] * 4


def test_whole_number_float_faces_are_indices():  # torch.Tensor([...]) is float32
    torch = pytest.importorskip("torch")

    proto = summary.mesh("m", np.zeros((4, 3)), faces=torch.Tensor([[[0, 1, 2], [0, 2, 3]]]))
    assert np.frombuffer(proto.value[1].tensor.tensor_content, np.int32).tolist() == [0, 1, 2, 0, 2, 3]


@pytest.mark.parametrize("kwargs,match", [  # values a cast would wrap, truncate or overflow into other data
    (dict(faces=[[0, 1, 2 ** 32 + 1]]), r"^faces: vertex indices must lie in 0\.\.3 .*got 0\.\.4294967297"),
    (dict(faces=[[0, 1, -1]]), r"^faces: vertex indices must lie in 0\.\.3"),
    (dict(faces=[[0, 1, 4]]), r"^faces: vertex indices must lie in 0\.\.3"),
    (dict(faces=[[0.5, 1, 2]]), "^faces: expected integer vertex indices, got dtype float64 with fractions"),
    (dict(faces=[[np.nan, 1, 2]]), "^faces: expected integer vertex indices, got dtype float64 with fractions"),
    (dict(faces=[[4.0, 1, 2]]), r"^faces: vertex indices must lie in 0\.\.3"),
    (dict(colors=[[300, 0, 0]] * 4), r"^colors: expected RGB values in 0\.\.255 .*got 0\.\.300"),
    (dict(colors=[[-5, 0, 0]] * 4), r"^colors: .*got -5\.\.0"),
    (dict(colors=[[256.0, 0, 0]] * 4), "^colors: expected RGB values"),
    (dict(colors=[[np.nan, 0, 0]] * 4), "^colors: NaN"),
    (dict(vertices=[[1e300, 0, 0]] * 4), "^vertices: values beyond float32's range"),
])
def test_values_that_a_cast_would_change_are_refused(kwargs, match):
    arguments = dict(vertices=np.zeros((4, 3)))
    arguments.update({name: np.array(value) for name, value in kwargs.items()})
    with pytest.raises(ValueError, match=match):
        summary.mesh("m", **arguments)


@pytest.mark.parametrize("kwargs,match", [
    (dict(vertices=np.zeros((4, 2))), "^vertices: "),
    (dict(vertices=np.zeros((1, 4, 3)), faces=np.zeros((2, 2, 3))), "^faces: batch size"),
    (dict(vertices=np.zeros((4, 3)), colors=np.zeros((3, 3))), "^colors: "),
])
def test_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        summary.mesh("m", **kwargs)
