"""JAX functions and Flax modules as GraphDefs: the jaxpr of one call with the example inputs.

`graph_def(fn, args)` traces `jax.make_jaxpr(fn)(*args)` (nothing runs on a device) and hands
the jaxpr to `_jaxpr`. Arguments become `Input` nodes named after the parameter (`input/x`),
or, for pytree arguments, after their path (`params/Dense_0/kernel`; the leaves of Flax's
`variables` dict go without the `variables/` prefix). A model may be:

* any jittable function or `jax.jit` function (`model.apply` of a Flax linen module too);
* a `flax.linen.Module`: traced as `module.apply(variables, *args)`; the variables are the
  given `variables=` or the shapes `module.init` would make (`jax.eval_shape`, no compute);
* arguments that are not arrays (a Flax `train` flag, a size, a `jax.jit` function's static
  arguments) go in `static_argnums`: positions in `input_to_model`, passed to the model as they
  are while the others are traced;
* a `flax.nnx.Module`: split into graph and state and traced as a function of the state. nnx
  records no name stack, so while tracing each submodule's `__call__` runs under
  `jax.named_scope(<attribute path>)` (its class is patched for the trace and restored after;
  do not call the same classes from another thread meanwhile).
"""
from __future__ import annotations

import contextlib
import inspect
from typing import Any, Callable, Iterator, Sequence

from tensorboard.graph._builder import example_args
from tensorboard.graph._jaxpr import jaxpr_graph_def
from tensorboard.src import graph_pb2


def _args_tuple(input_to_model: Any) -> tuple:
    return example_args(input_to_model, "a JAX graph needs example inputs: add_graph(fn, input_to_model=args) "
                                        "(an array, or a tuple with one entry per positional argument of fn)")


_JAX_PACKAGES = frozenset({"jax", "jaxlib", "flax"})


def _is_class_of(obj: Any, package: str) -> bool:
    """True when a class of `obj`'s MRO lives in `package` ('flax.linen') or below it."""
    return any((c.__module__ or "") == package or (c.__module__ or "").startswith(package + ".")
               for c in type(obj).__mro__[:-1])


def _from_jax(obj: Any) -> bool:
    return any((c.__module__ or "").split(".")[0] in _JAX_PACKAGES for c in type(obj).__mro__[:-1])


def _parameter_names(fn: Callable, count: int) -> list[str]:
    """Names of the first `count` positional parameters; `arg<i>` for *args and unknowns."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return [positional[i] if i < len(positional) else f"arg{i}" for i in range(count)]


def _key_text(key: Any) -> str:
    for attr in ("key", "idx", "name"):  # DictKey, SequenceKey, GetAttrKey / FlattenedIndexKey
        if hasattr(key, attr):
            return str(getattr(key, attr))
    return str(key)


def input_names(args: Sequence[Any], names: Sequence[str]) -> list[str]:
    """The graph's names of the inputs of a traced call.

    Args:
        args: The call's arguments.
        names: Their parameter names, one per argument.

    Returns:
        One name per flattened leaf of `args`: `input/<param>` for arrays, paths for pytrees.
    """
    import jax

    out = []
    for arg, name in zip(args, names):
        for path, _ in jax.tree_util.tree_flatten_with_path(arg)[0]:
            parts = [_key_text(k) for k in path]
            if parts and parts[-1] == "value" and type(path[-1]).__name__ == "GetAttrKey":
                parts = parts[:-1]  # nnx Variable leaves: 'l1/kernel', not 'l1/kernel/value'
            if not parts:
                out.append(f"input/{name}")
            else:
                out.append("/".join(parts if name == "variables" else [name, *parts]))
    return out


class _NnxScopes:
    """Runs each nnx submodule's `__call__` under `jax.named_scope` of its attribute path."""

    def __init__(self) -> None:
        self.paths: dict[int, str] = {}
        self.active: list[str] = []

    def register(self, module: Any) -> Any:
        """Records the paths of a (merged) module's submodules; returns the module."""
        from flax import nnx

        name = type(module).__name__
        self.paths.update({id(m): "/".join([name, *map(str, path)]) for path, m in nnx.iter_modules(module)})
        return module

    def _wrap(self, call: Callable) -> Callable:
        import jax

        def scoped(module: Any, *args: Any, **kwargs: Any) -> Any:
            path = self.paths.get(id(module))
            if path is None or path in self.active:
                return call(module, *args, **kwargs)
            parent = next((p for p in reversed(self.active) if path.startswith(p + "/")), "")
            self.active.append(path)
            try:
                with jax.named_scope(path[len(parent) + 1:] if parent else path):
                    return call(module, *args, **kwargs)
            finally:
                self.active.pop()
        return scoped

    @contextlib.contextmanager
    def patched(self, module: Any) -> Iterator[None]:
        """Wraps `__call__` of the module's classes while tracing; restores them after."""
        from flax import nnx

        saved: dict[type, Any] = {}
        for cls in {type(m) for _, m in nnx.iter_modules(module)}:
            call = next((k.__dict__["__call__"] for k in cls.__mro__[:-1] if "__call__" in k.__dict__), None)
            if call is not None:
                saved[cls] = cls.__dict__.get("__call__")
                cls.__call__ = self._wrap(call)
        try:
            yield
        finally:
            for cls, original in saved.items():
                if original is None:
                    del cls.__call__
                else:
                    cls.__call__ = original


