"""A jaxpr (`jax.make_jaxpr(fn)(*args)`) as a GraphDef: equations as nodes, sub-jaxprs as scopes.

* every equation is one node whose op is its primitive (`dot_general`, `tanh`, ...), named
  `<call scopes>/<name stack>/<primitive>`; the name stack is what `jax.named_scope` and Flax
  linen modules record (`MLP/Dense_0`); output shapes as `_output_shapes`, dtypes as
  `output_dtypes`, simple parameters (numbers, strings, shapes, dtypes) as attributes;
* arguments are `Input` nodes named by the caller, closed-over arrays and literals `Const` nodes;
* call-like primitives (`jit`, `custom_jvp_call`, `custom_vjp_call`, `checkpoint`, `closed_call`,
  `shard_map`) are a scope holding their equations, the inner inputs wired to the outer operands;
* control flow (`cond`, `while`, `scan`, `custom_linear_solve`) is a scope with one sub-scope per
  branch / body / cond / solver function, each fed by its own operands, and a node of the
  primitive (`cond/cond`) fed by their results;
* any other primitive with a sub-jaxpr (`scatter-add`'s combiner, `reduce`'s reducer) is one
  node fed by all its operands, the sub-jaxpr's text an attribute: its body computes no edge.
"""
from __future__ import annotations

import enum
from typing import Any, Sequence

from tensorboard.graph._builder import GraphBuilder
from tensorboard.src import graph_pb2

Edge = tuple[int, int]  # (node handle, output index)

#: Scope names of primitives whose own name says little.
_SCOPE_NAMES = {"remat2": "checkpoint", "remat": "checkpoint", "pjit": "jit"}
#: Sub-jaxpr parameters of control flow, as scope names.
_SUB_NAMES = {"jaxpr": "body", "cond_jaxpr": "cond", "body_jaxpr": "body"}
#: Primitives that call their one sub-jaxpr on their operands: drawn as the sub-jaxpr, inlined.
_CALLS = frozenset({"jit", "pjit", "closed_call", "core_call", "named_call", "custom_jvp_call", "custom_vjp_call",
                    "custom_vjp_call_jaxpr", "remat", "remat2", "checkpoint", "shard_map", "xla_call", "xla_pmap"})
#: Control flow whose sub-jaxprs take (some of) the operands: one scope per sub-jaxpr.
_CONTROL_FLOW = frozenset({"cond", "while", "scan", "custom_linear_solve"})
#: Longest sub-jaxpr text kept as an attribute of an opaque node.
_MAX_JAXPR_TEXT = 1000
#: Largest constant whose values are kept as an attribute.
_MAX_CONST_VALUES = 16


def _is_jaxpr(value: Any) -> bool:
    from jax.extend import core

    return isinstance(value, (core.Jaxpr, core.ClosedJaxpr))


def _is_literal(var: Any) -> bool:
    from jax.extend import core

    return isinstance(var, core.Literal)


def _open(value: Any) -> tuple[Any, Sequence[Any]]:
    """(Jaxpr, consts) of a Jaxpr or ClosedJaxpr."""
    from jax.extend import core

    if isinstance(value, core.ClosedJaxpr):
        return value.jaxpr, value.consts
    return value, ()


def sub_jaxprs(params: dict) -> list[tuple[str, Any]]:
    """(label, jaxpr) for every jaxpr in an equation's parameters, branches numbered."""
    found = []
    for key, value in params.items():
        if _is_jaxpr(value):
            found.append((_SUB_NAMES.get(key, key), value))
        elif (isinstance(value, (tuple, list)) and any(_is_jaxpr(v) for v in value)
              and all(v is None or _is_jaxpr(v) for v in value)):
            fields = getattr(value, "_fields", None)  # custom_linear_solve: (matvec, vecmat, solve, transpose_solve)
            found += [(fields[i] if fields else f"branch{i}" if key == "branches" else f"{key}{i}", v)
                      for i, v in enumerate(value) if v is not None]
    return found


