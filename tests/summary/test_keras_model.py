"""summary.keras_model: a Keras model config as the graph_keras_model string tensor (no Keras needed)."""
import json

import pytest
from upstream import as_array, plugin_content, upstream_run

from tensorboard import FileWriter, summary
from tensorboard.src import summary_pb2, types_pb2

CONFIG = json.dumps({"class_name": "Sequential", "config": {"name": "seq", "layers": [
    {"class_name": "InputLayer", "config": {"name": "x", "batch_shape": [None, 4]}},
    {"class_name": "Dense", "config": {"name": "dense", "units": 2}}]}})


def test_encodes_the_config_with_keras_callbacks_metadata():
    (value,) = summary.keras_model("keras", CONFIG).value
    assert value.tensor.dtype == types_pb2.DT_STRING and value.tensor.string_val == [CONFIG.encode()]
    assert value.metadata.plugin_data.plugin_name == "graph_keras_model"
    assert value.metadata.plugin_data.content == b"1"
    # left unset, as Keras writes it: upstream migrates it to the blob sequence the graph plugin lists
    assert value.metadata.data_class == summary_pb2.DATA_CLASS_UNKNOWN


def test_upstream_reads_it_back(tmp_path):
    with FileWriter(str(tmp_path)) as writer:
        writer.add_summary(summary.keras_model("keras", CONFIG), global_step=0)
    run = upstream_run(tmp_path)
    assert plugin_content(run, "keras") == b"1"
    assert run["metadata"]["keras"]["data_class"] == summary_pb2.DATA_CLASS_BLOB_SEQUENCE
    [(step, _, tensor)] = run["tensors"]["keras"]
    assert step == 0 and json.loads(str(as_array(tensor).reshape(-1)[0])) == json.loads(CONFIG)


@pytest.mark.parametrize("model_json,error", [(b"{}", TypeError), ("not json", ValueError), ("[1]", ValueError),
                                              ('{"layers": []}', ValueError)])
def test_errors_name_the_argument(model_json, error):
    with pytest.raises(error, match="^model_json: "):
        summary.keras_model("keras", model_json)
