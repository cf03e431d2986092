"""JAX functions and Flax modules -> GraphDef, checked against the jaxpr and read back by upstream."""
from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402
from graph_view import GraphView  # noqa: E402
from jax.extend import core as jcore  # noqa: E402
from upstream import upstream_read  # noqa: E402

from tensorboard import FileWriter, SummaryWriter  # noqa: E402
from tensorboard.graph import framework_of, to_graph_def  # noqa: E402

#: Primitives the converter inlines as a scope instead of drawing a node.
CALLS = {"jit", "pjit", "custom_jvp_call", "custom_vjp_call", "remat2", "checkpoint", "closed_call", "shard_map"}
#: Primitives drawn as a scope holding their sub-jaxprs; others' sub-jaxprs (a scatter's combiner) are not drawn.
CONTROL_FLOW = {"cond", "while", "scan", "custom_linear_solve"}
STRUCTURAL = {"Input", "Output", "Const"}
REPO = Path(__file__).resolve().parents[2]


def read_back(tmp_path, fn, args, **kwargs) -> GraphView:
    """Writes add_graph(fn, args) with a SummaryWriter and returns what upstream's reader sees."""
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_graph(fn, args, **kwargs)
    view = GraphView.from_upstream(upstream_read(tmp_path)["runs"]["."]["graph"])
    assert view.dangling_inputs() == [] and view.scopes_clash() == []
    return view


def primitive_counts(jaxpr) -> Counter:
    """Equations per primitive, calls replaced by their body, control flow counted with its bodies."""
    counts: Counter = Counter()
    for eqn in getattr(jaxpr, "jaxpr", jaxpr).eqns:
        if eqn.primitive.name not in CALLS:
            counts[eqn.primitive.name] += 1
        if eqn.primitive.name in CALLS | CONTROL_FLOW:
            for sub in jcore.jaxprs_in_params(eqn.params):
                counts += primitive_counts(sub)
    return counts


def op_counts(view: GraphView) -> Counter:
    return Counter(n["op"] for n in view.nodes.values() if n["op"] not in STRUCTURAL)


def op_nodes(view: GraphView, op: str) -> list[str]:
    return [name for name, node in view.nodes.items() if node["op"] == op]


def mlp(params, x):
    hidden = jnp.tanh(x @ params["dense1"]["w"] + params["dense1"]["b"])
    return jnp.sum((hidden @ params["dense2"]["w"] + params["dense2"]["b"]) * 0.5, axis=1) + OFFSET


OFFSET = np.arange(3.0, dtype=np.float32)  # closed over: a constvar of the jaxpr
MLP_PARAMS = {"dense1": {"w": jnp.ones((4, 8)), "b": jnp.zeros(8)},
              "dense2": {"w": jnp.ones((8, 2)), "b": jnp.zeros(2)}}


def test_mlp_function_matches_its_jaxpr(tmp_path):
    x = jnp.ones((3, 4))
    assert framework_of(mlp, (MLP_PARAMS, x)) == "jax"
    view = read_back(tmp_path, mlp, (MLP_PARAMS, x))
    closed = jax.make_jaxpr(mlp)(MLP_PARAMS, x)
    eqns = closed.jaxpr.eqns
    inputs = ["params/dense1/b", "params/dense1/w", "params/dense2/b", "params/dense2/w", "input/x"]
    assert op_nodes(view, "Input") == inputs
    for name, var in zip(inputs, closed.jaxpr.invars):
        assert view.nodes[name]["attrs"]["_output_shapes"] == [list(var.aval.shape)]
        assert view.nodes[name]["attrs"]["dtype"] == str(var.aval.dtype)

    # flat jaxpr: one node per equation, in order, wired as the equations are
    nodes = [n for n, node in view.nodes.items() if node["op"] not in STRUCTURAL]
    assert [view.nodes[n]["op"] for n in nodes] == [e.primitive.name for e in eqns]
    assert len(set(nodes)) == len(nodes) and all("/" not in n for n in nodes)
    producer = {v: (name, 0) for v, name in zip(closed.jaxpr.invars, inputs)}
    for eqn, name in zip(eqns, nodes):
        producer.update({v: (name, i) for i, v in enumerate(eqn.outvars)})
    expected = {(*producer[v], name) for eqn, name in zip(eqns, nodes) for v in eqn.invars
                if not isinstance(v, jcore.Literal) and v in producer}
    expected.add((*producer[closed.jaxpr.outvars[0]], "output/output0"))
    consts = set(op_nodes(view, "Const"))
    assert {e for e in view.edges() if e[0] not in consts} == expected
    for eqn, name in zip(eqns, nodes):
        assert view.nodes[name]["attrs"]["_output_shapes"] == [list(v.aval.shape) for v in eqn.outvars]
        assert view.nodes[name]["attrs"]["output_dtypes"] == [str(v.aval.dtype) for v in eqn.outvars]

    # literals and closed-over arrays are Const nodes feeding their equation
    literals = sum(isinstance(v, jcore.Literal) for e in eqns for v in e.invars)
    kinds = Counter(view.nodes[c]["attrs"]["kind"] for c in consts)
    assert kinds == {"literal": literals, "closed_over": len(closed.jaxpr.constvars)}
    assert any(view.nodes[c]["attrs"].get("value") == 0.5 for c in consts)
    assert any(view.nodes[c]["attrs"].get("value") == [0.0, 1.0, 2.0] for c in consts)
    # simple parameters become attributes
    (reduce_sum,) = op_nodes(view, "reduce_sum")
    assert view.nodes[reduce_sum]["attrs"]["axes"] == [1]
    assert "dimension_numbers" in view.nodes[op_nodes(view, "dot_general")[0]]["attrs"]


