"""Mesh summaries for the mesh plugin: one tensor per component (vertices, faces, colors).

Each component goes under tag '<tag>_VERTEX' / '_FACE' / '_COLOR' with MeshPluginData naming
the mesh, the component, the components bitmask, the tensor shape and the three.js config.
Shapes are [batch, points, 3]: vertices float32, faces int32 vertex indices, colors uint8.
Values that would change in those casts (indices of missing vertices, colors outside 0..255,
coordinates beyond float32) raise a ValueError naming the argument rather than wrap or overflow.
"""
from __future__ import annotations

import json
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from tensorboard.src import mesh_pb2, summary_pb2
from tensorboard.summary._common import check_tag, make_metadata, make_tensor
from tensorboard.values.convert import check_numeric, count_beyond_float32, to_numpy

__all__ = ["mesh", "check_mesh_args"]

_Mesh = mesh_pb2.MeshPluginData


def _component_shape(shape: Sequence[int], name: str) -> tuple[int, int, int]:
    """The (batch, count, 3) shape a component of `shape` is stored as ((count, 3) gets a batch of 1)."""
    given = tuple(int(d) for d in shape)
    shape = (1,) + given if len(given) == 2 else given
    if len(shape) != 3 or shape[-1] != 3:
        raise ValueError(f"{name}: expected shape (batch, count, 3) or (count, 3), got {given}")
    return shape


def _component(value: Any, name: str) -> np.ndarray:
    """`value` as a (batch, count, 3) array, its dtype still the caller's."""
    array = check_numeric(to_numpy(value, name), name)
    return array.reshape(_component_shape(array.shape, name))


def _vertices(array: np.ndarray) -> np.ndarray:
    """float32 vertices; finite values beyond float32's range are refused, not turned into inf."""
    if count_beyond_float32(array):
        largest = np.abs(array[np.isfinite(array)]).max()
        raise ValueError(f"vertices: values beyond float32's range (largest magnitude {largest:g})")
    return array.astype(np.float32)


def _faces(array: np.ndarray, num_vertices: int) -> np.ndarray:
    """int32 faces: whole-number indices of existing vertices, never wrapped or truncated into other vertices."""
    if array.dtype.kind == "f" and np.isfinite(array).all() and (array == np.rint(array)).all():
        array = array.astype(np.int64)  # torch.Tensor([...]) is float32: whole numbers are indices as they are
    if array.dtype.kind not in "iu":
        raise ValueError(f"faces: expected integer vertex indices, got dtype {array.dtype}"
                         + (" with fractions or non-finite values" if array.dtype.kind == "f" else ""))
    if array.size and (array.min() < 0 or array.max() >= num_vertices):
        raise ValueError(f"faces: vertex indices must lie in 0..{num_vertices - 1} (the vertices' count), "
                         f"got {array.min()}..{array.max()}")
    return array.astype(np.int32)


def _colors(array: np.ndarray) -> np.ndarray:
    """uint8 RGB: floats with max <= 1 are scaled by 255; values outside 0..255 are refused, not wrapped."""
    if array.dtype.kind == "f":
        if np.isnan(array).any():
            raise ValueError("colors: NaN is not a color")
        if array.max(initial=0) <= 1.0:
            array = array * 255.0
        array = np.rint(array)
    if array.size and (array.min() < 0 or array.max() > 255):
        raise ValueError(f"colors: expected RGB values in 0..255 (floats: in [0, 1]), "
                         f"got {array.min():g}..{array.max():g}")
    return array.astype(np.uint8)


def check_mesh_args(vertices_shape: Sequence[int], colors_shape: Optional[Sequence[int]] = None,
                    faces_shape: Optional[Sequence[int]] = None,
                    config_dict: Optional[Mapping[str, Any]] = None) -> str:
    """Raises, naming the argument, unless the components' shapes fit together and `config_dict` is
    JSON; returns the config as JSON. From the shapes alone."""
    vertices = _component_shape(vertices_shape, "vertices")
    for name, shape in (("faces", faces_shape), ("colors", colors_shape)):
        if shape is None:
            continue
        shape = _component_shape(shape, name)
        if shape[0] != vertices[0]:
            raise ValueError(f"{name}: batch size {shape[0]} differs from vertices' {vertices[0]}")
        if name == "colors" and shape[1] != vertices[1]:
            raise ValueError(f"colors: expected one color per vertex ({vertices[1]}), got {shape[1]}")
    try:
        return json.dumps(dict(config_dict or {}), sort_keys=True)
    except TypeError as exc:
        raise TypeError(f"config_dict: must be JSON-serializable: {exc}") from exc


def mesh(tag: str, vertices: Any, colors: Any = None, faces: Any = None,
         config_dict: Optional[Mapping[str, Any]] = None, description: Optional[str] = None) -> summary_pb2.Summary:
    """A mesh, or a point cloud without `faces`, for the Mesh dashboard.

    Args:
        tag: The mesh's name, a non-empty str; its components are logged under `<tag>_VERTEX`,
            `<tag>_FACE` and `<tag>_COLOR`.
        vertices: (batch, N, 3) or (N, 3) coordinates.
        colors: RGB per vertex, like `vertices`: 0..255, or floats in [0, 1] (scaled to 0..255).
        faces: (batch, F, 3) or (F, 3) integer vertex indices.
        config_dict: three.js settings (camera, lights, material), JSON-serializable.
        description: The tags' description.

    Returns:
        A Summary proto with one value per component.

    Raises:
        TypeError: A `config_dict` that is not JSON-serializable.
        ValueError: Shapes that do not fit together, indices of missing vertices, colors out of
            range, or coordinates beyond float32's range.
    """
    check_tag(tag)
    parts = [(_Mesh.VERTEX, _component(vertices, "vertices"))]
    if faces is not None:
        parts.append((_Mesh.FACE, _component(faces, "faces")))
    if colors is not None:
        parts.append((_Mesh.COLOR, _component(colors, "colors")))
    shapes = {kind: array.shape for kind, array in parts}
    json_config = check_mesh_args(shapes[_Mesh.VERTEX], shapes.get(_Mesh.COLOR), shapes.get(_Mesh.FACE), config_dict)
    cast = {_Mesh.VERTEX: _vertices, _Mesh.COLOR: _colors,
            _Mesh.FACE: lambda array: _faces(array, shapes[_Mesh.VERTEX][1])}
    parts = [(kind, cast[kind](array)) for kind, array in parts]
    components = 0
    for kind, _ in parts:
        components |= 1 << kind
    summary = summary_pb2.Summary()
    for kind, array in parts:
        content = _Mesh(version=0, name=tag, content_type=kind, components=components, shape=list(array.shape),
                        json_config=json_config).SerializeToString()
        metadata = make_metadata("mesh", content, description=description,
                                 data_class=summary_pb2.DATA_CLASS_TENSOR)
        summary.value.add(tag=f"{tag}_{_Mesh.ContentType.Name(kind)}", metadata=metadata, tensor=make_tensor(array))
    return summary
