"""Our protos and upstream's live in one process, in either import order, and cross over.

Our generated modules register in a descriptor pool of their own (tensorboard/src/pool.py);
upstream's `tensorboard.compat.proto` and plugin protos (served from the copy inside the wheel)
use protobuf's default pool with the same full names.
"""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from upstream import REPO, upstream_run

import tensorboard
from tensorboard import summary
from tensorboard.src import event_pb2, graph_pb2, summary_pb2
from tensorboard.src.pool import as_ours, is_message

OURS = ["event_pb2", "graph_pb2", "hparams_pb2", "layout_pb2", "mesh_pb2", "plugin_data_pb2",
        "projector_config_pb2", "resource_handle_pb2", "summary_pb2", "tensor_pb2", "tensor_shape_pb2", "types_pb2"]
UPSTREAM_PLUGIN_PROTOS = [
    "tensorboard.plugins.text.plugin_data_pb2", "tensorboard.plugins.custom_scalar.layout_pb2",
    "tensorboard.plugins.hparams.plugin_data_pb2", "tensorboard.plugins.hparams.api_pb2",
    "tensorboard.plugins.mesh.plugin_data_pb2", "tensorboard.plugins.projector.projector_config_pb2",
    "tensorboard.plugins.pr_curve.plugin_data_pb2", "tensorboard.plugins.scalar.plugin_data_pb2",
]


def _import_in_order(first: str) -> subprocess.CompletedProcess:
    """Imports every proto module of both sets in a fresh interpreter, `first` ("ours"/"upstream") first."""
    script = textwrap.dedent(f"""
        import importlib, pkgutil
        import tensorboard.compat.proto as compat
        ours = [importlib.import_module("tensorboard.src." + m) for m in {OURS!r}]
        def upstream():
            names = ["tensorboard.compat.proto." + m.name for m in pkgutil.iter_modules(compat.__path__)
                     if m.name.endswith("_pb2")] + {UPSTREAM_PLUGIN_PROTOS!r}
            return [importlib.import_module(n) for n in names]
        if {first!r} == "ours":
            loaded = ours + upstream()
        else:
            loaded = upstream() + ours
        from tensorboard.compat.proto import summary_pb2 as theirs
        from tensorboard.src import summary_pb2 as mine
        assert theirs.Summary is not mine.Summary
        assert theirs.Summary.DESCRIPTOR.full_name == mine.Summary.DESCRIPTOR.full_name == "tensorboard.Summary"
        print(len(loaded))
    """)
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO / "python")})


@pytest.mark.parametrize("first", ["ours", "upstream"])
def test_both_proto_sets_import_in_either_order(first):
    result = _import_in_order(first)
    assert result.returncode == 0, result.stderr[-3000:]
    # upstream ships 35 compat protos
    assert int(result.stdout.split()[-1]) >= len(OURS) + 35 + len(UPSTREAM_PLUGIN_PROTOS)


def test_the_wire_format_is_the_same_for_both_classes():
    from tensorboard.compat.proto import summary_pb2 as upstream_summary_pb2

    ours = summary.histogram("h", np.arange(100.0))
    theirs = upstream_summary_pb2.Summary.FromString(ours.SerializeToString())
    assert theirs.SerializeToString(deterministic=True) == ours.SerializeToString(deterministic=True)
    assert theirs.value[0].histo.num == 100


def test_is_message_and_as_ours_cross_the_pools():
    from tensorboard.compat.proto import event_pb2 as upstream_event_pb2

    theirs = upstream_event_pb2.Event(step=7, file_version="brain.Event:2")
    assert is_message(theirs, event_pb2.Event) and not is_message(theirs, summary_pb2.Summary)
    assert not is_message(b"bytes", event_pb2.Event)
    converted = as_ours(theirs, event_pb2.Event)
    assert isinstance(converted, event_pb2.Event) and converted.step == 7
    mine = event_pb2.Event(step=1)
    assert as_ours(mine, event_pb2.Event) is mine


def test_our_writer_takes_upstreams_protos(tmp_path):
    from tensorboard.compat.proto import event_pb2 as up_event_pb2
    from tensorboard.compat.proto import graph_pb2 as up_graph_pb2
    from tensorboard.compat.proto import node_def_pb2 as up_node_def_pb2
    from tensorboard.compat.proto import summary_pb2 as up_summary_pb2
    from tensorboard.plugins.custom_scalar import layout_pb2 as up_layout_pb2

    summary_value = up_summary_pb2.Summary.Value(tag="upstream/summary", simple_value=2.5)
    event_value = up_summary_pb2.Summary.Value(tag="upstream/event", simple_value=4.0)
    graph = up_graph_pb2.GraphDef(node=[up_node_def_pb2.NodeDef(name="x", op="Placeholder"),
                                        up_node_def_pb2.NodeDef(name="y", op="Relu", input=["x"])])
    layout = up_layout_pb2.Layout(category=[up_layout_pb2.Category(title="c", chart=[
        up_layout_pb2.Chart(title="t", multiline=up_layout_pb2.MultilineChartContent(tag=["upstream/.*"]))])])
    with tensorboard.SummaryWriter(tmp_path) as writer:
        writer.file_writer.add_summary(up_summary_pb2.Summary(value=[summary_value]), global_step=3)
        writer.file_writer.add_event(up_event_pb2.Event(step=5, wall_time=1.0,
                                                        summary=up_summary_pb2.Summary(value=[event_value])))
        writer.file_writer.add_graph(graph)
        writer.add_custom_scalars(layout)
    run = upstream_run(tmp_path)
    assert run["scalars"]["upstream/summary"][0][0] == 3
    assert run["scalars"]["upstream/event"][0][0] == 5
    assert {n["name"] for n in run["graph"]["node"]} == {"x", "y"}
    assert "custom_scalars__config__" in run["tensors"]


def test_upstreams_event_file_writer_takes_our_events(tmp_path):
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    writer = EventFileWriter(str(tmp_path))
    writer.add_event(event_pb2.Event(step=9, wall_time=2.0, summary=summary.scalar("ours/event", 1.5)))
    writer.close()
    assert upstream_run(tmp_path)["scalars"]["ours/event"][0][0] == 9


def test_graph_converter_accepts_upstreams_graph_def():
    from tensorboard.compat.proto import graph_pb2 as up_graph_pb2
    from tensorboard.graph import framework_of, to_graph_def

    theirs = up_graph_pb2.GraphDef()
    theirs.node.add(name="a", op="Const")
    assert framework_of(theirs) == "graphdef"
    ours = to_graph_def(theirs)
    assert isinstance(ours, graph_pb2.GraphDef) and ours.node[0].name == "a"