def simple_param(value: Any) -> Any:
    """A parameter as an attribute value (number, string, int list, dtype name); None drops it."""
    if isinstance(value, enum.Enum):
        return value.name
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (tuple, list)):
        items = [simple_param(v) for v in value]
        if any(v is None and w is not None for v, w in zip(items, value)):
            return None
        if all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            return items
        return str(tuple(value)) if all(_plain(v) for v in value) else None
    import numpy as np

    return str(value) if isinstance(value, np.dtype) else None


def _plain(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def _aval(var: Any) -> tuple[list[int] | None, str]:
    aval = getattr(var, "aval", None)
    shape = getattr(aval, "shape", None)
    shape = None if shape is None else [d if isinstance(d, int) else -1 for d in shape]  # symbolic: unknown
    return shape, str(getattr(aval, "dtype", ""))


def _const_attrs(value: Any, dtype: str) -> dict[str, Any]:
    """dtype and, when small, the values of a constant (a scalar as a number)."""
    import numpy as np

    size = getattr(value, "size", None)
    own_dtype = getattr(value, "dtype", None)
    if (size is not None and size > _MAX_CONST_VALUES  # never copy a large array to the host
            or own_dtype is not None and not isinstance(own_dtype, np.dtype)):  # PRNG keys: no NumPy form
        return {"dtype": dtype or str(own_dtype or "")}
    array = np.asarray(value)
    attrs: dict[str, Any] = {"dtype": dtype or str(array.dtype)}
    if array.size <= _MAX_CONST_VALUES and array.dtype.kind in "biuf":
        attrs["value"] = array.item() if array.ndim == 0 else array.ravel().tolist()
    return attrs


class JaxprWalker:
    """Adds a (closed) jaxpr's equations to a GraphBuilder, scope by scope."""

    def __init__(self, builder: GraphBuilder):
        self.builder = builder

    def const(self, scope: str, value: Any, var: Any, kind: str) -> Edge:
        shape, dtype = _aval(var)
        attrs = {"kind": kind, **_const_attrs(value, dtype)}
        return self.builder.add(_join(scope, "const"), "Const", attrs=attrs, shapes=[shape]), 0

    def walk(self, jaxpr: Any, inputs: Sequence[Edge | None], scope: str) -> list[Edge | None]:
        """Adds the equations under `scope`; inputs: edges of the invars; returns the outvars' edges."""
        jaxpr, consts = _open(jaxpr)
        env: dict[Any, Edge | None] = {}
        for var, value in zip(jaxpr.constvars, consts):
            env[var] = self.const(scope, value, var, "closed_over")
        env.update(zip(jaxpr.invars, inputs))

        def read(var: Any, where: str) -> Edge | None:
            if _is_literal(var):
                return self.const(where, var.val, var, "literal")
            return env.get(var)

        for eqn in jaxpr.eqns:
            stack = str(getattr(eqn.source_info, "name_stack", "") or "")
            where = _join(scope, stack)
            operands = [read(v, where) for v in eqn.invars]
            outputs = self.equation(eqn, operands, where)
            env.update(zip(eqn.outvars, outputs))
        return [read(v, scope) for v in jaxpr.outvars]

    def equation(self, eqn: Any, operands: list[Edge | None], where: str) -> list[Edge | None]:
        """Adds one equation: a node, an inlined call scope, or a control-flow scope."""
        name = eqn.primitive.name
        subs = sub_jaxprs(eqn.params)
        if len(subs) == 1 and name in _CALLS:
            inner, _ = _open(subs[0][1])
            if len(inner.invars) == len(operands) and len(inner.outvars) == len(eqn.outvars):
                label = _call_label(eqn, inner)
                scope = where if where.rsplit("/", 1)[-1] == label else _join(where, label)
                return self.walk(subs[0][1], operands, scope)
        if name not in _CONTROL_FLOW:  # a combiner or an unknown use of a jaxpr: one node, every operand
            return self._node(eqn, [e for e in operands if e is not None], _join(where, name),
                              {label: _jaxpr_text(sub) for label, sub in subs})
        scope = self.builder.unique_scope(_join(where, _SCOPE_NAMES.get(name, name)))  # cond, cond_1, ...
        results: list[Edge] = []
        wired: set[int] = set()
        for label, sub in subs:
            taken = self._operands_of(eqn, label, sub, len(operands))
            wired.update(taken)
            outs = self.walk(sub, [operands[i] for i in taken], _join(scope, label))
            results += [e for e in outs if e is not None]
        direct = [e for i, e in enumerate(operands) if i not in wired and e is not None]
        return self._node(eqn, direct + results, _join(scope, name) if subs else _join(where, name))

    def _node(self, eqn: Any, inputs: list[Edge], name: str, extra: dict[str, Any] | None = None) -> list[Edge]:
        """One node for the equation: its parameters and output dtypes as attributes."""
        shapes, dtypes = zip(*[_aval(v) for v in eqn.outvars]) if eqn.outvars else ((), ())
        attrs = {k: simple_param(v) for k, v in eqn.params.items() if not _is_jaxpr(v)}
        attrs.update(extra or {})
        attrs["output_dtypes"] = list(dtypes)
        node = self.builder.add(name, eqn.primitive.name, inputs, attrs, list(shapes))
        return [(node, i) for i in range(len(eqn.outvars))]

    @staticmethod
    def _operands_of(eqn: Any, label: str, sub: Any, count: int) -> list[int]:
        """Which operands feed a sub-jaxpr's invars: `while` and `custom_linear_solve` give each
        sub-jaxpr its own consts before the shared carry / vector; the others take the last n."""
        inner, _ = _open(sub)
        n = len(inner.invars)
        if eqn.primitive.name == "custom_linear_solve":
            lengths = eqn.params["const_lengths"]
            fields = list(getattr(lengths, "_fields", ()))
            if label in fields:
                start = sum(lengths[:fields.index(label)])
                own = list(range(start, start + lengths[fields.index(label)]))
                taken = own + list(range(sum(lengths), count))
                if len(taken) == n:
                    return taken
        if eqn.primitive.name == "while":
            cond_n, body_n = eqn.params.get("cond_nconsts", 0), eqn.params.get("body_nconsts", 0)
            carry = list(range(cond_n + body_n, count))
            own = range(0, cond_n) if label == "cond" else range(cond_n, cond_n + body_n)
            taken = list(own) + carry
            if len(taken) == n:
                return taken
        return list(range(count - n, count)) if n <= count else []


def _call_label(eqn: Any, inner: Any) -> str:
    """Scope of an inlined call: 'checkpoint', else the function's name (`jit`'s `name`, `relu`)."""
    name = eqn.primitive.name
    if name in _SCOPE_NAMES:
        return _SCOPE_NAMES[name]
    func = eqn.params.get("name") or getattr(getattr(inner, "debug_info", None), "func_name", None)
    return str(func) if func and str(func).isidentifier() else name


def _jaxpr_text(jaxpr: Any) -> str:
    """A sub-jaxpr as text for an attribute, shortened to `_MAX_JAXPR_TEXT` characters."""
    text = str(jaxpr)
    return text if len(text) <= _MAX_JAXPR_TEXT else text[:_MAX_JAXPR_TEXT - 3] + "..."


def _join(scope: str, name: str) -> str:
    return f"{scope}/{name}" if scope and name else scope or name


def jaxpr_graph_def(closed: Any, input_names: Sequence[str],
                    output_names: Sequence[str] | None = None) -> graph_pb2.GraphDef:
    """A GraphDef of a ClosedJaxpr whose invars are named by `input_names` (Input nodes)."""
    builder = GraphBuilder()
    jaxpr = closed.jaxpr
    inputs = []
    for var, name in zip(jaxpr.invars, input_names):
        shape, dtype = _aval(var)
        inputs.append((builder.add(name, "Input", attrs={"dtype": dtype}, shapes=[shape]), 0))
    walker = JaxprWalker(builder)
    outputs = walker.walk(closed, inputs, "")
    names = output_names or [f"output/output{i}" for i in range(len(outputs))]
    for var, edge, name in zip(jaxpr.outvars, outputs, names):
        shape, dtype = _aval(var)
        builder.add(name, "Output", [edge] if edge is not None else [], {"dtype": dtype}, [shape])
    return builder.build()
