"""torch.fx graphs (from `torch.export` or `torch.fx.symbolic_trace`) as GraphDefs.

One walker serves both tracers, since both give a `torch.fx.Graph`:

* every call (`call_function`, `call_method`, `call_module`) becomes one node, named after
  the module that made it (`node.meta["nn_module_stack"]`: `block/conv/conv2d`); its op is
  the operator's qualified name (`aten::conv2d`, `torch.relu`, `Tensor.chunk`, `Linear`);
* placeholders become `Input` nodes (`input/<name>`), or, when the caller says so (the
  exported program's signature), `Parameter` / `Buffer` / `Constant` nodes named by their
  qualified name ("fc1.weight" -> "fc1/weight"); unused parameters and buffers are left out;
* constant arguments become attributes named by the operator schema (`stride`, `dim`, ...);
  `operator.getitem` picking a tensor of a multi-output call is an output index on the edge, not
  a node (an item that is a tuple, as LSTM's `(h, c)`, is a getitem node reading that output);
* output shapes and dtypes come from `node.meta["val"]` (export's fake tensors) or
  `node.meta["tensor_meta"]` (`ShapeProp`), as `_output_shapes` and `output_dtypes`.
"""
from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from tensorboard.graph._builder import GraphBuilder, plain_constant
from tensorboard.src import graph_pb2


@dataclass
class Source:
    """What a placeholder stands for: op "Input", "Parameter", "Buffer" or "Constant"."""

    op: str
    name: str
    attrs: dict[str, Any] = field(default_factory=dict)


def _shape(value: Any) -> list[int]:
    return [s if isinstance(s, int) else -1 for s in value.shape]  # symbolic sizes are unknown


def described_outputs(node: Any) -> list[tuple[list[int], str]] | None:
    """(shape, dtype) of each tensor a node yields, from its meta; None when not recorded."""
    value = node.meta.get("val", node.meta.get("tensor_meta"))
    if value is None:
        return None
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return [(_shape(value), str(value.dtype))]
    if isinstance(value, (list, tuple)):
        items = [(_shape(v), str(v.dtype)) if hasattr(v, "shape") and hasattr(v, "dtype") else None
                 for v in value]
        return items if any(items) else None
    return None


def _output_item(node: Any) -> tuple[int, bool] | None:
    """For `operator.getitem(call, i)` on a call with several outputs: (i, whether item i is a tensor).

    A tensor item is an output index on the edge, no node; an item that is itself a tuple (LSTM's
    `(h, c)`) stays a getitem node fed by that output, so its own items index it."""
    import torch.fx

    if node.op != "call_function" or node.target is not operator.getitem:
        return None
    source, index = node.args[0], node.args[1]
    if not isinstance(source, torch.fx.Node) or not isinstance(index, int):
        return None
    value = source.meta.get("val", source.meta.get("tensor_meta"))
    if not isinstance(value, (list, tuple)) or hasattr(value, "shape") or not -len(value) <= index < len(value):
        return None
    item = value[index]
    return index % len(value), hasattr(item, "shape") and hasattr(item, "dtype")


def scope_of(node: Any) -> str:
    """'block.conv' (the innermost module of `nn_module_stack`) -> 'block/conv'; '' at the root."""
    stack = node.meta.get("nn_module_stack") or {}
    if not stack:
        return ""
    path = list(stack.values())[-1][0]
    return str(path).replace(".", "/")


def _callable_name(target: Any) -> str:
    module = getattr(target, "__module__", None)
    name = getattr(target, "__name__", None) or str(target)
    if module in (None, "torch._C._VariableFunctions") and getattr(target, "__self__", None) is not None:
        module = "torch"  # torch.cat & co. are methods of a C class
    module = {"_operator": "operator"}.get(module, module)
    return f"{module}.{name}" if module and module != "builtins" else name


def describe_call(node: Any, root: Any) -> tuple[str, str, list[str], dict[str, Any]]:
    """(op, short name, schema argument names, extra attrs) of a call node."""
    import torch

    target = node.target
    if node.op == "call_module":
        kind = type(root.get_submodule(target))
        return kind.__name__, kind.__name__, [], {"module_type": f"{kind.__module__}.{kind.__qualname__}"}
    if node.op == "call_method":
        return f"Tensor.{target}", str(target), [], {}
    if isinstance(target, torch._ops.OpOverload):
        schema = target._schema
        extra = {} if target._overloadname == "default" else {"overload": target._overloadname}
        return schema.name, schema.name.split("::")[-1], [a.name for a in schema.arguments], extra
    if isinstance(target, torch._ops.HigherOrderOperator):
        return f"higher_order::{target.name()}", target.name(), [], {}
    name = _callable_name(target)
    return name, name.rsplit(".", 1)[-1], [], {}


