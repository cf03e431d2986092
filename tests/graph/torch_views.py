"""Operator and edge multisets, from torch's own graphs and from our GraphDef, for comparing them.

Parameters, buffers and constants are labelled by their qualified names, model inputs as
"input", operators by their op; each edge is (source label, destination op).
"""
from __future__ import annotations

import operator
import warnings
from collections import Counter

import torch
import torch.fx
from torch.fx.passes.shape_prop import ShapeProp


def _node_inputs(node) -> list:
    found = []
    torch.fx.node.map_arg((node.args, node.kwargs), lambda n: found.append(n) or n)
    return found


def exported_view(model, inputs):
    """From `torch.export.export(model, inputs, strict=False)` without gradients: ATen ops by schema name."""
    with torch.no_grad():
        program = torch.export.export(model.eval(), inputs, strict=False)
    labels = {spec.arg.name: spec.target or "input" for spec in program.graph_signature.input_specs}
    origin, ops, edges = {}, Counter(), Counter()
    for node in program.graph.nodes:
        if node.op == "placeholder":
            origin[node] = labels[node.name]
        elif node.op == "call_function" and node.target is operator.getitem:
            origin[node] = origin[node.args[0]]
        elif node.op == "call_function":
            schema = getattr(node.target, "_schema", None)
            op = schema.name if schema else f"higher_order::{node.target.name()}"
            ops[op] += 1
            edges.update((origin[n], op) for n in _node_inputs(node) if n in origin)  # not submodules
            origin[node] = op
    return ops, edges


def fx_view(model, inputs):
    """From `torch.fx.symbolic_trace`: calls by short name; a leaf module's call reads its tensors."""
    module = torch.fx.symbolic_trace(model.eval())
    with torch.no_grad():
        ShapeProp(module).propagate(*inputs)
    origin, ops, edges = {}, Counter(), Counter()
    for node in module.graph.nodes:
        if node.op == "placeholder":
            origin[node] = "input"
        elif node.op == "get_attr":
            origin[node] = node.target
        elif node.op == "call_function" and node.target is operator.getitem and \
                isinstance(node.args[0].meta.get("tensor_meta"), tuple) and \
                not hasattr(node.args[0].meta["tensor_meta"], "shape") and \
                hasattr(node.meta.get("tensor_meta"), "shape"):  # a tensor item; a tuple item stays a node
            origin[node] = origin[node.args[0]]
        elif node.op in ("call_function", "call_method", "call_module"):
            if node.op == "call_module":
                sub = module.get_submodule(node.target)
                op = type(sub).__name__
                tensors = [*sub.named_parameters(), *sub.named_buffers()]
                edges.update((f"{node.target}.{name}", op) for name, _ in tensors)
            else:
                op = node.target if node.op == "call_method" else node.target.__name__
            ops[op] += 1
            edges.update((origin[n], op) for n in _node_inputs(node))
            origin[node] = op
    return ops, edges


def jit_view(model, inputs):
    """From `torch.jit.trace(...).inlined_graph`: operators by kind, constants folded away."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = torch.jit.trace(model.eval(), inputs, strict=False, check_trace=False).inlined_graph
    origin = {}
    for position, value in enumerate(graph.inputs()):
        origin[value.unique()] = "module:" if position == 0 else "input"
    ops, edges = Counter(), Counter()
    for node in graph.nodes():
        outs = list(node.outputs())
        if node.kind() == "prim::GetAttr":
            owner = origin[next(node.inputs()).unique()]
            path = (owner[len("module:"):] + "." if owner != "module:" else "") + node.s("name")
            is_module = isinstance(outs[0].type(), torch._C.ClassType)
            origin[outs[0].unique()] = ("module:" + path) if is_module else path
            continue
        if node.kind() == "prim::Constant" and not isinstance(outs[0].type(), torch._C.TensorType):
            continue
        if node.kind() == "prim::ListConstruct" and all(i.node().kind() == "prim::Constant" for i in node.inputs()):
            continue
        ops[node.kind()] += 1
        for value in node.inputs():
            if value.unique() in origin:
                edges[(origin[value.unique()], node.kind())] += 1
        for value in outs:
            origin[value.unique()] = node.kind()
    return ops, edges


def our_view(view, short: bool = False):
    """The same multisets from a GraphView; `short` keeps the op's last dotted part (fx names)."""
    ops, edges = Counter(), Counter()

    def op_of(name):
        op = view.nodes[name]["op"]
        return op.rsplit(".", 1)[-1] if short else op

    def label(name):
        node = view.nodes[name]
        if node["op"] in ("Parameter", "Buffer", "Constant"):
            return node["attrs"].get("torch_name")
        return "input" if node["op"] == "Input" else op_of(name)

    for name, node in view.nodes.items():
        if node["op"] in ("Parameter", "Buffer", "Constant", "Input", "Output"):
            continue
        ops[op_of(name)] += 1
        for src, _ in node["inputs"]:
            edges[(label(src), op_of(name))] += 1
    return ops, edges
