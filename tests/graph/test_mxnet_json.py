"""MXNet symbol JSON -> GraphDef, without MXNet: exported files from MXNet 1.9.1 (tests/graph/data)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from graph_view import GraphView

from tensorboard.graph import framework_of, to_graph_def
from tensorboard.graph.mxnet import symbol_json_to_graph_def

DATA = Path(__file__).parent / "data"
MLP = DATA / "seed002_mlp-symbol.json"
CONVNET = DATA / "gluon_convnet-symbol.json"


def mxnet_view(path: Path) -> tuple[dict[str, str], set[tuple]]:
    """MXNet's own view of a symbol file: node name -> op, and (src, output, dst) edges."""
    nodes = json.loads(path.read_text())["nodes"]
    ops = {n["name"]: n["op"] for n in nodes}
    edges = {(nodes[e[0]]["name"], e[1], n["name"]) for n in nodes for e in n["inputs"]}
    return ops, edges


@pytest.mark.parametrize("path", [MLP, CONVNET], ids=["symbol", "gluon-export"])
def test_every_operator_and_edge_of_the_symbol_is_in_the_graph(path):
    view = GraphView.from_proto(to_graph_def(str(path)))
    ops, edges = mxnet_view(path)
    by_mxnet = {n["attrs"]["mxnet_name"]: n["op"] for n in view.nodes.values()}
    assert set(by_mxnet) == set(ops)
    assert {k: v for k, v in by_mxnet.items() if ops[k] != "null"} == {k: v for k, v in ops.items() if v != "null"}
    assert {by_mxnet[k] for k, v in ops.items() if v == "null"} <= {"Parameter", "Input"}
    assert view.edges("mxnet_name") == edges
    assert view.dangling_inputs() == []
    assert view.scopes_clash() == []


def test_seed002_mlp_is_scoped_by_layer_with_typed_attributes():
    view = GraphView.from_proto(to_graph_def(MLP))
    nodes = view.nodes
    for layer, hidden in (("fc1", 128), ("fc2", 64), ("fc3", 10)):
        assert nodes[f"{layer}/weight"]["op"] == "Parameter"
        assert nodes[f"{layer}/bias"]["op"] == "Parameter"
        fc = nodes[f"{layer}/FullyConnected"]
        assert fc["op"] == "FullyConnected"
        assert fc["attrs"]["num_hidden"] == hidden
        assert [src for src, _ in fc["inputs"]][1:] == [f"{layer}/weight", f"{layer}/bias"]
    assert nodes["data"]["op"] == "Input"
    assert nodes["softmax_label"]["op"] == "Input"
    assert nodes["relu1"]["attrs"]["act_type"] == "relu"
    assert nodes["softmax"]["inputs"] == [("fc3/FullyConnected", 0), ("softmax_label", 0)]


def test_gluon_export_gets_block_scopes_and_parameter_shapes():
    view = GraphView.from_proto(to_graph_def(CONVNET))
    nodes = view.nodes
    conv = nodes["hybridsequential0/conv0/fwd"]
    assert conv["op"] == "Convolution"
    assert conv["attrs"]["kernel"] == [3, 3] and conv["attrs"]["num_filter"] == 8
    assert nodes["hybridsequential0/conv0/relu_fwd"]["inputs"] == [("hybridsequential0/conv0/fwd", 0)]
    # __shape__ "(8, 0, 3, 3)": 0 is MXNet's "unknown" and becomes -1
    assert nodes["hybridsequential0/conv0/weight"]["attrs"]["_output_shapes"] == [[8, -1, 3, 3]]
    assert nodes["hybridsequential0/dense1/bias"]["attrs"]["_output_shapes"] == [[10]]
    assert nodes["hybridsequential0/batchnorm0/fwd"]["attrs"]["fix_gamma"] is False


def test_json_text_dict_and_path_agree():
    text = CONVNET.read_text()
    from_path = to_graph_def(CONVNET)
    assert to_graph_def(text) == from_path
    assert symbol_json_to_graph_def(json.loads(text)) == from_path
    assert framework_of(str(CONVNET)) == "mxnet"


def test_legacy_param_key_and_missing_attrs():
    legacy = {"nodes": [{"op": "null", "name": "data", "inputs": []},
                        {"op": "null", "name": "fc_weight", "param": {}, "inputs": []},
                        {"op": "FullyConnected", "name": "fc", "param": {"num_hidden": "4", "no_bias": "True"},
                         "inputs": [[0, 0], [1, 0]]},
                        {"op": "relu", "name": "act", "inputs": [[2, 0, 0]]}],
              "arg_nodes": [0, 1], "heads": [[3, 0]]}
    view = GraphView.from_proto(symbol_json_to_graph_def(legacy))
    assert view.nodes["fc/FullyConnected"]["attrs"]["num_hidden"] == 4
    assert view.nodes["fc/FullyConnected"]["attrs"]["no_bias"] is True
    assert view.nodes["act"]["inputs"] == [("fc/FullyConnected", 0)]


def test_unknown_models_get_a_clear_error():
    with pytest.raises(TypeError, match="add_graph cannot convert"):
        to_graph_def(object())


def test_written_graph_reads_back_upstream(tmp_path):
    from upstream import upstream_run

    from tensorboard import FileWriter

    with FileWriter(str(tmp_path)) as writer:
        writer.add_graph(str(MLP))
    graph = upstream_run(tmp_path)["graph"]
    view = GraphView.from_upstream(graph)
    assert view.edges("mxnet_name") == mxnet_view(MLP)[1]
    assert view.nodes["fc1/FullyConnected"]["attrs"]["num_hidden"] == 128


def test_dispatch_imports_no_framework():
    """Converting a GraphDef or an exported symbol JSON loads neither MXNet, torch nor ONNX."""
    import subprocess
    import sys

    code = ("import sys; sys.path.insert(0, sys.argv[1]); from tensorboard.graph import to_graph_def; "
            "to_graph_def(sys.argv[2]); to_graph_def(to_graph_def(sys.argv[2]).SerializeToString()); "
            "print(sorted(m for m in ('mxnet', 'torch', 'onnx', 'jax') if m in sys.modules))")
    python_dir = str(Path(__file__).resolve().parents[2] / "python")
    out = subprocess.run([sys.executable, "-c", code, python_dir, str(MLP)], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
