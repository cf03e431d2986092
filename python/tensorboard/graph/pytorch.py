"""PyTorch modules as GraphDefs: `torch.export` first, `torch.fx` and `torch.jit.trace` as fallbacks.

The module is traced with the example inputs (`input_to_model`) in eval mode and without
gradients; its training flags are restored afterwards, so batch-norm statistics are not
touched. The tracers, in order:

1. `torch.export.export(model, args, strict=False)`: ATen operators (`aten::conv2d`, ...)
   named by module scope, parameters and buffers from the exported signature.
2. `torch.fx.symbolic_trace` + `ShapeProp`, when export refuses the model (e.g. inputs that
   are not tensors or pytrees of tensors): calls of leaf modules (`Linear`) and functions.
3. `torch.jit.trace` (deprecated in torch 2.x), when symbolic tracing fails too (e.g. Python
   branches on tensor values). Its deprecation notice is hidden; TracerWarnings are not.

Falling back emits a `UserWarning` naming the tracer used and why export failed. `strict`
keeps `torch.jit.trace`'s meaning on every path: a model returning a dict is refused.
"""
from __future__ import annotations

import contextlib
import logging
import warnings
from typing import Any, Iterator

from tensorboard.graph import _fx, _torchscript
from tensorboard.graph._builder import example_args
from tensorboard.src import graph_pb2

_log = logging.getLogger(__name__)


def _inputs_tuple(input_to_model: Any) -> tuple:
    return example_args(input_to_model, "a PyTorch graph needs example inputs: add_graph(model, input_to_model=x) "
                                        "(a tensor, or a tuple of tensors for several forward() arguments)")


@contextlib.contextmanager
def _eval_no_grad(model: Any) -> Iterator[None]:
    """Eval mode and no gradients while tracing; every module's training flag restored after."""
    import torch

    modes = {m: m.training for m in model.modules()}
    model.eval()
    try:
        with torch.no_grad():
            yield
    finally:
        for module, mode in modes.items():
            module.training = mode


class StrictTraceError(RuntimeError):
    """A dict in the outputs of a model traced with strict=True (no fallback tracer changes that)."""


def _refuse_dict_outputs(structure: Any) -> None:
    """torch.jit.trace's strict mode: a dict anywhere in the outputs is an error (lists pass)."""
    if isinstance(structure, dict):
        raise StrictTraceError(
            "strict tracing refuses a model returning a dict (its keys could depend on the inputs; "
            "torch.jit.trace's strict=True rule): return a tuple or NamedTuple, or pass strict=False "
            "(use_strict_trace=False) to log the graph anyway")
    if isinstance(structure, (tuple, list)):
        for item in structure:
            _refuse_dict_outputs(item)


def export(model: Any, input_to_model: Any) -> Any:
    """`torch.export.export(model, inputs, strict=False)` in eval mode, without gradients.

    Args:
        model: A torch.nn.Module.
        input_to_model: Example inputs: a tensor, or a tuple of forward()'s arguments.

    Returns:
        A `torch.export.ExportedProgram`.
    """
    import torch

    with _eval_no_grad(model):
        return torch.export.export(model, _distinct_tensors(_inputs_tuple(input_to_model), set()), strict=False)


def _distinct_tensors(value: Any, seen: set) -> Any:
    """`value` with every repeat of one tensor object replaced by a copy: torch.export makes a tensor
    passed for two arguments one graph input, which would leave the other argument unconnected."""
    import torch

    if isinstance(value, torch.Tensor):
        if id(value) in seen:
            return value.clone()
        seen.add(id(value))
        return value
    if isinstance(value, (tuple, list)) and type(value) in (tuple, list):
        return type(value)(_distinct_tensors(item, seen) for item in value)
    if type(value) is dict:
        return {key: _distinct_tensors(item, seen) for key, item in value.items()}
    return value


