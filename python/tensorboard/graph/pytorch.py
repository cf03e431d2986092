"""PyTorch modules as GraphDefs, via the TorchScript graph of `torch.jit.trace`.

The module is traced with the example inputs (`input_to_model`) in eval mode and without
gradients (its training flag is restored afterwards, so batch-norm statistics are not
touched). In the inlined trace graph:

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

from tensorboard.graph._builder import GraphBuilder
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


def _plain(value: Any) -> Any:
    """A constant as an attribute value (numbers, strings, lists; devices/dtypes as text)."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        items = [_plain(v) for v in value]
        return items if all(isinstance(v, (bool, int, float, str)) for v in items) else str(value)
    return str(value)


def _inputs_tuple(input_to_model: Any) -> tuple:
    if input_to_model is None:
        raise ValueError("a PyTorch graph needs example inputs: add_graph(model, input_to_model=x) "
                         "(a tensor, or a tuple of tensors for several forward() arguments)")
    if isinstance(input_to_model, list):
        return tuple(input_to_model)
    return input_to_model if isinstance(input_to_model, tuple) else (input_to_model,)


def trace(model: Any, input_to_model: Any, strict: bool = False) -> Any:
    """`torch.jit.trace` in eval mode, without gradients, restoring the training flags."""
    import warnings

    import torch

    modes = {m: m.training for m in model.modules()}
    model.eval()
    try:
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # torch.jit.trace is deprecated in 2.x
            warnings.simplefilter("ignore", torch.jit.TracerWarning)
            return torch.jit.trace(model, _inputs_tuple(input_to_model), strict=strict,
                                   check_trace=False)
    finally:
        for module, mode in modes.items():
            module.training = mode


def graph_def(model: Any, input_to_model: Any = None, strict: bool = False) -> graph_pb2.GraphDef:
    """Converts a `torch.nn.Module` (traced with `input_to_model`; `strict` as torch.jit.trace's) into a GraphDef."""
    import torch

    if isinstance(model, torch.jit.ScriptModule):
        graph = model.inlined_graph
    elif isinstance(model, torch.nn.Module):
        graph = trace(model, input_to_model, strict).inlined_graph
    else:
        raise TypeError(f"not a torch.nn.Module: {type(model).__name__}")
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
                    attrs[key] = _plain(entry[1])
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