def test_jit_inside_is_a_scope_wired_to_the_outer_values(tmp_path):
    @jax.jit
    def inner(a):
        return jnp.cos(jnp.sin(a))

    @jax.jit
    def outer(x):
        return inner(x * 2.0) + x

    x = jnp.ones(5)
    assert framework_of(outer) == "jax"  # a jitted function needs no JAX inputs to be recognized
    view = read_back(tmp_path, outer, x)
    assert op_counts(view) == primitive_counts(jax.make_jaxpr(outer)(x))
    sin, cos = view.nodes["outer/inner/sin"], view.nodes["outer/inner/cos"]
    assert sin["inputs"] == [("outer/mul", 0)] and cos["inputs"] == [("outer/inner/sin", 0)]
    assert ("outer/inner/cos", 0) in view.nodes["outer/add"]["inputs"]
    assert ("input/x", 0) in view.nodes["outer/mul"]["inputs"]
    assert view.nodes["output/output0"]["inputs"] == [("outer/add", 0)]


def test_scan_cond_and_while_are_scopes_with_their_bodies(tmp_path):
    def fn(init, xs):
        def step(carry, x):
            return carry + jnp.sin(x), carry * 2.0

        carry, ys = jax.lax.scan(step, init, xs)
        picked = jax.lax.cond(carry.sum() > 0, lambda z: z + 1.0, lambda z: jnp.exp(z), carry)
        _, looped = jax.lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * c[1]), (0, picked))
        return looped, ys

    args = (jnp.ones(3), jnp.ones((5, 3)))
    view = read_back(tmp_path, fn, args)
    assert op_counts(view) == primitive_counts(jax.make_jaxpr(fn)(*args))
    scan = view.nodes["scan/scan"]
    assert scan["attrs"]["length"] == 5 and scan["attrs"]["_output_shapes"] == [[3], [5, 3]]
    assert set(scan["inputs"]) == {("scan/body/add", 0), ("scan/body/mul", 0)}
    assert ("input/xs", 0) in view.nodes["scan/body/sin"]["inputs"]
    assert ("input/init", 0) in view.nodes["scan/body/add"]["inputs"]
    cond = view.nodes["cond/cond"]
    assert cond["inputs"][0] == ("convert_element_type", 0)
    assert set(cond["inputs"][1:]) == {("cond/branch0/exp", 0), ("cond/branch1/add", 0)}
    assert ("scan/scan", 0) in view.nodes["cond/branch0/exp"]["inputs"]
    loop = view.nodes["while/while"]
    assert set(loop["inputs"]) == {("while/cond/lt", 0), ("while/body/add", 0), ("while/body/mul", 0)}
    assert view.nodes["while/body/mul"]["inputs"] == [("cond/cond", 0), ("cond/cond", 0)]
    assert view.nodes["output/output0"]["inputs"] == [("while/while", 1)]
    assert view.nodes["output/output1"]["inputs"] == [("scan/scan", 1)]


