"""ONNX models (a `ModelProto` or a `.onnx` file) as GraphDefs.

Every ONNX node becomes one node named by its name (exporters such as `torch.onnx`
write scoped names like "/fc1/Gemm", which become "fc1/Gemm") or `<op_type>_<index>`;
initializers become `Parameter` nodes ("fc1.weight" -> "fc1/weight"), graph inputs
`Input` nodes and graph outputs `Output` nodes. Attributes are typed AttrValues and
shapes from the model's value_info (after ONNX shape inference) go to `_output_shapes`.
"""
from __future__ import annotations

import os
from typing import Any

from tensorboard.graph._builder import GraphBuilder
from tensorboard.src import graph_pb2


def is_onnx_path(model: Any) -> bool:
    """Whether `model` is a path to an existing `.onnx` file.

    Args:
        model: Anything.
    """
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        return path.endswith(".onnx") and os.path.isfile(path)
    return False


def _load(model: Any) -> Any:
    import onnx

    if isinstance(model, onnx.ModelProto):
        return model
    if isinstance(model, onnx.GraphProto):
        return onnx.helper.make_model(model)
    return onnx.load(os.fspath(model))


def _tensor_type_shape(value_info: Any) -> list[int] | None:
    tensor_type = value_info.type.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    return [d.dim_value if d.HasField("dim_value") else -1 for d in tensor_type.shape.dim]


def _attribute(attr: Any) -> Any:
    import onnx

    kind = attr.type
    types = onnx.AttributeProto
    if kind == types.INT:
        return int(attr.i)
    if kind == types.FLOAT:
        return float(attr.f)
    if kind == types.STRING:
        return attr.s
    if kind == types.INTS:
        return [int(v) for v in attr.ints]
    if kind == types.FLOATS:
        return [float(v) for v in attr.floats]
    if kind == types.STRINGS:
        return [s.decode("utf-8", "replace") for s in attr.strings]
    if kind == types.TENSOR:
        return f"tensor{list(attr.t.dims)} {onnx.TensorProto.DataType.Name(attr.t.data_type)}"
    if kind == types.GRAPH:
        return f"graph {attr.g.name} ({len(attr.g.node)} nodes)"
    return str(onnx.helper.get_attribute_value(attr))


def _node_name(raw: str, fallback: str) -> str:
    name = raw.strip("/") if raw else ""
    return name or fallback


def graph_def(model: Any, infer_shapes: bool = True, **_: Any) -> graph_pb2.GraphDef:
    """Converts an ONNX ModelProto (or a path to one) into a GraphDef.

    Args:
        model: A ModelProto, a GraphProto, or a `.onnx` path.
        infer_shapes: Add the shapes ONNX's shape inference finds (skipped where it fails).
        **_: Other converters' options, ignored.

    Returns:
        A GraphDef.
    """
    import onnx

    proto = _load(model)
    if infer_shapes:
        try:
            proto = onnx.shape_inference.infer_shapes(proto)
        except Exception:  # noqa: BLE001 - shapes are a bonus; a model with custom ops still converts
            pass
    graph = proto.graph
    shapes: dict[str, list[int] | None] = {}
    for info in list(graph.input) + list(graph.value_info) + list(graph.output):
        shapes[info.name] = _tensor_type_shape(info)

    builder = GraphBuilder()
    producer: dict[str, tuple[int, int]] = {}  # ONNX value name -> (handle, output index)
    initializers = {init.name: init for init in graph.initializer}
    for name, init in initializers.items():
        dtype = onnx.TensorProto.DataType.Name(init.data_type)
        producer[name] = (builder.add(name.replace(".", "/"), "Parameter", attrs={"onnx_name": name, "dtype": dtype},
                                      shapes=[list(init.dims)]), 0)
    for info in graph.input:
        if info.name in initializers:
            continue
        producer[info.name] = (builder.add(f"input/{info.name}", "Input", attrs={"onnx_name": info.name},
                                           shapes=[shapes.get(info.name)]), 0)
    for index, node in enumerate(graph.node):
        attrs = {a.name: _attribute(a) for a in node.attribute}
        if node.domain:
            attrs["domain"] = node.domain
        edges = [producer[value] for value in node.input if value]  # "" marks an omitted optional input
        out_shapes = [shapes.get(value) for value in node.output]
        handle = builder.add(_node_name(node.name, f"{node.op_type}_{index}"), node.op_type, edges, attrs,
                             out_shapes if any(s is not None for s in out_shapes) else None)
        for out_index, value in enumerate(node.output):
            if value:
                producer[value] = (handle, out_index)
    for info in graph.output:
        if info.name in producer:
            builder.add(f"output/{info.name}", "Output", [producer[info.name]], {"onnx_name": info.name},
                        [shapes.get(info.name)])
    return builder.build()
