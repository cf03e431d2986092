"""Model graphs for the Graphs dashboard: `to_graph_def(model)` for MXNet, PyTorch, ONNX and JAX.

`FileWriter.add_graph` and `SummaryWriter.add_graph` call `to_graph_def` for anything that
is not already a GraphDef. Frameworks are never imported to find out what a model is:
the dispatcher looks at the type's module (and at paths/JSON for exported files), and
only the converter of the model's own framework imports that framework.

For a model of your own (e.g. plain NumPy), `GraphBuilder` assembles a GraphDef::

    g = GraphBuilder()
    x = g.add("input/x", "Input", shapes=[[-1, 64]])
    w = g.add("dense/weight", "Parameter", shapes=[[64, 32]])
    y = g.add("dense/MatMul", "MatMul", [x, w], shapes=[[-1, 32]])
    writer.add_graph(g.build())
"""
from __future__ import annotations

import os
from typing import Any

from tensorboard.graph._builder import GraphBuilder
from tensorboard.src import graph_pb2
from tensorboard.src.pool import as_ours, is_message

__all__ = ["to_graph_def", "framework_of", "GraphBuilder"]


def framework_of(model: Any, input_to_model: Any = None) -> str | None:
    """Which converter takes `model`, decided without importing frameworks.

    Args:
        model: Any model `to_graph_def` takes, or anything else.
        input_to_model: Its example inputs: a plain Python function counts as JAX when they hold
            JAX arrays (or Flax state).

    Returns:
        "graphdef", "mxnet", "pytorch", "onnx", "jax", or None when no converter takes it.
    """
    if is_message(model, graph_pb2.GraphDef):  # ours or upstream's
        return "graphdef"
    modules = [c.__module__ or "" for c in type(model).__mro__]
    top = {m.split(".")[0] for m in modules}
    if "mxnet" in top:
        return "mxnet"
    if "torch" in top:
        return "pytorch"
    if "onnx" in top and type(model).__name__ == "ModelProto":
        return "onnx"
    if isinstance(model, (str, os.PathLike)) or isinstance(model, dict):
        from tensorboard.graph import mxnet as mxnet_graph
        from tensorboard.graph import onnx as onnx_graph

        if onnx_graph.is_onnx_path(model):
            return "onnx"
        if mxnet_graph.is_symbol_json(model):
            return "mxnet"
    if isinstance(model, (bytes, bytearray)):
        return "graphdef"
    from tensorboard.graph import jax as jax_graph  # imports no framework

    if jax_graph.is_jax_model(model, input_to_model):
        return "jax"
    return None


def parse_graph_def(data: bytes, name: str = "model") -> graph_pb2.GraphDef:
    """A GraphDef from its serialized bytes.

    Args:
        data: The bytes.
        name: The argument's name in error messages.

    Returns:
        A GraphDef.

    Raises:
        ValueError: Bytes that are not a GraphDef (they fail to parse, or parse into nothing but
            unknown fields).
    """
    from google.protobuf.message import DecodeError

    graph = graph_pb2.GraphDef()
    try:
        graph.ParseFromString(data)
    except DecodeError as err:
        raise ValueError(f"{name}: {len(data)} bytes that are not a serialized GraphDef ({err})") from None
    if data and not graph.ListFields():
        raise ValueError(f"{name}: {len(data)} bytes that are not a serialized GraphDef (no GraphDef field in them)")
    return graph


def to_graph_def(model: Any, input_to_model: Any = None, **kwargs: Any) -> graph_pb2.GraphDef:
    """Converts a model into a GraphDef, with the converter of its framework.

    Args:
        model: A GraphDef (returned as is) or serialized GraphDef bytes; an MXNet `Symbol`, a
            hybridized-and-run Gluon `HybridBlock` or a `*-symbol.json` path/dict/text; a PyTorch
            `nn.Module`; an ONNX `ModelProto` or `.onnx` path; a jittable JAX function (`jax.jit`
            or plain, given JAX arrays), a Flax module's `apply` or a `flax.linen` / `flax.nnx` Module.
        input_to_model: Example inputs, needed for PyTorch, JAX and Flax: a tensor or array, or a
            tuple of the positional arguments.
        **kwargs: Passed to the framework's converter (e.g. PyTorch's `strict=False`, Flax linen's
            `variables=`).

    Returns:
        A GraphDef.

    Raises:
        TypeError: A model no converter takes.
        ValueError: Bytes that are not a serialized GraphDef, or missing example inputs.

    Examples:
        >>> graph = to_graph_def(torch_model, torch.zeros(1, 3, 32, 32))
    """
    kind = framework_of(model, input_to_model)
    if kind == "graphdef":
        if is_message(model, graph_pb2.GraphDef):
            return as_ours(model, graph_pb2.GraphDef)
        return parse_graph_def(bytes(model))
    if kind == "mxnet":
        from tensorboard.graph import mxnet as mxnet_graph

        return mxnet_graph.graph_def(model, input_to_model, **kwargs)
    if kind == "pytorch":
        from tensorboard.graph import pytorch as pytorch_graph

        return pytorch_graph.graph_def(model, input_to_model, **kwargs)
    if kind == "onnx":
        from tensorboard.graph import onnx as onnx_graph

        return onnx_graph.graph_def(model, **kwargs)
    if kind == "jax":
        from tensorboard.graph import jax as jax_graph

        return jax_graph.graph_def(model, input_to_model, **kwargs)
    raise TypeError(
        f"model: add_graph cannot convert a {type(model).__module__}.{type(model).__name__}: pass a GraphDef, "
        "an MXNet Symbol or hybridized Gluon HybridBlock, a '*-symbol.json' path, a torch.nn.Module "
        "with input_to_model, an ONNX ModelProto / '.onnx' path, or a JAX function (jax.jit, or any "
        "function given JAX arrays in input_to_model), a Flax module's apply or a Flax linen/nnx Module "
        "with input_to_model")
