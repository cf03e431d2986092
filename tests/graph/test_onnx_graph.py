"""ONNX ModelProto / .onnx path -> GraphDef, checked against the ONNX graph itself."""
from __future__ import annotations

import pytest

onnx = pytest.importorskip("onnx")
from graph_view import GraphView  # noqa: E402
from onnx import TensorProto, helper  # noqa: E402

from tensorboard.graph import framework_of, to_graph_def  # noqa: E402


def handmade_model():
    """A small ONNX graph with a two-output Split, an omitted optional input and attributes."""
    weight = helper.make_tensor("fc.weight", TensorProto.FLOAT, [6, 4], [0.1] * 24)
    bias = helper.make_tensor("fc.bias", TensorProto.FLOAT, [6], [0.0] * 6)
    split = helper.make_tensor("split_sizes", TensorProto.INT64, [2], [3, 3])
    nodes = [
        helper.make_node("Gemm", ["x", "fc.weight", "fc.bias"], ["h"], name="/fc/Gemm", transB=1, alpha=1.0),
        helper.make_node("Relu", ["h"], ["r"], name="/act/Relu"),
        helper.make_node("Split", ["r", "split_sizes"], ["a", "b"], name="/split/Split", axis=1),
        helper.make_node("Add", ["a", "b"], ["s"]),  # no name: becomes Add_3
        helper.make_node("Clip", ["s", "", ""], ["y"], name="clip"),
    ]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])],
                              initializer=[weight, bias, split])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def onnx_edges(model):
    """(producer, output index, consumer) from the ONNX graph, nodes as our converter names them."""
    producer = {i.name: (i.name.replace(".", "/"), 0) for i in model.graph.initializer}
    # ":" separates the output index in GraphDef inputs, so names lose it ("onnx::Gemm_0")
    producer.update({i.name: (f"input/{i.name}".replace(":", "_"), 0) for i in model.graph.input})
    names = []
    for index, node in enumerate(model.graph.node):
        name = node.name.strip("/") or f"{node.op_type}_{index}"
        names.append(name)
        for k, out in enumerate(node.output):
            producer[out] = (name, k)
    edges = {(*producer[v], names[i]) for i, node in enumerate(model.graph.node) for v in node.input if v}
    edges |= {(*producer[o.name], f"output/{o.name}") for o in model.graph.output}
    return names, edges


def test_nodes_edges_attributes_and_shapes(tmp_path):
    model = handmade_model()
    path = tmp_path / "net.onnx"
    onnx.save(model, str(path))
    assert framework_of(str(path)) == "onnx"
    for source in (model, str(path)):
        view = GraphView.from_proto(to_graph_def(source))
        names, edges = onnx_edges(model)
        assert {n: view.nodes[n]["op"] for n in names} == {n: m.op_type for n, m in zip(names, model.graph.node)}
        assert view.edges() == edges
        assert view.nodes["fc/weight"]["op"] == "Parameter"
        assert view.nodes["fc/weight"]["attrs"]["_output_shapes"] == [[6, 4]]
        gemm = view.nodes["fc/Gemm"]["attrs"]
        assert gemm["transB"] == 1 and gemm["alpha"] == 1.0
        assert view.nodes["split/Split"]["attrs"]["axis"] == 1
        assert view.nodes["split/Split"]["attrs"]["_output_shapes"] == [[-1, 3], [-1, 3]]
        assert view.nodes["Add_3"]["inputs"] == [("split/Split", 0), ("split/Split", 1)]
        assert view.dangling_inputs() == [] and view.scopes_clash() == []


def test_torch_onnx_export_keeps_module_scopes(tmp_path):
    torch = pytest.importorskip("torch")
    import io
    import warnings

    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.zeros(1, 4),), buffer, dynamo=False)
    proto = onnx.load_from_string(buffer.getvalue())
    view = GraphView.from_proto(to_graph_def(proto))
    names, edges = onnx_edges(proto)
    assert view.edges() == edges
    assert {"0/Gemm", "1/Relu", "2/Gemm", "0/weight", "2/bias"} <= set(view.nodes)
    assert view.nodes["2/Gemm"]["attrs"]["_output_shapes"] == [[1, 2]]


def test_written_onnx_graph_reads_back_upstream(tmp_path):
    from upstream import upstream_run

    from tensorboard import SummaryWriter

    model = handmade_model()
    with SummaryWriter(str(tmp_path)) as writer:
        writer.add_graph(model)
    view = GraphView.from_upstream(upstream_run(tmp_path)["graph"])
    assert view.edges() == onnx_edges(model)[1]