def test_two_conds_side_by_side_are_two_scopes(tmp_path):
    def fn(x, y):
        first = jax.lax.cond(x.sum() > 0, jnp.cos, jnp.sin, x)
        return first + jax.lax.cond(y.sum() > 0, jnp.exp, jnp.tanh, y)

    view = read_back(tmp_path, fn, (jnp.ones(3), jnp.ones(3)))
    # branch0 is the false branch (lax.cond's order)
    assert {n for n in view.nodes if n.startswith("cond/branch")} == {"cond/branch0/sin", "cond/branch1/cos"}
    assert {n for n in view.nodes if n.startswith("cond_1/branch")} == {"cond_1/branch0/tanh", "cond_1/branch1/exp"}
    assert ("input/y", 0) in view.nodes["cond_1/branch1/exp"]["inputs"]


def test_while_consts_feed_their_own_body(tmp_path):
    def fn(x, limit, scale):
        return jax.lax.while_loop(lambda c: c.sum() < limit, lambda c: c * scale, x)

    args = (jnp.ones(3), jnp.float32(100.0), jnp.float32(2.0))
    eqn = jax.make_jaxpr(fn)(*args).jaxpr.eqns[-1]
    assert (eqn.params["cond_nconsts"], eqn.params["body_nconsts"]) == (1, 1)
    view = read_back(tmp_path, fn, args)
    assert ("input/limit", 0) in view.nodes["while/cond/lt"]["inputs"]
    assert ("input/x", 0) in view.nodes["while/cond/reduce_sum"]["inputs"]
    assert set(view.nodes["while/body/mul"]["inputs"]) == {("input/x", 0), ("input/scale", 0)}


def test_custom_jvp_and_checkpoint_are_named_scopes(tmp_path):
    def fn(x):
        return jax.nn.relu(x) + jax.nn.softplus(x) + jax.checkpoint(jnp.tanh)(x)

    x = jnp.ones((2, 3))
    view = read_back(tmp_path, fn, x)
    assert op_counts(view) == primitive_counts(jax.make_jaxpr(fn)(x))
    assert view.nodes["relu/max"]["inputs"][0] == ("input/x", 0)
    assert any(n.startswith("softplus/logaddexp/") for n in view.nodes)
    assert view.nodes["checkpoint/tanh"]["inputs"] == [("input/x", 0)]
    assert not any(node["op"] in CALLS for node in view.nodes.values())


pytest.importorskip("flax.linen")
from flax_models import LinenMLP  # noqa: E402


def test_flax_linen_module_paths_are_scopes(tmp_path):
    model, x = LinenMLP(), jnp.ones((3, 4))
    variables = model.init(jax.random.key(0), x)
    counts = primitive_counts(jax.make_jaxpr(model.apply)(variables, x))
    assert framework_of(model.apply) == framework_of(model) == "jax"
    views = [read_back(tmp_path / "apply", model.apply, (variables, x)),
             read_back(tmp_path / "module", model, x)]  # variables from eval_shape(init)
    with FileWriter(str(tmp_path / "file_writer")) as writer:
        writer.add_graph(model, x, variables=variables)
    views.append(GraphView.from_upstream(upstream_read(tmp_path / "file_writer")["runs"]["."]["graph"]))
    for view in views:
        assert op_counts(view) == counts
        for layer, (fan_in, fan_out) in (("Dense_0", (4, 8)), ("Dense_1", (8, 2))):
            kernel = f"params/{layer}/kernel"
            assert view.nodes[kernel]["attrs"]["_output_shapes"] == [[fan_in, fan_out]]
            assert (kernel, 0) in view.nodes[f"LinenMLP/{layer}/dot_general"]["inputs"]
            assert view.nodes[f"LinenMLP/{layer}/dot_general"]["attrs"]["_output_shapes"] == [[3, fan_out]]
        assert view.nodes["LinenMLP/relu/max"]["inputs"][0] == ("LinenMLP/Dense_0/add", 0)
    assert ("input/arg1", 0) in views[0].nodes["LinenMLP/Dense_0/dot_general"]["inputs"]
    assert ("input/x", 0) in views[1].nodes["LinenMLP/Dense_0/dot_general"]["inputs"]


