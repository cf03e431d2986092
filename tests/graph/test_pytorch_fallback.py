"""torch.nn.Module -> GraphDef when torch.export refuses the model: torch.fx.symbolic_trace, then
torch.jit.trace, each checked against that tracer's own graph; strict keeps jit's rule."""
from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

from graph_view import GraphView  # noqa: E402
from torch_models import Branchy, DictOut, Packet, PacketNet  # noqa: E402
from torch_views import fx_view, jit_view, our_view  # noqa: E402

from tensorboard.graph import to_graph_def  # noqa: E402


def _convert(model, inputs, **kwargs):
    """Converts and returns (graph, warnings raised), failing on any deprecation notice."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        graph = to_graph_def(model, inputs, **kwargs)
    assert not [w for w in caught if issubclass(w.category, (DeprecationWarning, FutureWarning))]
    return graph, caught


def _fallback_notes(caught):
    return [str(w.message) for w in caught if w.category is UserWarning]


def test_plain_object_inputs_fall_back_to_fx():
    torch.manual_seed(0)
    model, inputs = PacketNet(), (Packet(torch.randn(2, 3)),)
    graph, caught = _convert(model, inputs)
    notes = _fallback_notes(caught)
    assert len(notes) == 1 and "torch.export could not take PacketNet" in notes[0]
    assert notes[0].endswith("its graph comes from torch.fx.symbolic_trace")
    view = GraphView.from_proto(graph)
    assert our_view(view, short=True) == fx_view(model, inputs)
    assert view.dangling_inputs() == [] and view.scopes_clash() == []
    linear = view.nodes["body/0/Linear"]
    assert linear["attrs"]["module_type"] == "torch.nn.modules.linear.Linear"
    assert linear["attrs"]["_output_shapes"] == [[2, 4]]  # from running the example inputs
    assert ("body/0/weight", 0) in linear["inputs"]
    assert view.nodes["chunk"]["attrs"]["_output_shapes"] == [[2, 2], [2, 2]]
    assert view.nodes["cat"]["inputs"] == [("chunk", 1), ("chunk", 0)]
    assert view.nodes["output/output0"]["attrs"]["_output_shapes"] == [[2, 4]]


def test_branches_on_tensor_values_fall_back_to_jit_trace(tmp_path):
    from upstream import upstream_run

    from tensorboard import SummaryWriter

    torch.manual_seed(0)
    model, inputs = Branchy(), (torch.ones(2, 3),)
    with SummaryWriter(str(tmp_path)) as writer, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.add_graph(model, inputs)
    assert not [w for w in caught if issubclass(w.category, (DeprecationWarning, FutureWarning))]
    notes = _fallback_notes(caught)
    assert len(notes) == 1 and notes[0].endswith("its graph comes from torch.jit.trace")
    assert any(w.category is torch.jit.TracerWarning for w in caught)  # the user learns what was frozen
    view = GraphView.from_upstream(upstream_run(tmp_path)["graph"])
    assert our_view(view) == jit_view(model, inputs)
    assert view.nodes["fc/linear"]["inputs"][1:] == [("fc/weight", 0), ("fc/bias", 0)]


def test_a_script_module_is_read_as_it_is():
    torch.manual_seed(0)
    model, inputs = Branchy(), (torch.ones(2, 3),)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(model.eval(), inputs, check_trace=False)
    graph, caught = _convert(traced, None)
    assert caught == []
    assert our_view(GraphView.from_proto(graph)) == jit_view(model, inputs)


def test_strict_holds_on_the_fallback_paths():
    class PacketDict(PacketNet):
        def forward(self, packet):
            return {"y": super().forward(packet)}

    class BranchyDict(Branchy):
        def forward(self, x):
            return {"y": super().forward(x)}

    with pytest.raises(RuntimeError, match="strict tracing refuses a model returning a dict"):
        _convert(PacketDict(), Packet(torch.randn(2, 3)), strict=True)
    with pytest.raises(RuntimeError, match="torch.jit.trace: RuntimeError: Encountering a dict .*strict=False"):
        _convert(BranchyDict(), torch.ones(2, 3), strict=True)
    for model, inputs in ((PacketDict(), Packet(torch.randn(2, 3))), (BranchyDict(), torch.ones(2, 3))):
        graph, _ = _convert(model, inputs, strict=False)
        assert "output/output0" in GraphView.from_proto(graph).nodes


def test_when_every_tracer_fails_the_error_names_each():
    model = DictOut()
    with pytest.raises(RuntimeError, match="cannot trace DictOut.*torch.export: .*torch.fx.symbolic_trace: "
                                           ".*torch.jit.trace: "):
        _convert(model, torch.zeros(2, 5))  # 5 features for a Linear(3, 2)


def test_an_item_of_a_nested_output_is_wired_to_that_item():
    """`out, (h, c) = lstm(x)` on the fx path: h and c are the items of LSTM's second output, not its first."""
    class Config:  # not a pytree: torch.export refuses it, torch.fx takes over
        scale = 2.0

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(3, 4, batch_first=True)
            self.fc_out, self.fc_h, self.fc_c = torch.nn.Linear(4, 1), torch.nn.Linear(4, 5), torch.nn.Linear(4, 6)

        def forward(self, x, config):
            out, (h, c) = self.lstm(x * config.scale)
            return self.fc_out(out), self.fc_h(h), self.fc_c(c)

    torch.manual_seed(0)
    model, inputs = Net(), (torch.ones(2, 7, 3), Config())
    graph, caught = _convert(model, inputs)
    assert _fallback_notes(caught)[0].endswith("its graph comes from torch.fx.symbolic_trace")
    view = GraphView.from_proto(graph)
    assert our_view(view, short=True) == fx_view(model, inputs)
    assert view.nodes["fc_out/Linear"]["inputs"][0] == ("lstm/LSTM", 0)
    (pair,) = [name for name, node in view.nodes.items() if node["inputs"][:1] == [("lstm/LSTM", 1)]]
    assert view.nodes[pair]["attrs"]["_output_shapes"] == [[1, 2, 4], [1, 2, 4]]
    assert view.nodes["fc_h/Linear"]["inputs"][0] == (pair, 0)
    assert view.nodes["fc_c/Linear"]["inputs"][0] == (pair, 1)


