"""torch.nn.Module -> GraphDef on the default path (torch.export), checked against the exported
program's own graph and upstream's reader, with every warning an error."""
from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

from graph_view import GraphView  # noqa: E402
from torch_models import Guarded, Net, default_path_models  # noqa: E402
from torch_views import exported_view, our_view  # noqa: E402

from tensorboard.graph import framework_of, to_graph_def  # noqa: E402

MODELS = sorted(default_path_models())


def _convert_without_warnings(model, inputs, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DeprecationWarning/FutureWarning (nor any other) on the default path
        return to_graph_def(model, inputs, **kwargs)


@pytest.mark.parametrize("name", MODELS)
def test_operators_and_edges_match_the_exported_program(name):
    model, inputs = default_path_models()[name]
    view = GraphView.from_proto(_convert_without_warnings(model, inputs))
    assert our_view(view) == exported_view(model, inputs)
    assert view.dangling_inputs() == []
    assert view.scopes_clash() == []
    outputs = [n for n in view.nodes if n.startswith("output/")]
    with torch.no_grad():
        expected = torch.utils._pytree.tree_leaves(model.eval()(*inputs))
    assert len(outputs) == len(expected)
    for index, tensor in enumerate(expected):
        assert view.nodes[f"output/output{index}"]["attrs"]["_output_shapes"] == [list(tensor.shape)]


def test_add_graph_reads_back_upstream_without_warnings(tmp_path):
    from upstream import upstream_read

    from tensorboard import SummaryWriter

    models = default_path_models()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name, (model, inputs) in models.items():
            with SummaryWriter(str(tmp_path / name)) as writer:
                writer.add_graph(model, inputs)
    runs = upstream_read(tmp_path)["runs"]
    assert sorted(runs) == sorted(models)
    for name, (model, inputs) in models.items():
        assert our_view(GraphView.from_upstream(runs[name]["graph"])) == exported_view(model, inputs), name


def test_names_follow_the_module_hierarchy_with_shapes_and_attributes():
    torch.manual_seed(0)
    model, inputs = Net(), (torch.randn(2, 1, 8, 8), torch.tensor(2.0))
    nodes = GraphView.from_proto(_convert_without_warnings(model, inputs)).nodes
    params = {n["attrs"]["torch_name"]: n for n in nodes.values() if n["op"] in ("Parameter", "Buffer")}
    # every parameter, and the buffers eval-mode batch norm reads (not num_batches_tracked)
    assert set(params) == {k for k, _ in model.named_parameters()} | {
        f"block.bn.{b}" for b in ("running_mean", "running_var")}
    for name, tensor in model.state_dict().items():
        if name in params:
            assert params[name]["attrs"]["_output_shapes"] == [list(tensor.shape)]
            assert params[name]["attrs"]["dtype"] == str(tensor.dtype)
    assert nodes["block/conv/weight"]["op"] == "Parameter"
    assert nodes["block/conv/weight"]["attrs"]["requires_grad"] is True
    assert nodes["block/bn/running_mean"]["op"] == "Buffer"
    conv = nodes["block/conv/conv2d"]
    assert conv["op"] == "aten::conv2d"
    assert conv["attrs"]["padding"] == [1, 1] and conv["attrs"]["stride"] == [1, 1]
    assert conv["inputs"] == [("stem/conv2d", 0), ("block/conv/weight", 0), ("block/conv/bias", 0)]
    assert nodes["block/bn/batch_norm"]["attrs"]["training"] is False
    assert nodes["block/add"]["attrs"]["overload"] == "Tensor"
    assert nodes["head/1/linear"]["attrs"]["_output_shapes"] == [[2, 16]]
    assert nodes["head/1/linear"]["attrs"]["output_dtypes"] == ["torch.float32"]
    assert nodes["input/image"]["attrs"]["_output_shapes"] == [[2, 1, 8, 8]]
    assert nodes["output/output0"]["attrs"]["_output_shapes"] == [[2, 10]]
    chunk = nodes["chunk"]
    assert chunk["attrs"]["chunks"] == 2 and chunk["attrs"]["_output_shapes"] == [[2, 2, 6, 6]] * 2
    assert nodes["cat"]["inputs"] == [("chunk", 1), ("chunk", 0)]  # getitem is an output index, not a node


def test_a_module_called_twice_gets_two_nodes_reading_the_same_weights():
    model, inputs = default_path_models()["twice"]
    nodes = GraphView.from_proto(_convert_without_warnings(model, inputs)).nodes
    first, second = nodes["fc/linear"], nodes["fc/linear_1"]
    assert first["inputs"] == [("input/x", 0), ("fc/weight", 0), ("fc/bias", 0)]
    assert second["inputs"] == [("tanh", 0), ("fc/weight", 0), ("fc/bias", 0)]
    assert [n for n in nodes if n.endswith("weight")] == ["fc/weight"]


def test_tracing_leaves_the_model_untouched():
    model, inputs = default_path_models()["cnn"]
    model.train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    _convert_without_warnings(model, inputs)
    assert model.training and model.block.bn.training
    for key, value in model.state_dict().items():
        assert torch.equal(value, before[key]), key


def test_missing_inputs_and_detection():
    model, _ = default_path_models()["cnn"]
    assert framework_of(model) == "pytorch"
    with pytest.raises(ValueError, match="input_to_model"):
        to_graph_def(model)
    with pytest.raises(TypeError, match="torch.nn.Module"):
        from tensorboard.graph import pytorch

        pytorch.graph_def(torch.zeros(2), torch.zeros(2))


def test_strict_refuses_dict_outputs_as_jit_trace_does():
    from tensorboard.graph.pytorch import StrictTraceError

    model, inputs = default_path_models()["dict_out"]
    with pytest.raises(StrictTraceError, match="strict tracing refuses a model returning a dict"):
        to_graph_def(model, inputs, strict=True)

    class Nested(torch.nn.Module):
        def forward(self, x):
            return x, [x * 2, {"half": x / 2}]

    with pytest.raises(RuntimeError, match="strict tracing refuses a model returning a dict"):
        to_graph_def(Nested(), torch.zeros(2), strict=True)
    assert len([n for n in GraphView.from_proto(to_graph_def(Nested(), torch.zeros(2))).nodes
                if n.startswith("output/")]) == 3
    for name in ("tuple_out", "mlp"):  # tuples (and lists, which jit's strict mode takes) pass
        model, inputs = default_path_models()[name]
        strict_view = GraphView.from_proto(_convert_without_warnings(model, inputs, strict=True))
        assert our_view(strict_view) == exported_view(model, inputs)


def test_higher_order_operators_are_nodes_and_constants_are_labelled():
    torch.manual_seed(0)
    model, inputs = Guarded(), (torch.ones(2, 3),)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        warnings.simplefilter("error", FutureWarning)
        view = GraphView.from_proto(to_graph_def(model, inputs))
    assert our_view(view) == exported_view(model, inputs)
    nodes = view.nodes
    assert nodes["cond"]["op"] == "higher_order::cond"
    assert nodes["cond"]["inputs"] == [("gt", 0), ("wrap_with_set_grad_enabled", 0), ("offset", 0)]
    assert nodes["wrap_with_set_grad_enabled"]["attrs"]["arg0"] is True
    assert (nodes["scale"]["op"], nodes["offset"]["op"]) == ("Buffer", "Constant")
    assert nodes["output/output0"]["attrs"]["_output_shapes"] == [[2, 3]]


class _TwoArguments(torch.nn.Module):
    def forward(self, a, b):
        return a * 2 - b


def test_one_tensor_passed_for_two_arguments_feeds_both_inputs(tmp_path):
    """torch.export makes a tensor passed twice one graph input; each argument keeps its own edges."""
    from upstream import upstream_read

    from tensorboard import SummaryWriter

    x = torch.randn(2, 4)
    models = {"two": (_TwoArguments(), (x, x)), "mha": (torch.nn.MultiheadAttention(8, 2), (x.new_ones(3, 1, 8),) * 3)}
    for run, (model, inputs) in models.items():
        with SummaryWriter(str(tmp_path / run)) as writer:
            writer.add_graph(model, inputs)
    runs = upstream_read(tmp_path)["runs"]
    for run, expected in (("two", ["input/a", "input/b"]), ("mha", ["input/query", "input/key", "input/value"])):
        view = GraphView.from_upstream(runs[run]["graph"])
        consumers = {src for node in view.nodes.values() for src, _ in node["inputs"]}
        assert [name for name in view.nodes if name.startswith("input/")] == expected
        assert [name for name in expected if name not in consumers] == [], run
    view = GraphView.from_upstream(runs["two"]["graph"])
    assert view.nodes["mul"]["inputs"][0][0] == "input/a"
    assert [src for src, _ in view.nodes["sub"]["inputs"]] == ["mul", "input/b"]