def _nodes_in(value: Any) -> list[Any]:
    import torch.fx

    found: list[Any] = []
    torch.fx.node.map_arg(value, lambda n: found.append(n) or n)
    return found


def fx_graph_def(graph: Any, root: Any, sources: Mapping[str, Source] | None = None,
                 outputs: Iterable[Any] | None = None) -> graph_pb2.GraphDef:
    """Converts a `torch.fx.Graph` into a GraphDef.

    root: the module owning `call_module` / `get_attr` targets; sources: placeholder name ->
    what it stands for (others are inputs); outputs: the values to show as `output/output<i>`
    (default: every value the graph returns).
    """
    import torch

    sources = dict(sources or {})
    builder = GraphBuilder()
    values: dict[Any, tuple[int, int]] = {}  # fx node -> (handle, output index)
    tensors: dict[str, int] = {}  # qualified name -> handle of its Parameter/Buffer/Constant node

    def tensor_node(qualified: str, op: str, tensor: Any, attrs: Mapping[str, Any] = ()) -> int:
        if qualified not in tensors:
            tensors[qualified] = builder.add(
                qualified.replace(".", "/"), op,
                attrs={"torch_name": qualified, "dtype": str(tensor.dtype), **dict(attrs)},
                shapes=[_shape(tensor)])
        return tensors[qualified]

    def module_tensors(path: str) -> list[tuple[int, int]]:
        module = root.get_submodule(path)
        edges = [(tensor_node(f"{path}.{name}", "Parameter", p, {"requires_grad": bool(p.requires_grad)}), 0)
                 for name, p in module.named_parameters()]
        return edges + [(tensor_node(f"{path}.{name}", "Buffer", b), 0) for name, b in module.named_buffers()]

    for node in graph.nodes:
        described = described_outputs(node)
        if node.op == "placeholder":
            source = sources.get(node.name, Source("Input", f"input/{node.name}"))
            if source.op != "Input" and not node.users:
                continue
            attrs = dict(source.attrs)
            if described and described[0]:
                attrs.setdefault("dtype", described[0][1])
            handle = builder.add(source.name, source.op, attrs=attrs,
                                 shapes=[described[0][0] if described and described[0] else None])
            values[node] = (handle, 0)
        elif node.op == "get_attr":
            value = operator.attrgetter(node.target)(root)
            if isinstance(value, torch.Tensor):
                op = "Parameter" if isinstance(value, torch.nn.Parameter) else (
                    "Buffer" if node.target in dict(root.named_buffers()) else "Constant")
                values[node] = (tensor_node(node.target, op, value), 0)
        elif (item := _output_item(node)) is not None and item[1]:
            if node.args[0] in values:
                values[node] = (values[node.args[0]][0], item[0])
        elif node.op in ("call_function", "call_method", "call_module"):
            op, short, arg_names, attrs = describe_call(node, root)
            edges = []
            if item is not None and node.args[0] in values:  # a tuple item: the node reads that output
                edges.append((values[node.args[0]][0], item[0]))
                attrs["index"] = item[0]
            args = () if item is not None else node.args  # (source, index): both taken above
            named = [(arg_names[i] if i < len(arg_names) else f"arg{i}", a) for i, a in enumerate(args)]
            for key, arg in named + list(node.kwargs.items()):
                inputs = _nodes_in(arg)
                if inputs:
                    edges += [values[n] for n in inputs if n in values]
                elif arg is not None:
                    attrs[key] = plain_constant(arg)
            if node.op == "call_module":
                edges += module_tensors(node.target)
            if described:
                attrs["output_dtypes"] = [d[1] if d else "" for d in described]
            scope = scope_of(node)
            handle = builder.add(f"{scope}/{short}" if scope else short, op, edges, attrs,
                                 [d[0] if d else None for d in described] if described else None)
            values[node] = (handle, 0)
        elif node.op == "output" and outputs is None:
            outputs = _nodes_in(node.args[0])

    for index, value in enumerate(outputs or []):
        if value in values:
            described = described_outputs(value)
            builder.add(f"output/output{index}", "Output", [values[value]],
                        shapes=[described[0][0]] if described and described[0] else None)
    return builder.build()