def _static_positions(static_argnums: Any, count: int) -> frozenset[int]:
    """`static_argnums` (an int or ints) as non-negative positions among `count` arguments."""
    items = static_argnums if isinstance(static_argnums, (tuple, list, set, frozenset)) else (static_argnums,)
    positions = set()
    for item in items:
        if isinstance(item, bool) or not isinstance(item, int) or not -count <= item < count:
            raise ValueError(f"static_argnums: expected positions of input_to_model's {count} argument(s), "
                             f"got {static_argnums!r}")
        positions.add(item % count)
    return frozenset(positions)


def _bind_static(fn: Callable, args: tuple, names: list[str], static: frozenset[int]
                 ) -> tuple[Callable, tuple, list[str]]:
    """`fn` as a function of its traced arguments only, the static ones fixed at their positions."""
    if not static:
        return fn, args, names
    traced = [i for i in range(len(args)) if i not in static]

    def bound(*values: Any) -> Any:
        full = list(args)
        for i, value in zip(traced, values):
            full[i] = value
        return fn(*full)
    return bound, tuple(args[i] for i in traced), [names[i] for i in traced]


@contextlib.contextmanager
def _static_hint() -> Iterator[None]:
    """Adds to a tracing error that needs a concrete argument how to pass one (static_argnums)."""
    import jax

    hint = ("\nadd_graph traces every argument as an array: pass static_argnums=(i, ...), the positions in "
            "input_to_model of the flags and sizes the model needs as Python values (a jax.jit function's "
            "static arguments too)")
    try:
        yield
    except (jax.errors.ConcretizationTypeError, jax.errors.TracerIntegerConversionError) as error:
        raise TypeError(f"{error}{hint}") from error
    except ValueError as error:
        if "static argument" not in str(error):
            raise
        raise ValueError(f"{error}{hint}") from error


def graph_def(model: Any, input_to_model: Any = None, variables: Any = None,
              static_argnums: int | Sequence[int] = ()) -> graph_pb2.GraphDef:
    """The GraphDef of one call of a JAX function or Flax module, from its jaxpr (nothing runs on a device).

    Args:
        model: A jittable function (or `jax.jit` one), a `flax.linen.Module` or a `flax.nnx.Module`.
        input_to_model: The call's arguments: an array, or a tuple with one entry per positional argument.
        variables: A linen module's variables; None: the shapes `module.init` would make.
        static_argnums: Positions in `input_to_model` passed as they are, not traced (a `train`
            flag, a size, a `jax.jit` function's static arguments).

    Returns:
        A GraphDef.

    Raises:
        TypeError: A model that is not callable, or `variables` for a model that is not a linen module.
        ValueError: No example inputs, or `static_argnums` outside them.
    """
    import jax

    args = _args_tuple(input_to_model)
    static = _static_positions(static_argnums, len(args))
    offset = 0  # the Flax variables or state go before the user's arguments
    if variables is not None and not _is_class_of(model, "flax.linen"):
        raise TypeError("variables= applies to flax.linen modules only (pass them in input_to_model "
                        "for a function such as model.apply)")
    scopes: contextlib.AbstractContextManager = contextlib.nullcontext()
    if _is_class_of(model, "flax.linen"):
        if variables is None:
            init, init_args, _ = _bind_static(model.init, (jax.random.key(0), *args), [""] * (len(args) + 1),
                                              frozenset(i + 1 for i in static))
            with _static_hint():
                variables = jax.eval_shape(init, *init_args)
        fn: Callable = lambda variables, *inputs: model.apply(variables, *inputs)  # noqa: E731
        names = ["variables"] + _parameter_names(model.__call__, len(args))
        args, offset = (variables, *args), 1
    elif _is_class_of(model, "flax.nnx"):
        from flax import nnx

        graph, state = nnx.split(model)
        nnx_scopes = _NnxScopes()
        fn = lambda state, *inputs: nnx_scopes.register(nnx.merge(graph, state))(*inputs)  # noqa: E731
        names = ["state"] + _parameter_names(type(model).__call__, len(args) + 1)[1:]
        args, offset = (state, *args), 1
        scopes = nnx_scopes.patched(model)
    elif callable(model):
        fn, names = model, _parameter_names(model, len(args))
    else:
        raise TypeError(f"model: expected a jittable function or a Flax module, got {type(model).__name__}")
    fn, args, names = _bind_static(fn, args, names, frozenset(i + offset for i in static))
    with scopes, _static_hint():
        closed = jax.make_jaxpr(fn)(*args)
    return jaxpr_graph_def(closed, input_names(args, names))


def is_jax_model(model: Any, input_to_model: Any = None) -> bool:
    """Whether `model` is a JAX model, decided without importing JAX.

    Args:
        model: Anything.
        input_to_model: Its example inputs.

    Returns:
        True for a jitted function, a Flax module (or its method), or a callable given JAX arrays.
    """
    owners = (model, getattr(model, "__self__", None), getattr(model, "func", None))  # bound method, partial
    if any(obj is not None and _from_jax(obj) for obj in owners):
        return True
    if isinstance(model, type) or not callable(model):
        return False
    return any(_from_jax(leaf) for leaf in _leaves(input_to_model))


def _leaves(value: Any, depth: int = 0) -> Iterator[Any]:
    """Values inside tuples, lists and dicts (a few levels), without importing a framework."""
    if isinstance(value, (tuple, list)) and depth < 4:
        for item in value:
            yield from _leaves(item, depth + 1)
    elif isinstance(value, dict) and depth < 4:
        for item in value.values():
            yield from _leaves(item, depth + 1)
    elif value is not None:
        yield value
