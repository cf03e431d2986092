"""Keras model summaries: the model's JSON config as a string tensor for the Graphs dashboard.

TensorBoard's graph plugin draws a "conceptual graph" (layers and how they connect) from a
tensor summary with plugin name `graph_keras_model` (content b"1"), as Keras's own callback
writes it under tag "keras". No Keras is needed here: the caller passes `model.to_json()`.
"""
from __future__ import annotations

import json

from tensorboard.src import summary_pb2
from tensorboard.summary._common import check_tag, make_metadata, make_string_tensor

__all__ = ["keras_model", "PLUGIN_NAME"]

PLUGIN_NAME = "graph_keras_model"


def keras_model(tag: str, model_json: str) -> summary_pb2.Summary:
    """A summary of a Keras model's config, drawn by the Graphs dashboard as its conceptual graph.

    Args:
        tag: The graph's name (Keras's callback writes "keras").
        model_json: `model.to_json()`: a JSON object with a "config" key.

    Returns:
        A Summary proto with one string tensor.

    Raises:
        TypeError: `model_json` is not a str.
        ValueError: Not JSON, or not a Keras model config.
    """
    check_tag(tag)
    if not isinstance(model_json, str):
        raise TypeError(f"model_json: expected the str of model.to_json(), got {type(model_json).__name__}")
    try:
        config = json.loads(model_json)
    except ValueError as err:
        raise ValueError(f"model_json: not JSON ({err})") from None
    if not isinstance(config, dict) or "config" not in config:
        raise ValueError("model_json: expected a Keras model config (a JSON object with a 'config' key)")
    # data_class stays unset: upstream migrates this plugin to a blob sequence (what the graph plugin lists)
    metadata = make_metadata(PLUGIN_NAME, b"1")
    value = summary_pb2.Summary.Value(tag=tag, metadata=metadata, tensor=make_string_tensor([model_json], []))
    return summary_pb2.Summary(value=[value])
