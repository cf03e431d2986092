"""MXNet models as GraphDefs: Symbols, hybridized Gluon blocks and exported symbol JSON.

The symbol JSON format (`Symbol.tojson()`, `HybridBlock.export()`'s `*-symbol.json`) is
parsed directly, so an exported file converts without MXNet installed:

* `nodes`: a topologically sorted list of `{"op", "name", "attrs", "inputs"}`; variables
  (data, labels, parameters, auxiliary states) have `op == "null"`; `attrs` is absent on
  operators without attributes (MXNet < 1.0 wrote `param`/`attr` instead);
* `inputs`: `[node_index, output_index, version]` triples (`version` > 0 for mutated
  auxiliary states such as BatchNorm's running mean);
* `heads`: the outputs, as the same triples; `__shape__` keeps 0 for unknown sizes.

Operators become nodes named by their scope (`fc1/FullyConnected`, `fc1/weight`,
Gluon's `hybridsequential0/dense0/fwd`), parameters become `Parameter` nodes, data and
label variables `Input` nodes; attributes are typed (`num_hidden` -> i, `kernel` -> list.i).
"""
from __future__ import annotations

import json
import os
import re
from typing import Any, Mapping, Sequence

from tensorboard.graph._builder import GraphBuilder, parse_literal
from tensorboard.src import graph_pb2

#: Variable-name suffixes of learnable parameters and auxiliary states.
PARAM_SUFFIXES = ("weight", "bias", "gamma", "beta", "moving_mean", "moving_var", "running_mean",
                  "running_var", "i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias", "alpha", "parameters")

Shapes = Mapping[str, Sequence[int]]


def is_symbol(model: Any) -> bool:
    """Whether `model` is an `mxnet.symbol.Symbol` (checked without importing MXNet).

    Args:
        model: Anything.
    """
    module = type(model).__module__ or ""
    return module.startswith("mxnet.") and type(model).__name__ == "Symbol"


def is_gluon_block(model: Any) -> bool:
    """Whether `model` is a Gluon `Block` (checked without importing MXNet).

    Args:
        model: Anything.
    """
    return any((c.__module__ or "").startswith("mxnet.gluon") and c.__name__ == "Block"
               for c in type(model).__mro__)


def is_symbol_json(model: Any) -> bool:
    """Whether `model` is MXNet symbol JSON: a dict, JSON text or a path to an existing `*.json` file.

    Args:
        model: Anything.
    """
    if isinstance(model, Mapping):
        return "nodes" in model and "heads" in model
    if isinstance(model, (str, os.PathLike)):
        text = os.fspath(model)
        if text.lstrip().startswith("{"):
            return '"nodes"' in text
        return text.endswith(".json") and os.path.isfile(text)
    return False


def load_symbol_json(source: Any) -> dict:
    """The symbol JSON as a dict.

    Args:
        source: A dict, JSON text or a file path.

    Returns:
        The JSON as a dict.

    Raises:
        ValueError: Not a symbol JSON (no "nodes" list).
    """
    if isinstance(source, Mapping):
        return dict(source)
    text = os.fspath(source)
    if not text.lstrip().startswith("{"):
        with open(text, encoding="utf-8") as f:
            text = f.read()
    data = json.loads(text)
    if not isinstance(data, dict) or "nodes" not in data:
        raise ValueError("not an MXNet symbol JSON: it has no 'nodes' list")
    return data


