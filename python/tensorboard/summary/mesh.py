"""Mesh summaries for the mesh plugin: one tensor per component (vertices, faces, colors).

Each component goes under tag '<tag>_VERTEX' / '_FACE' / '_COLOR' with MeshPluginData naming
the mesh, the component, the components bitmask, the tensor shape and the three.js config.
Shapes are [batch, points, 3]: vertices float32, faces int32 vertex indices, colors uint8.
"""
from __future__ import annotations

import json
from typing import Any, Mapping, Optional

import numpy as np

from tensorboard.convert import check_numeric, to_numpy
from tensorboard.src import mesh_pb2, summary_pb2
from tensorboard.summary._common import check_tag, make_metadata, make_tensor

__all__ = ["mesh"]

_Mesh = mesh_pb2.MeshPluginData


def _component(value: Any, name: str, dtype) -> np.ndarray:
    array = check_numeric(to_numpy(value, name), name)
    if array.ndim == 2:
        array = array[np.newaxis]
    if array.ndim != 3 or array.shape[-1] != 3:
        raise ValueError(f"{name}: expected shape (batch, count, 3) or (count, 3), got {array.shape}")
    if name == "colors" and array.dtype.kind == "f":
        array = np.clip(np.rint(array * 255.0 if array.max(initial=0) <= 1.0 else array), 0, 255)
    return array.astype(dtype)


def mesh(tag: str, vertices: Any, colors: Any = None, faces: Any = None,
         config_dict: Optional[Mapping[str, Any]] = None, description: Optional[str] = None) -> summary_pb2.Summary:
    """A mesh (or point cloud, without `faces`). `colors`: uint8 RGB per vertex (floats in
    [0, 1] are scaled to 0..255); `config_dict`: three.js settings (camera, lights, material)."""
    check_tag(tag)
    parts = [(_Mesh.VERTEX, _component(vertices, "vertices", np.float32))]
    if faces is not None:
        parts.append((_Mesh.FACE, _component(faces, "faces", np.int32)))
    if colors is not None:
        parts.append((_Mesh.COLOR, _component(colors, "colors", np.uint8)))
    batch = parts[0][1].shape[0]
    for kind, array in parts[1:]:
        if array.shape[0] != batch:
            raise ValueError(f"{_Mesh.ContentType.Name(kind).lower()}s: batch size {array.shape[0]} differs from "
                             f"vertices' {batch}")
    if colors is not None and parts[-1][1].shape[1] != parts[0][1].shape[1]:
        raise ValueError(f"colors: expected one color per vertex ({parts[0][1].shape[1]}), "
                         f"got {parts[-1][1].shape[1]}")
    try:
        json_config = json.dumps(dict(config_dict or {}), sort_keys=True)
    except TypeError as exc:
        raise TypeError(f"config_dict: must be JSON-serializable: {exc}") from exc
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
