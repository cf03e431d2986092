"""Framework-neutral helpers that assemble a GraphDef for the Graphs dashboard.

The converters describe a model as nodes (scoped name, operator, inputs, attributes,
output shapes); `GraphBuilder` turns that into a valid `GraphDef`: names made unique
and safe for the "node:output" input syntax, nodes that clash with a name scope moved
inside it (the dashboard draws a scope "fc1" and a node "fc1" as one box otherwise),
attributes converted to `AttrValue`, shapes stored as `_output_shapes`, which is the
attribute the dashboard labels edges with.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from tensorboard.src import graph_pb2, tensor_shape_pb2

#: Shape as a sequence of dimension sizes; None or a negative size means unknown.
Shape = Sequence[Any] | None

_BAD_CHARS = re.compile(r"[^A-Za-z0-9_.\-/>()\[\]]")


def make_shape(shape: Shape) -> tensor_shape_pb2.TensorShapeProto:
    """A TensorShapeProto; None is an unknown rank, None/negative dims are unknown (-1)."""
    proto = tensor_shape_pb2.TensorShapeProto()
    if shape is None:
        proto.unknown_rank = True
        return proto
    for size in shape:
        dim = proto.dim.add()
        dim.size = -1 if size is None or int(size) < 0 else int(size)
    return proto


def make_attr(value: Any) -> graph_pb2.AttrValue | None:
    """Converts a Python value into an AttrValue (s, i, f, b, shape or list); None drops it."""
    attr = graph_pb2.AttrValue()
    if value is None:
        return None
    if isinstance(value, graph_pb2.AttrValue):
        return value
    if isinstance(value, tensor_shape_pb2.TensorShapeProto):
        attr.shape.CopyFrom(value)
    elif isinstance(value, bool):
        attr.b = value
    elif isinstance(value, int):
        if _fits_int64(value):
            attr.i = value
        else:  # uint64 beyond int64 (a mask constant): its digits, rather than a wrapped number
            attr.s = str(value).encode("utf-8")
    elif isinstance(value, float):
        attr.f = value
    elif isinstance(value, bytes):
        attr.s = value
    elif isinstance(value, str):
        attr.s = value.encode("utf-8")
    elif isinstance(value, (list, tuple)):
        items = list(value)
        if all(isinstance(v, tensor_shape_pb2.TensorShapeProto) for v in items):
            attr.list.shape.extend(items)
        elif all(isinstance(v, bool) for v in items):
            attr.list.b.extend(items)
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            if all(_fits_int64(v) for v in items):
                attr.list.i.extend(items)
            else:
                attr.list.s.extend(str(v).encode("utf-8") for v in items)
        elif all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
            attr.list.f.extend(float(v) for v in items)
        elif all(isinstance(v, str) for v in items):
            attr.list.s.extend(v.encode("utf-8") for v in items)
        else:
            attr.s = repr(value).encode("utf-8")
    elif hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # NumPy/torch scalar
        return make_attr(value.item())
    else:
        attr.s = str(value).encode("utf-8")
    return attr


def _fits_int64(value: int) -> bool:
    return -(1 << 63) <= value < (1 << 63)


def plain_constant(value: Any) -> Any:
    """A framework constant as an attribute value: numbers, strings, flat lists; the rest as text."""
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        items = [plain_constant(v) for v in value]
        return items if all(isinstance(v, (bool, int, float, str)) for v in items) else str(value)
    return str(value)


def parse_literal(text: str) -> Any:
    """Parses a framework's attribute string ("128", "1e-05", "True", "(3, 3)", "relu")."""
    stripped = text.strip()
    if stripped in ("True", "true"):
        return True
    if stripped in ("False", "false"):
        return False
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        return float(stripped)
    except ValueError:
        pass
    if len(stripped) >= 2 and stripped[0] in "([" and stripped[-1] in ")]":
        body = stripped[1:-1].strip().rstrip(",")
        if not body:
            return []
        parts = [parse_literal(p) for p in body.split(",")]
        if all(isinstance(p, (int, float)) and not isinstance(p, bool) for p in parts):
            return parts
    return text


def example_args(input_to_model: Any, missing: str) -> tuple:
    """A converter's example inputs as a tuple of positional arguments; `missing` is the error when there are none."""
    if input_to_model is None:
        raise ValueError(missing)
    if isinstance(input_to_model, list):
        return tuple(input_to_model)
    return input_to_model if isinstance(input_to_model, tuple) else (input_to_model,)