def test_flax_nnx_module_paths_are_scopes_and_classes_are_restored(tmp_path):
    nnx = pytest.importorskip("flax.nnx")

    class Net(nnx.Module):
        def __init__(self, rngs):
            self.encoder = nnx.Linear(4, 8, rngs=rngs)
            self.heads = nnx.List([nnx.Linear(8, 2, rngs=rngs), nnx.Linear(8, 1, rngs=rngs)])

        def __call__(self, x):
            hidden = nnx.relu(self.encoder(x))
            return [head(hidden) for head in self.heads]

    model, x = Net(nnx.Rngs(0)), jnp.ones((3, 4))
    calls = {cls: dict(vars(cls)).get("__call__") for cls in (Net, nnx.Linear, nnx.List)}
    view = read_back(tmp_path, model, x)
    assert {cls: dict(vars(cls)).get("__call__") for cls in calls} == calls
    assert ("state/encoder/kernel", 0) in view.nodes["Net/encoder/dot_general"]["inputs"]
    assert ("state/heads/1/kernel", 0) in view.nodes["Net/heads/1/dot_general"]["inputs"]
    assert view.nodes["Net/heads/1/dot_general"]["attrs"]["_output_shapes"] == [[3, 1]]
    assert ("input/x", 0) in view.nodes["Net/encoder/dot_general"]["inputs"]
    assert op_counts(view)["dot_general"] == 3


def test_bad_inputs_get_clear_errors():
    with pytest.raises(ValueError, match="input_to_model"):
        to_graph_def(jax.jit(jnp.sin))
    with pytest.raises(ValueError, match="input_to_model"):
        to_graph_def(LinenMLP())
    with pytest.raises(TypeError, match="variables= applies to flax.linen"):
        to_graph_def(jax.jit(jnp.sin), jnp.ones(2), variables={})
    # a plain function given no JAX values is not recognized: the error lists what is accepted
    assert framework_of(lambda a: a, (np.ones(2),)) is None
    with pytest.raises(TypeError, match="JAX function"):
        to_graph_def(lambda a: a, np.ones(2))
    with pytest.raises(TypeError, match="JAX function"):
        to_graph_def(object(), jnp.ones(2))
    # JAX's own errors (a non-array argument) surface unchanged
    with pytest.raises(TypeError):
        to_graph_def(jax.jit(jnp.sin), ("text",))


def test_detection_imports_no_framework():
    code = ("import sys; from tensorboard.graph import framework_of\n"
            "def f(x): return x\n"
            "assert framework_of(f, (1.0, [2.0], {'a': 3})) is None and framework_of(f) is None\n"
            "assert 'jax' not in sys.modules and 'flax' not in sys.modules, sorted(sys.modules)\n")
    env = {**os.environ, "PYTHONPATH": str(REPO / "python")}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_a_renamed_node_never_takes_the_name_of_a_scope(tmp_path):
    """Node "add" next to scope "add/add": the node moves inside "add", under a name that is no scope."""
    def fn(x):
        y = x + 1
        with jax.named_scope("add"), jax.named_scope("add"):
            return y * 2

    view = read_back(tmp_path, fn, (jnp.ones(3),))  # asserts that no node name is also a scope
    (add,) = op_nodes(view, "add")
    (mul,) = op_nodes(view, "mul")
    assert add.startswith("add/") and mul == "add/add/mul"
    assert view.nodes[mul]["inputs"][0][0] == add


def test_a_combiner_is_no_data_path_scatter_and_reduce_are_one_node(tmp_path):
    """scatter-add's `update_jaxpr` and a custom reducer are how the op combines, not a call on its
    operands: the op is one node fed by operand, indices and updates, the combiner's text an attribute."""
    def fn(a, i, u, m):
        scattered = a.at[i].add(u)
        reduced = jax.lax.reduce(m, 0.0, lambda p, q: jnp.maximum(p, q) * 1.0, (0,))
        pooled = jax.lax.reduce_window(m, 0.0, lambda p, q: p + q * 1.0, (2, 2), (1, 1), "VALID")
        return scattered, reduced, pooled

    args = (jnp.zeros(5), jnp.array([1, 3]), jnp.ones(2), jnp.ones((3, 4)))
    view = read_back(tmp_path, fn, args)
    assert op_counts(view) == primitive_counts(jax.make_jaxpr(fn)(*args))
    assert not any(node["op"] in ("max", "mul") for node in view.nodes.values())  # only in the combiners
    assert not any(name.startswith(("scatter-add/", "reduce/", "reduce_window/")) for name in view.nodes)
    (scatter,) = op_nodes(view, "scatter-add")
    inputs = [name for name, _ in view.nodes[scatter]["inputs"]]
    assert inputs[0] == "input/a" and inputs[2] == "input/u"
    assert view.nodes[inputs[1]]["attrs"]["_output_shapes"] == [[2, 1]]  # the indices
    assert "add" in view.nodes[scatter]["attrs"]["update_jaxpr"]
    (reduce,) = op_nodes(view, "reduce")
    assert view.nodes[reduce]["inputs"][0] == ("input/m", 0)
    assert view.nodes[reduce]["attrs"]["_output_shapes"] == [[4]]
    assert view.nodes["output/output1"]["inputs"] == [(reduce, 0)]
    (pool,) = op_nodes(view, "reduce_window")
    assert view.nodes[pool]["attrs"]["_output_shapes"] == [[2, 3]]
    assert view.nodes["output/output2"]["inputs"] == [(pool, 0)]