def symbol_json_to_graph_def(symbol_json: Any, shapes: Shapes | None = None,
                             node_shapes: Mapping[str, Sequence[Sequence[int]]] | None = None,
                             scopes: Mapping[str, str] | None = None,
                             inputs: Sequence[str] | None = None) -> graph_pb2.GraphDef:
    """Converts MXNet symbol JSON (dict, text or path) into a GraphDef.

    Args:
      symbol_json: the JSON; see the module docstring for its format.
      shapes: known shapes of variables (parameters or inputs) by MXNet name.
      node_shapes: known output shapes of operators by MXNet node name (from shape inference).
      scopes: MXNet name prefix -> '/' scope ("net0_dense0_" -> "net0/dense0"), e.g. from
        a Gluon block tree; without it scopes are derived from parameter names.
      inputs: names of the data variables; without it, variables that look like parameters
        (`<consumer>_weight`, a `__shape__`/`__init__` attribute...) are parameters, the rest inputs.
    """
    data = load_symbol_json(symbol_json)
    nodes = data["nodes"]
    shapes = dict(shapes or {})
    node_shapes = dict(node_shapes or {})
    consumers: dict[int, list[int]] = {}
    for index, node in enumerate(nodes):
        for entry in node.get("inputs", []):
            consumers.setdefault(int(entry[0]), []).append(index)
    input_names = set(inputs) if inputs is not None else None
    kinds = [_variable_kind(i, node, nodes, consumers, input_names) for i, node in enumerate(nodes)]
    names = _scoped_names(nodes, consumers, kinds, scopes)

    builder = GraphBuilder()
    handles: list[int] = []
    for index, node in enumerate(nodes):
        attrs_raw = _node_attrs(node)
        attrs: dict[str, Any] = {}
        out_shapes: list[Any] | None = None
        if node["op"] == "null":
            op = kinds[index]
            declared = attrs_raw.get("__shape__")
            if node["name"] in shapes:
                out_shapes = [list(shapes[node["name"]])]
            elif declared is not None:
                parsed = parse_literal(declared)
                if isinstance(parsed, list):  # MXNet uses 0 for "not known yet"
                    out_shapes = [[d if d > 0 else -1 for d in parsed]]
            attrs["mxnet_name"] = node["name"]
            for key, value in attrs_raw.items():
                if key.startswith("__") and key != "__shape__":
                    attrs[key.strip("_")] = parse_literal(value)
        else:
            op = node["op"]
            attrs = {key: parse_literal(value) for key, value in attrs_raw.items()}
            attrs["mxnet_name"] = node["name"]
            if node["name"] in node_shapes:
                out_shapes = [list(s) for s in node_shapes[node["name"]]]
        edges = [(handles[int(entry[0])], int(entry[1])) for entry in node.get("inputs", [])]
        handles.append(builder.add(names[index], op, edges, attrs, out_shapes))
    return builder.build()


def symbol_to_graph_def(symbol: Any, input_to_model: Any = None,
                        scopes: Mapping[str, str] | None = None,
                        param_shapes: Shapes | None = None,
                        inputs: Sequence[str] | None = None) -> graph_pb2.GraphDef:
    """Converts an `mx.sym.Symbol` into a GraphDef.

    Args:
        symbol: The Symbol.
        input_to_model: Input shapes or arrays, to add inferred output shapes: a dict name ->
            shape/NDArray, one shape/array for a single `data` input, or a list for several.
        scopes: MXNet name prefix -> "/" scope (`gluon_scopes`).
        param_shapes: Known shapes of parameters by MXNet name.
        inputs: The names of the data inputs.

    Returns:
        A GraphDef.
    """
    data = json.loads(symbol.tojson())
    input_shapes = _input_shapes(symbol, input_to_model, inputs)
    shapes: dict[str, Sequence[int]] = dict(param_shapes or {})
    node_shapes: dict[str, list[Sequence[int]]] = {}
    if input_shapes:
        internals = symbol.get_internals()
        _, out_shapes, _ = internals.infer_shape_partial(**input_shapes)
        by_output = dict(zip(internals.list_outputs(), out_shapes or []))
        for node in data["nodes"]:
            name = node["name"]
            if node["op"] == "null":
                if by_output.get(name):
                    shapes.setdefault(name, by_output[name])
                continue
            outputs = [by_output[name + "_output"]] if name + "_output" in by_output else [
                by_output[k] for k in sorted((k for k in by_output if re.fullmatch(
                    re.escape(name) + r"_output\d+", k)), key=lambda k: int(k[len(name) + 7:]))]
            if outputs and all(o is not None for o in outputs):
                node_shapes[name] = [[d if d > 0 else -1 for d in o] for o in outputs]
    return symbol_json_to_graph_def(data, shapes=shapes, node_shapes=node_shapes, scopes=scopes,
                                    inputs=inputs)