def clean_name(name: str) -> str:
    """A node name the dashboard and the input syntax accept: '/'-separated, no ':' or '^'."""
    name = _BAD_CHARS.sub("_", name)
    parts = [p for p in name.split("/") if p]
    return "/".join(parts) or "node"


@dataclass
class _Node:
    name: str
    op: str
    inputs: list[tuple[int, int]]
    control_inputs: list[int]
    attrs: dict[str, Any]
    shapes: list[Shape] | None
    device: str


@dataclass
class GraphBuilder:
    """Collects nodes by handle, then writes a GraphDef with unique, scope-safe names.

    Args:
        nodes: The nodes added so far (`add` fills it).
        scopes: The scopes `unique_scope` handed out.
    """

    nodes: list[_Node] = field(default_factory=list)
    scopes: set[str] = field(default_factory=set)

    def add(self, name: str, op: str, inputs: Iterable[int | tuple[int, int]] = (),
            attrs: Mapping[str, Any] | None = None, shapes: Sequence[Shape] | None = None,
            device: str = "", control_inputs: Iterable[int] = ()) -> int:
        """Adds a node.

        Args:
            name: The node's name, "/"-separated scopes first ("dense/MatMul").
            op: Its operation ("MatMul"); empty: "Unknown".
            inputs: Handles of earlier nodes, or (handle, output index) pairs.
            attrs: Attributes: numbers, str, bools, shapes or lists of them.
            shapes: The shapes of its outputs (-1 for an unknown size).
            device: The device it runs on.
            control_inputs: Handles of nodes it must run after.

        Returns:
            The node's handle.

        Raises:
            ValueError: An input from an unknown handle.
        """
        edges = [(i, 0) if isinstance(i, int) else (int(i[0]), int(i[1])) for i in inputs]
        for handle, _ in edges:
            if not 0 <= handle < len(self.nodes):
                raise ValueError(f"node {name!r} has an input from unknown node handle {handle}")
        self.nodes.append(_Node(clean_name(name), op or "Unknown", edges, list(control_inputs),
                                dict(attrs or {}), list(shapes) if shapes is not None else None, device))
        return len(self.nodes) - 1

    def unique_scope(self, path: str) -> str:
        """A new scope of its own for `path`, so two conditionals side by side are two groups, not
        one with their branches mixed.

        Args:
            path: The scope wanted.

        Returns:
            `path` cleaned, suffixed `_1`, `_2`, ... when an earlier call took it.
        """
        path = clean_name(path)
        candidate, n = path, 0
        while candidate in self.scopes:
            n += 1
            candidate = f"{path}_{n}"
        self.scopes.add(candidate)
        return candidate

    def final_names(self) -> list[str]:
        """The names the nodes get: unique, and never equal to a scope of another node."""
        names: list[str] = []
        taken: set[str] = set()
        for node in self.nodes:
            names.append(_unique(node.name, taken))
        scopes = {n.rsplit("/", i)[0] for n in names for i in range(1, n.count("/") + 1)}
        if scopes & set(names):
            taken = set(names) | scopes  # a new name must be neither a node's nor a scope
            fixed = []
            for node, name in zip(self.nodes, names):
                if name in scopes:  # "fc1" next to "fc1/weight": move it inside, as "fc1/FullyConnected"
                    name = _unique(f"{name}/{clean_name(node.op).replace('/', '_')}", taken)
                fixed.append(name)
            names = fixed
        return names

    def build(self, producer: int = 22) -> graph_pb2.GraphDef:
        """The GraphDef, with `_output_shapes` where shapes are known.

        Args:
            producer: The GraphDef's `versions.producer`.

        Returns:
            A GraphDef.
        """
        names = self.final_names()
        graph = graph_pb2.GraphDef()
        graph.versions.producer = producer
        for node, name in zip(self.nodes, names):
            proto = graph.node.add()
            proto.name = name
            proto.op = node.op
            proto.device = node.device
            for handle, index in node.inputs:
                proto.input.append(names[handle] if index == 0 else f"{names[handle]}:{index}")
            for handle in node.control_inputs:
                proto.input.append("^" + names[handle])
            for key, value in node.attrs.items():
                attr = make_attr(value)
                if attr is not None:
                    proto.attr[key].CopyFrom(attr)
            if node.shapes is not None:
                proto.attr["_output_shapes"].list.shape.extend(make_shape(s) for s in node.shapes)
        return graph


def _unique(name: str, taken: set[str]) -> str:
    candidate, n = name, 0
    while candidate in taken:
        n += 1
        candidate = f"{name}_{n}"
    taken.add(candidate)
    return candidate