def test_custom_linear_solve_feeds_each_function_its_own_operands(tmp_path):
    def explicit(a, m, b):
        return jax.lax.custom_linear_solve(lambda x: a @ x, b, lambda f, y: m @ y, lambda f, y: m.T @ y)

    def dot_inputs(view, scope):
        (node,) = [n for n in op_nodes(view, "dot_general") if n.startswith(scope)]
        return {name for name, _ in view.nodes[node]["inputs"]}

    args = (jnp.eye(3) * 2.0, jnp.eye(3) * 0.5, jnp.ones(3))
    view = read_back(tmp_path / "explicit", explicit, args)
    assert op_counts(view) == primitive_counts(jax.make_jaxpr(explicit)(*args))
    assert dot_inputs(view, "custom_linear_solve/matvec/") == {"input/a", "input/b"}
    assert dot_inputs(view, "custom_linear_solve/solve/") == {"input/m", "input/b"}

    view = read_back(tmp_path / "solve", jnp.linalg.solve, args[1:])  # matvec closes over the matrix
    assert dot_inputs(view, "solve/custom_linear_solve/matvec/") == {"input/a", "input/b"}


def test_constants_without_an_int64_or_numpy_form_are_kept(tmp_path):
    """A closed-over PRNG key has no NumPy form; a uint64 mask beyond int64 is kept as its digits."""
    key = jax.random.key(0)
    view = read_back(tmp_path / "key", lambda a: a + jax.random.normal(key, a.shape), (jnp.ones((2, 2)),))
    (closed,) = [n for n in op_nodes(view, "Const") if view.nodes[n]["attrs"]["kind"] == "closed_over"]
    assert view.nodes[closed]["attrs"]["dtype"].startswith("key<")
    with jax.enable_x64(True):
        mask = np.uint64(2**64 - 1)
        view = read_back(tmp_path / "mask", lambda a: a & mask, (jnp.arange(3, dtype=jnp.uint64),))
    values = [view.nodes[n]["attrs"].get("value") for n in op_nodes(view, "Const")]
    assert str(2**64 - 1) in values


def test_static_argnums_pass_flags_and_sizes_as_python_values(tmp_path):
    import flax.linen as nn

    class Net(nn.Module):
        @nn.compact
        def __call__(self, x, train: bool):
            return nn.Dropout(0.5, deterministic=not train)(nn.Dense(4)(x))

    x = jnp.ones((2, 3))
    with pytest.raises(TypeError, match="static_argnums"):
        to_graph_def(Net(), (x, False))
    view = read_back(tmp_path / "linen", Net(), (x, False), static_argnums=1)
    assert op_nodes(view, "Input") == ["params/Dense_0/bias", "params/Dense_0/kernel", "input/x"]
    assert "rng_bit_generator" not in op_counts(view) and op_counts(view)["dot_general"] == 1

    scaled = jax.jit(lambda a, n: a * n, static_argnums=1)
    with pytest.raises(ValueError, match="static_argnums"):
        to_graph_def(scaled, (x, 3))
    view = read_back(tmp_path / "jit", scaled, (x, 3), static_argnums=(-1,))
    assert op_nodes(view, "Input") == ["input/a"]
    (mul,) = op_nodes(view, "mul")
    assert any(view.nodes[name]["attrs"].get("value") == 3 for name, _ in view.nodes[mul]["inputs"])
    with pytest.raises(ValueError, match="static_argnums"):
        to_graph_def(scaled, (x, 3), static_argnums=2)