def block_to_graph_def(block: Any, input_to_model: Any = None) -> graph_pb2.GraphDef:
    """Converts a Gluon `HybridBlock` that was hybridized and run (its cached graph).

    Args:
        block: The HybridBlock.
        input_to_model: Example inputs (arrays or shapes): the block is then traced symbolically
            (`block(mx.sym.var(...))`), which needs neither `hybridize()` nor a forward pass and
            adds inferred shapes.

    Returns:
        A GraphDef.

    Raises:
        TypeError: A Block that is not a HybridBlock.
        ValueError: No cached graph yet (not hybridized and run) and no `input_to_model`.
    """
    if not any(c.__name__ == "HybridBlock" for c in type(block).__mro__):
        raise TypeError(f"{type(block).__name__} is a Gluon Block but not a HybridBlock: only "
                        "HybridBlocks have a graph. Build the model from HybridSequential/HybridBlock, "
                        "call net.hybridize() and run one forward pass before add_graph(net).")
    scopes = gluon_scopes(block)
    params = {name: tuple(p.shape) for name, p in block.collect_params().items()
              if getattr(p, "shape", None) is not None}
    cached = getattr(block, "_cached_graph", ())
    if input_to_model is not None:
        import mxnet as mx  # the block comes from MXNet, so it is importable

        arrays = list(input_to_model) if isinstance(input_to_model, (list, tuple)) and not \
            _is_shape(input_to_model) else [input_to_model]
        names = ["data"] if len(arrays) == 1 else [f"data{i}" for i in range(len(arrays))]
        out = block(*[mx.sym.var(n) for n in names])
        if isinstance(out, (list, tuple)):
            out = mx.sym.Group(list(out))
        shapes = {n: _shape_of(a) for n, a in zip(names, arrays)}
        return symbol_to_graph_def(out, shapes, scopes=scopes, param_shapes=params, inputs=names)
    if not cached:
        raise ValueError(f"the Gluon block {type(block).__name__} has no graph yet: call net.hybridize() "
                         "and run a forward pass (net(x)) before add_graph(net), or pass an example "
                         "input: add_graph(net, input_to_model=x)")
    inputs, out = cached
    input_names = [s.name for s in inputs] if isinstance(inputs, (list, tuple)) else [inputs.name]
    return symbol_json_to_graph_def(json.loads(out.tojson()), shapes=params, scopes=scopes,
                                    inputs=input_names)


def gluon_scopes(block: Any) -> dict[str, str]:
    """The "/" scopes of a Gluon block and its children.

    Args:
        block: A Gluon Block.

    Returns:
        {MXNet name prefix: "/" scope}.
    """
    scopes: dict[str, str] = {}

    def visit(child: Any, parent_prefix: str, parent_scope: str) -> None:
        prefix = getattr(child, "prefix", "") or ""
        if prefix.startswith(parent_prefix) and len(prefix) > len(parent_prefix):
            own = prefix[len(parent_prefix):].strip("_")
        else:
            own = prefix.strip("_")
        scope = "/".join(p for p in (parent_scope, own) if p)
        if prefix:
            scopes[prefix] = scope
        children = getattr(child, "_children", {})
        for sub in (children.values() if isinstance(children, Mapping) else children):
            sub = sub() if callable(sub) and not hasattr(sub, "prefix") else sub  # weakrefs in some versions
            visit(sub, prefix, scope)

    visit(block, "", "")
    return scopes


def graph_def(model: Any, input_to_model: Any = None, **_: Any) -> graph_pb2.GraphDef:
    """Converts any MXNet model this module knows into a GraphDef.

    Args:
        model: A Symbol, a Gluon HybridBlock, or symbol JSON (dict, text or path).
        input_to_model: Input shapes or arrays, for a Symbol or HybridBlock.
        **_: Other converters' options, ignored.

    Returns:
        A GraphDef.

    Raises:
        TypeError: Not an MXNet model.
    """
    if is_symbol(model):
        return symbol_to_graph_def(model, input_to_model)
    if is_gluon_block(model):
        return block_to_graph_def(model, input_to_model)
    if is_symbol_json(model):
        return symbol_json_to_graph_def(model)
    raise TypeError(f"not an MXNet model: {type(model).__name__}")


# -- helpers -----------------------------------------------------------------------------

def _node_attrs(node: Mapping[str, Any]) -> dict[str, str]:
    for key in ("attrs", "attr", "param"):  # "param"/"attr": symbol JSON of MXNet < 1.0
        if isinstance(node.get(key), Mapping):
            return {k: str(v) for k, v in node[key].items()}
    return {}