def exported_graph_def(program: Any, model: Any, strict: bool = False) -> graph_pb2.GraphDef:
    """Converts a `torch.export.ExportedProgram` of `model` into a GraphDef.

    Args:
        program: What `export` returned for `model`.
        model: The module, for its parameters' names.
        strict: Refuse a model returning a dict (torch.jit.trace's strict rule).

    Returns:
        A GraphDef.

    Raises:
        StrictTraceError: `strict`, and a dict among the outputs.
    """
    from torch.export.graph_signature import InputKind, OutputKind
    from torch.utils import _pytree

    if strict:
        spec = program.call_spec.out_spec
        _refuse_dict_outputs(_pytree.tree_unflatten([None] * spec.num_leaves, spec))
    parameters = dict(model.named_parameters(remove_duplicate=False))
    ops = {InputKind.PARAMETER: "Parameter", InputKind.BUFFER: "Buffer", InputKind.CONSTANT_TENSOR: "Constant"}
    sources = {}
    for spec in program.graph_signature.input_specs:
        if spec.kind in ops and spec.target:
            attrs: dict[str, Any] = {"torch_name": spec.target}
            if spec.target in parameters:
                attrs["requires_grad"] = bool(parameters[spec.target].requires_grad)
            sources[spec.arg.name] = _fx.Source(ops[spec.kind], spec.target.replace(".", "/"), attrs)
    returned = list(program.graph.output_node().args[0])
    outputs = [value for spec, value in zip(program.graph_signature.output_specs, returned)
               if spec.kind == OutputKind.USER_OUTPUT]
    return _fx.fx_graph_def(program.graph, program.graph_module, sources, outputs)


def symbolic_graph_def(model: Any, input_to_model: Any, strict: bool = False) -> graph_pb2.GraphDef:
    """`torch.fx.symbolic_trace` with shapes from one run (`ShapeProp`) on the example inputs.

    Args:
        model: A torch.nn.Module.
        input_to_model: Example inputs: a tensor, or a tuple of forward()'s arguments.
        strict: Refuse a model returning a dict.

    Returns:
        A GraphDef.
    """
    import torch.fx
    from torch.fx.passes.shape_prop import ShapeProp

    with _eval_no_grad(model):
        module = torch.fx.symbolic_trace(model)
        result = ShapeProp(module).propagate(*_inputs_tuple(input_to_model))
    if strict:
        _refuse_dict_outputs(result)
    return _fx.fx_graph_def(module.graph, module)


def trace(model: Any, input_to_model: Any, strict: bool = False) -> Any:
    """`torch.jit.trace` (deprecated; the last fallback) in eval mode, restoring training flags.

    Args:
        model: A torch.nn.Module.
        input_to_model: Example inputs: a tensor, or a tuple of forward()'s arguments.
        strict: torch.jit.trace's `strict`.

    Returns:
        The traced ScriptModule.
    """
    with _eval_no_grad(model):
        return _torchscript.jit_trace(model, _inputs_tuple(input_to_model), strict)


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"


def graph_def(model: Any, input_to_model: Any = None, strict: bool = False) -> graph_pb2.GraphDef:
    """Converts a `torch.nn.Module` (run on `input_to_model`) or a `ScriptModule` into a GraphDef.

    Tries torch.export, then torch.fx, then torch.jit.trace, warning when it falls back.

    Args:
        model: A torch.nn.Module or ScriptModule.
        input_to_model: Example inputs: a tensor, or a tuple of forward()'s arguments.
        strict: Refuse a model returning a dict (torch.jit.trace's strict rule).

    Returns:
        A GraphDef.

    Raises:
        TypeError: Not a torch.nn.Module.
        ValueError: No example inputs.
        StrictTraceError: `strict`, and a dict among the outputs.
        RuntimeError: No tracer could trace the model.
    """
    import torch

    if isinstance(model, torch.jit.ScriptModule):
        return _torchscript.script_graph_def(model)
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"not a torch.nn.Module: {type(model).__name__}")
    _inputs_tuple(input_to_model)  # a missing input is the caller's error, not a tracer's
    name = type(model).__name__
    try:
        program = export(model, input_to_model)
    except Exception as export_error:  # noqa: BLE001 - export raises many types; fall back on any
        reason = _first_line(export_error)
    else:
        _log.debug("graph of %s from torch.export", name)
        return exported_graph_def(program, model, strict)
    try:
        graph = symbolic_graph_def(model, input_to_model, strict)
        used = "torch.fx.symbolic_trace"
    except StrictTraceError:
        raise
    except Exception as fx_error:  # noqa: BLE001
        try:
            graph = _torchscript.script_graph_def(trace(model, input_to_model, strict))
        except Exception as jit_error:
            raise RuntimeError(
                f"cannot trace {name} for its graph: torch.export: {reason}; torch.fx.symbolic_trace: "
                f"{_first_line(fx_error)}; torch.jit.trace: {_first_line(jit_error)}") from jit_error
        used = "torch.jit.trace"
    warnings.warn(f"torch.export could not take {name} ({reason}); its graph comes from {used}",
                  UserWarning, stacklevel=2)
    return graph