def test_script_control_flow_blocks_are_scopes_fed_by_their_values(tmp_path):
    """A scripted If / Loop: the ops of each block are drawn under If/block<i> and Loop/block0, wired
    to the values they read; non-tensor arguments (an int, a tuple) get their type as dtype."""
    from upstream import upstream_run

    from tensorboard import SummaryWriter

    class Branches(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(2, 2)

        def forward(self, x, y, n: int, pair: tuple[torch.Tensor, torch.Tensor]):
            if bool(x.sum() > 0):
                z = self.fc(y) - x
            else:
                z = x - y
            for _ in range(n):
                z = z * pair[0]
            return z

    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_graph(torch.jit.script(Branches()))
    view = GraphView.from_upstream(upstream_run(tmp_path)["graph"])
    assert view.dangling_inputs() == [] and view.scopes_clash() == []
    assert view.nodes["input/n"]["attrs"]["dtype"] == "int"
    assert view.nodes["input/pair"]["attrs"]["dtype"].startswith("Tuple[Tensor, Tensor]")
    assert view.nodes["If/block0/linear"]["inputs"] == [("input/y", 0), ("fc/weight", 0), ("fc/bias", 0)]
    assert view.nodes["If/block0/sub"]["inputs"] == [("If/block0/linear", 0), ("input/x", 0)]
    assert view.nodes["If/block1/sub"]["inputs"] == [("input/x", 0), ("input/y", 0)]
    assert set(view.nodes["If/If"]["inputs"][1:]) == {("If/block0/sub", 0), ("If/block1/sub", 0)}
    (mul,) = [name for name in view.nodes if name.startswith("Loop/block0/") and view.nodes[name]["op"] == "aten::mul"]
    assert view.nodes[mul]["inputs"][0] == ("If/If", 0)  # the loop body reads the loop's initial value
    assert (("input/n", 0) in view.nodes["Loop/Loop"]["inputs"]
            and ("Loop/Loop", 0) in view.nodes["output/output0"]["inputs"])


def test_tuple_inputs_reach_the_jit_trace_fallback():
    class TupleIn(torch.nn.Module):
        def forward(self, pair, k):
            if k.sum() > -1:  # a branch on a value: export and fx refuse, jit.trace takes it
                return pair[1] - pair[0] * k
            return k

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = to_graph_def(TupleIn(), ((torch.ones(2), torch.zeros(2)), torch.ones(2)))
    view = GraphView.from_proto(graph)
    assert view.dangling_inputs() == []
    assert view.nodes["input/pair"]["attrs"]["dtype"].startswith("Tuple")
    assert ("input/k", 0) in view.nodes["mul"]["inputs"]


def test_two_conditionals_are_two_scopes():
    class TwoIfs(torch.nn.Module):
        def forward(self, x, flag: bool):
            y = torch.relu(x) if flag else torch.sigmoid(x)
            return torch.tanh(y) if bool(y.sum() > 0) else torch.exp(y)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        view = GraphView.from_proto(to_graph_def(torch.jit.script(TwoIfs())))
    assert view.dangling_inputs() == [] and view.scopes_clash() == []
    assert {name for name in view.nodes if name.startswith("If/block")} == {"If/block0/relu", "If/block1/sigmoid"}
    assert {name for name in view.nodes if name.startswith("If_1/block")} == {"If_1/block0/tanh", "If_1/block1/exp"}
    assert set(view.nodes["If_1/If"]["inputs"][1:]) == {("If_1/block0/tanh", 0), ("If_1/block1/exp", 0)}