def _variable_kind(index: int, node: Mapping[str, Any], nodes: Sequence[Mapping[str, Any]],
                   consumers: Mapping[int, Sequence[int]], inputs: set[str] | None) -> str:
    if node["op"] != "null":
        return node["op"]
    name = node["name"]
    if inputs is not None:
        return "Input" if name in inputs else "Parameter"
    if name.endswith("_label") or name == "label":  # SoftmaxOutput & co. create "<name>_label"
        return "Input"
    attrs = _node_attrs(node)
    if "__init__" in attrs or "__lr_mult__" in attrs or "__storage_type__" in attrs:
        return "Parameter"
    for consumer in consumers.get(index, []):
        if name.startswith(nodes[consumer]["name"] + "_"):
            return "Parameter"
    if any(name.endswith("_" + s) for s in PARAM_SUFFIXES):
        return "Parameter"
    return "Input"


def _common_scope(a: str, b: str) -> str:
    """The longest '_'-terminated common prefix of two MXNet names, without the '_'."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    cut = a[:n].rfind("_")
    return a[:cut] if cut > 0 else ""


def _scoped_names(nodes: Sequence[Mapping[str, Any]], consumers: Mapping[int, Sequence[int]],
                  kinds: Sequence[str], scopes: Mapping[str, str] | None) -> list[str]:
    if scopes:  # Gluon: the block tree says which prefix is which scope
        ordered = sorted(scopes.items(), key=lambda kv: -len(kv[0]))
        names = []
        for node in nodes:
            name = node["name"]
            for prefix, scope in ordered:
                if name.startswith(prefix) and len(name) > len(prefix):
                    name = f"{scope}/{name[len(prefix):]}"
                    break
            names.append(name)
        return names
    # Symbols: a parameter "fc1_weight" consumed by operator "fc1" opens the scope "fc1";
    # exported Gluon names ("net0_dense0_weight" into "net0_dense0_fwd") share "net0_dense0".
    found: set[str] = set()
    for index, node in enumerate(nodes):
        if kinds[index] != "Parameter":
            continue
        for consumer in consumers.get(index, []):
            op_name = nodes[consumer]["name"]
            scope = op_name if node["name"].startswith(op_name + "_") else _common_scope(node["name"], op_name)
            if scope:
                found.add(scope)
                break
    ordered = sorted(found, key=len, reverse=True)
    names = []
    for node in nodes:
        name = node["name"]
        for scope in ordered:
            if name == scope:
                name = f"{_split_gluon_scope(scope)}/{node['op']}"
                break
            if name.startswith(scope + "_"):
                name = f"{_split_gluon_scope(scope)}/{name[len(scope) + 1:]}"
                break
        names.append(name)
    return names


def _split_gluon_scope(scope: str) -> str:
    """"hybridsequential0_dense0" -> "hybridsequential0/dense0" (Gluon's automatic block
    prefixes, `<class name><counter>_`); any other scope is kept whole."""
    parts = scope.split("_")
    if len(parts) > 1 and all(re.fullmatch(r"[a-z]+\d+", p) for p in parts):
        return "/".join(parts)
    return scope


def _is_shape(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and all(isinstance(v, int) for v in value) and len(value) > 0


def _shape_of(value: Any) -> tuple[int, ...]:
    if _is_shape(value):
        return tuple(value)
    if hasattr(value, "shape"):
        return tuple(int(d) for d in value.shape)
    raise TypeError(f"cannot take a shape from {type(value).__name__}: pass arrays or shape tuples")


def _input_shapes(symbol: Any, input_to_model: Any, inputs: Sequence[str] | None) -> dict[str, tuple]:
    if input_to_model is None:
        return {}
    if isinstance(input_to_model, Mapping):
        return {k: _shape_of(v) for k, v in input_to_model.items()}
    arguments = symbol.list_arguments()
    names = list(inputs) if inputs else [n for n in arguments if n == "data" or n.startswith("data")]
    if not names:
        names = arguments[:1]
    values = list(input_to_model) if isinstance(input_to_model, (list, tuple)) and not \
        _is_shape(input_to_model) else [input_to_model]
    return {n: _shape_of(v) for n, v in zip(names, values)}
