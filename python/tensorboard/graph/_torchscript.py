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
  shapes of traced tensors are stored as `_output_shapes`;
* control flow of scripted code (`prim::If`, `prim::Loop`) is a scope `If` / `Loop` with one
  sub-scope per block (`block0`, ...), and a node of its own fed by its inputs and the blocks'
  results; a loop body reads the loop's initial values.
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
    """A tensor's scalar type ('Float'), else the value's type ('int', 'Tuple[Tensor, Tensor]')."""
    import torch

    kind = value.type()
    if isinstance(kind, torch._C.TensorType):  # other types assert inside scalarType()
        return str(kind.scalarType() or kind)
    return str(kind)


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
    walker = _ScriptWalker(dict(model.named_parameters()), dict(model.named_buffers()))
    for position, value in enumerate(graph.inputs()):
        if position == 0 and isinstance(value.type(), torch._C.ClassType):
            walker.values[value.unique()] = ("module", "")
            continue
        name = re.sub(r"\.\d+$", "", value.debugName()) or f"input{position}"
        handle = walker.builder.add(f"input/{name}", "Input", attrs={"dtype": _dtype(value)},
                                    shapes=[_sizes(value)])
        walker.values[value.unique()] = ("node", handle, 0)
    walker.nodes(graph.nodes(), "")
    for index, value in enumerate(graph.outputs()):
        entry = walker.values.get(value.unique())
        if entry is not None and entry[0] == "node":
            walker.builder.add(f"output/output{index}", "Output", [(entry[1], entry[2])], shapes=[_sizes(value)])
    return walker.builder.build()


class _ScriptWalker:
    """Adds TorchScript nodes to a GraphBuilder, recursing into the blocks of If and Loop."""

    def __init__(self, tensors: dict[str, Any], buffers: dict[str, Any]):
        self.builder = GraphBuilder()
        self.tensors, self.buffers = tensors, buffers
        # value id -> ("node", handle, index) | ("module", path) | (_CONST, python value)
        self.values: dict[int, tuple] = {}
        self.params: dict[str, int] = {}

    def nodes(self, nodes: Any, prefix: str) -> None:
        """Adds `nodes` (a graph's or a block's), their names under `prefix`."""
        for node in nodes:
            self.node(node, prefix)

    def node(self, node: Any, prefix: str) -> None:
        import torch

        kind = node.kind()
        outputs = list(node.outputs())
        ins = [self.values.get(v.unique()) for v in node.inputs()]
        if kind == "prim::GetAttr":
            self._get_attr(node, ins[0], outputs[0])
            return
        if kind == "prim::Constant" and not isinstance(outputs[0].type(), torch._C.TensorType):
            self.values[outputs[0].unique()] = (_CONST, outputs[0].toIValue())
            return
        constant_inputs = all(i is not None and i[0] is _CONST for i in ins)
        if kind in ("prim::ListConstruct", "prim::TupleConstruct") and constant_inputs:
            self.values[outputs[0].unique()] = (_CONST, [i[1] for i in ins])
            return
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
        name = "/".join(p for p in (prefix, _scope(node), short) if p)
        has_blocks = bool(list(node.blocks()))
        if has_blocks:  # a scope of its own: If, If_1, ...
            name = self.builder.unique_scope(name)
            edges += self._blocks(node, ins, name)
        shapes = [_sizes(o) for o in outputs]
        handle = self.builder.add(f"{name}/{short}" if has_blocks else name, kind, edges, attrs,
                                  shapes if any(s is not None for s in shapes) else None)
        for index, out in enumerate(outputs):
            self.values[out.unique()] = ("node", handle, index)

    def _blocks(self, node: Any, ins: list, scope: str) -> list[tuple[int, int]]:
        """Adds an If's or Loop's blocks under `scope`/block<i>; returns the edges of their results."""
        results = []
        for i, block in enumerate(node.blocks()):
            block_inputs = list(block.inputs())
            if node.kind() == "prim::Loop":  # (iteration, carried...) read (max count, condition, initial...)
                outer = [None, *ins[2:]]
                for value, entry in zip(block_inputs, outer):
                    if entry is not None:
                        self.values[value.unique()] = entry
            self.nodes(block.nodes(), f"{scope}/block{i}")
            for value in block.outputs():
                entry = self.values.get(value.unique())
                if entry is not None and entry[0] == "node":
                    results.append((entry[1], entry[2]))
        return results

    def _get_attr(self, node: Any, owner: tuple | None, output: Any) -> None:
        """A parameter or buffer becomes a node (once); a submodule is remembered by its path."""
        attr_name = node.s("name")
        if owner is None or owner[0] != "module":
            raise ValueError(f"unexpected prim::GetAttr on {owner}")
        path = f"{owner[1]}.{attr_name}" if owner[1] else attr_name
        if path not in self.tensors and path not in self.buffers:
            self.values[output.unique()] = ("module", path)
            return
        if path not in self.params:
            tensor = self.tensors.get(path, self.buffers.get(path))
            kind = "Parameter" if path in self.tensors else "Buffer"
            self.params[path] = self.builder.add(
                path.replace(".", "/"), kind, attrs={"torch_name": path, "dtype": str(tensor.dtype),
                                                     "requires_grad": bool(tensor.requires_grad)},
                shapes=[list(tensor.shape)])
        self.values[output.unique()] = ("node", self.params[path], 0)
