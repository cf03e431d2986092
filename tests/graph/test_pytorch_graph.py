"""torch.nn.Module -> GraphDef, checked against torch.jit.trace's own graph and upstream's reader."""
from __future__ import annotations

from collections import Counter

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from graph_view import GraphView  # noqa: E402
from tensorboard.graph import framework_of, to_graph_def  # noqa: E402


class Residual(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return torch.relu(x + self.bn(self.conv(x)))


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(1, 4, 3)
        self.block = Residual(4)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 6 * 6, 16), nn.ReLU(), nn.Linear(16, 10))

    def forward(self, image, scale):
        features = self.block(self.stem(image))
        low, high = features.chunk(2, dim=1)
        return self.head(torch.cat([high, low], dim=1)) * scale


def example():
    torch.manual_seed(0)
    return Net(), (torch.randn(2, 1, 8, 8), torch.tensor(2.0))


def framework_view(model, inputs):
    """The trace's operators (by kind) and data edges, parameters named by their qualified names."""
    graph = torch.jit.trace(model.eval(), inputs, check_trace=False).inlined_graph
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


def our_view(view: GraphView):
    ops, edges = Counter(), Counter()

    def label(name):
        node = view.nodes[name]
        return {"Parameter": node["attrs"].get("torch_name"), "Buffer": node["attrs"].get("torch_name"),
                "Input": "input"}.get(node["op"], node["op"])

    for name, node in view.nodes.items():
        if node["op"] in ("Parameter", "Buffer", "Input", "Output"):
            continue
        ops[node["op"]] += 1
        for src, _ in node["inputs"]:
            edges[(label(src), node["op"])] += 1
    return ops, edges


def test_operators_and_edges_match_the_trace():
    model, inputs = example()
    view = GraphView.from_proto(to_graph_def(model, inputs))
    ops, edges = framework_view(*example())
    assert our_view(view) == (ops, edges)
    assert view.dangling_inputs() == []
    assert view.scopes_clash() == []


def test_names_follow_the_module_hierarchy_with_shapes_and_attributes():
    model, inputs = example()
    view = GraphView.from_proto(to_graph_def(model, inputs))
    nodes = view.nodes
    params = {n["attrs"]["torch_name"]: n for n in nodes.values() if n["op"] in ("Parameter", "Buffer")}
    # every parameter, and the buffers eval-mode batch norm reads (not num_batches_tracked)
    assert set(params) == {k for k, _ in model.named_parameters()} | {
        f"block.bn.{b}" for b in ("running_mean", "running_var")}
    for name, tensor in model.state_dict().items():
        if name in params:
            assert params[name]["attrs"]["_output_shapes"] == [list(tensor.shape)]
    assert nodes["block/conv/weight"]["op"] == "Parameter"
    assert nodes["block/bn/running_mean"]["op"] == "Buffer"
    conv = nodes["block/conv/_convolution"]
    assert conv["attrs"]["padding"] == [1, 1] and conv["attrs"]["stride"] == [1, 1]
    assert ("block/conv/weight", 0) in conv["inputs"]
    assert nodes["head/1/linear"]["attrs"]["_output_shapes"] == [[2, 16]]
    assert nodes["input/image"]["attrs"]["_output_shapes"] == [[2, 1, 8, 8]]
    assert nodes["output/output0"]["attrs"]["_output_shapes"] == [[2, 10]]
    assert nodes["chunk"]["attrs"]["chunks"] == 2


def test_tracing_leaves_the_model_untouched():
    model, inputs = example()
    model.train()
    before = {k: v.clone() for k, v in model.state_dict().items()}
    to_graph_def(model, inputs)
    assert model.training and model.block.bn.training
    for key, value in model.state_dict().items():
        assert torch.equal(value, before[key]), key


def test_missing_inputs_and_detection():
    model, _ = example()
    assert framework_of(model) == "pytorch"
    with pytest.raises(ValueError, match="input_to_model"):
        to_graph_def(model)


def test_summary_writer_add_graph_reads_back_upstream(tmp_path):
    from tensorboard import SummaryWriter
    from upstream import upstream_run

    model, inputs = example()
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_graph(model, inputs)
    view = GraphView.from_upstream(upstream_run(tmp_path)["graph"])
    assert our_view(view) == framework_view(*example())
