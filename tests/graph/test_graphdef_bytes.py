"""add_graph with serialized GraphDef bytes: real ones are kept, anything else is a ValueError naming `model`."""
import pytest

import tensorboard
from tensorboard.graph import to_graph_def
from tensorboard.src import graph_pb2


@pytest.mark.parametrize("data,why", [(b"garbage", "Wire format was corrupt"), (b"\x08\x01", "no GraphDef field")])
def test_bytes_that_are_not_a_graph_def_are_refused(tmp_path, data, why):
    with tensorboard.SummaryWriter(tmp_path) as writer:
        with pytest.raises(ValueError, match=rf"^model: {len(data)} bytes that are not a serialized GraphDef .*{why}"):
            writer.add_graph(model=data)


def test_a_serialized_graph_def_is_kept():
    graph = graph_pb2.GraphDef(node=[graph_pb2.NodeDef(name="a", op="Const")])
    assert to_graph_def(graph.SerializeToString()) == graph
    assert to_graph_def(b"") == graph_pb2.GraphDef()
