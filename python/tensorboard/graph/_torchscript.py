"""TorchScript graphs (a `ScriptModule`, or `torch.jit.trace`'s fallback) as GraphDefs.

`torch.jit.trace` is deprecated; `tensorboard.graph.pytorch` only reaches it for models that
neither `torch.export` nor `torch.fx` can take. In the inlined TorchScript graph:

* every operator (`aten::linear`, `aten::relu`, ...) becomes one node, named after the
  module that called it (`block/conv/_convolution`, root-level calls stay at the root);
* parameters and buffers reached through `prim::GetAttr` become `Parameter` / `Buffer`
  nodes named by their qualified name ("fc1.weight" -> "fc1/weight") with their shapes;
* constants (`prim::Constant`, constant lists) become attributes of the operators that
  use them, named by the operator schema's argument names (`stride`, `dim`, ...);
* graph inputs become `input/<name>` nodes, results `output/output<i>` nodes; output
  shapes of traced tensors are stored as `_output_shapes`.
"""
from __future__ import annotations

import re
from typing import Any

from tensorboard.graph._builder import GraphBuilder, plain_constant
from tensorboard.src import graph_pb2

_CONST = object()


def _sizes(value: Any) -> list[int] | None:
    import torch

    kind = value.type()
    if not isinstance(kind, torch._C.TensorType):
        return None
    try:
        sizes = kind.sizes()
    except RuntimeError:
        return None
    return None if sizes is None else [-1 if s is None else int(s) for s in sizes]


def _dtype(value: Any) -> str:
    kind = value.type()
    scalar = kind.scalarType() if hasattr(kind, "scalarType") else None
    return str(scalar) if scalar else str(kind)


def _scope(node: Any) -> str:
    """'__module.block/__module.block.conv' -> 'block/conv'."""
    scope = node.scopeName()
    if not scope:
        return ""
    last = scope.split("/")[-1]
    last = re.sub(r"^__module\.?", "", last)
    return last.replace(".", "/")


def _argument_names(node: Any) -> list[str]:
    import torch

    try:
        schema = node.schema()
        if schema == "(no schema)":
            return []
        return [a.name for a in torch._C.parse_schema(schema).arguments]
    except Exception:  # noqa: BLE001 - prim:: nodes have no schema
        return []


def jit_trace(model: Any, inputs: tuple, strict: bool = False) -> Any:
    """`torch.jit.trace` (the caller sets eval mode and no-grad); only its deprecation notice is hidden.

    TracerWarnings (e.g. a Python branch on a tensor value, recorded as one fixed path) are
    left to the user: they say what the traced graph may be missing.
    """
    import warnings

    import torch

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r"`torch\.jit\.trace(_method)?` is deprecated",
                                category=DeprecationWarning)
        return torch.jit.trace(model, inputs, strict=strict, check_trace=False)


def script_graph_def(model: Any) -> graph_pb2.GraphDef:
    """Converts a `torch.jit.ScriptModule` (scripted or traced) into a GraphDef."""
    import torch

    graph = model.inlined_graph
    tensors = dict(model.named_parameters())
    buffers = dict(model.named_buffers())

    builder = GraphBuilder()
    # value id -> ("node", handle, index) | ("module", path) | (_CONST, python value)
    values: dict[int, tuple] = {}
    params: dict[str, int] = {}
    graph_inputs = list(graph.inputs())
    for position, value in enumerate(graph_inputs):
        if position == 0 and isinstance(value.type(), torch._C.ClassType):
            values[value.unique()] = ("module", "")
            continue
        name = re.sub(r"\.\d+$", "", value.debugName()) or f"input{position}"
        handle = builder.add(f"input/{name}", "Input", attrs={"dtype": _dtype(value)},
                             shapes=[_sizes(value)])
        values[value.unique()] = ("node", handle, 0)

    for node in graph.nodes():
        kind = node.kind()
        outputs = list(node.outputs())
        ins = [values.get(v.unique()) for v in node.inputs()]
        if kind == "prim::GetAttr":
            owner = ins[0]
            attr_name = node.s("name")
            if owner is None or owner[0] != "module":
                raise ValueError(f"unexpected prim::GetAttr on {owner}")
            path = f"{owner[1]}.{attr_name}" if owner[1] else attr_name
            if path in tensors or path in buffers:
                if path not in params:
                    tensor = tensors.get(path, buffers.get(path))
                    params[path] = builder.add(path.replace(".", "/"), "Parameter" if path in tensors else "Buffer",
                                               attrs={"torch_name": path, "dtype": str(tensor.dtype),
                                                      "requires_grad": bool(tensor.requires_grad)},
                                               shapes=[list(tensor.shape)])
                values[outputs[0].unique()] = ("node", params[path], 0)
            else:
                values[outputs[0].unique()] = ("module", path)
            continue
        if kind == "prim::Constant" and not isinstance(outputs[0].type(), torch._C.TensorType):
            values[outputs[0].unique()] = (_CONST, outputs[0].toIValue())
            continue
        if kind in ("prim::ListConstruct", "prim::TupleConstruct") and all(i is not None and i[0] is _CONST for i in ins):
            values[outputs[0].unique()] = (_CONST, [i[1] for i in ins])
            continue
        arg_names = _argument_names(node)
        attrs: dict[str, Any] = {}
        edges = []
        for position, entry in enumerate(ins):
            if entry is None:
                continue
            if entry[0] is _CONST:
                key = arg_names[position] if position < len(arg_names) else f"arg{position}"
                if entry[1] is not None:
                    attrs[key] = plain_constant(entry[1])
            elif entry[0] == "node":
                edges.append((entry[1], entry[2]))
        if kind == "prim::Constant":  # a tensor constant
            attrs["value"] = f"tensor{_sizes(outputs[0])}"
        short = kind.split("::")[-1]
        scope = _scope(node)
        shapes = [_sizes(o) for o in outputs]
        handle = builder.add(f"{scope}/{short}" if scope else short, kind, edges, attrs,
                             shapes if any(s is not None for s in shapes) else None)
        for index, out in enumerate(outputs):
            values[out.unique()] = ("node", handle, index)

    for index, value in enumerate(graph.outputs()):
        entry = values.get(value.unique())
        if entry is not None and entry[0] == "node":
            builder.add(f"output/output{index}", "Output", [(entry[1], entry[2])], shapes=[_sizes(value)])
    return builder.build()
