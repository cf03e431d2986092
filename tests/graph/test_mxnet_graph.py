"""MXNet Symbols and Gluon blocks -> add_graph, in the MXNet venv, read back with upstream's reader."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from graph_view import GraphView
from seeds.mxnet_venv import run_mxnet
from upstream import upstream_read

SCRIPT = Path(__file__).with_name("mxnet_graph_script.py")


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("mxnet_graphs")
    run_mxnet([str(SCRIPT), str(out)], cwd=out)
    return out, upstream_read(out)["runs"]


def mxnet_view(path: Path):
    nodes = json.loads(path.read_text())["nodes"]
    ops = {n["name"]: n["op"] for n in nodes}
    edges = {(nodes[e[0]]["name"], e[1], n["name"]) for n in nodes for e in n["inputs"]}
    return ops, edges


@pytest.mark.parametrize("run,reference", [("symbol", "symbol.json"), ("gluon", "gluon.json"),
                                           ("gluon_traced", "gluon_traced.json"),
                                           ("export", "exported-symbol.json")])
def test_graph_matches_mxnet_json(written, run, reference):
    out, runs = written
    view = GraphView.from_upstream(runs[run]["graph"])
    ops, edges = mxnet_view(out / reference)
    by_mxnet = {n["attrs"]["mxnet_name"]: n["op"] for n in view.nodes.values()}
    assert {k: v for k, v in by_mxnet.items() if ops[k] != "null"} == {k: v for k, v in ops.items() if v != "null"}
    assert {k for k, v in ops.items() if v == "null"} == {k for k, v in by_mxnet.items() if v in ("Parameter", "Input")}
    assert view.edges("mxnet_name") == edges
    assert view.dangling_inputs() == [] and view.scopes_clash() == []


def test_symbol_with_input_shapes_gets_every_output_shape(written):
    nodes = GraphView.from_upstream(written[1]["symbol"]["graph"]).nodes
    assert nodes["fc1/weight"]["attrs"]["_output_shapes"] == [[128, 784]]
    assert nodes["fc1/FullyConnected"]["attrs"]["_output_shapes"] == [[32, 128]]
    assert nodes["fc2/FullyConnected"]["attrs"]["num_hidden"] == 10
    assert nodes["softmax_label"]["op"] == "Input"


def test_hybridized_block_has_block_scopes_and_real_parameter_shapes(written):
    out, runs = written
    nodes = GraphView.from_upstream(runs["gluon"]["graph"]).nodes
    params = json.loads((out / "gluon_params.json").read_text())
    assert params["hybridsequential0_conv0_weight"] == [8, 1, 3, 3]
    for name, shape in params.items():
        matches = [n for n in nodes.values() if n["attrs"].get("mxnet_name") == name]
        assert len(matches) == 1 and matches[0]["attrs"]["_output_shapes"] == [shape], name
    assert nodes["hybridsequential0/conv0/weight"]["op"] == "Parameter"
    assert nodes["hybridsequential0/conv0/fwd"]["attrs"]["kernel"] == [3, 3]
    assert nodes["hybridsequential0/conv0/relu/fwd"]["op"] == "Activation"
    assert nodes["hybridsequential0/dense0/fwd"]["inputs"][0] == ("hybridsequential0/flatten0/flatten0", 0)
    assert nodes["hybridsequential0/batchnorm0/running_mean"]["op"] == "Parameter"


def test_traced_block_has_inferred_shapes(written):
    nodes = GraphView.from_upstream(written[1]["gluon_traced"]["graph"]).nodes
    dense = next(n for n in nodes.values() if n["op"] == "FullyConnected")
    assert dense["attrs"]["_output_shapes"] == [[4, 10]]
    conv = next(n for n in nodes.values() if n["op"] == "Convolution")
    assert conv["attrs"]["_output_shapes"] == [[4, 8, 26, 26]]


def test_block_never_run_gets_a_clear_error(written):
    message = (written[0] / "never_run_error.txt").read_text()
    assert "net.hybridize()" in message and "forward pass" in message
