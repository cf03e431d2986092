"""Shared pieces of the summary encoders: plugin metadata and NumPy -> TensorProto."""
from __future__ import annotations

from typing import Iterable, Optional

import numpy as np

from tensorboard.src import summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from tensorboard.values.args import check_tag  # noqa: F401  (re-exported for the encoders)

# NumPy dtype -> TensorFlow DataType enum, for the dtypes summaries use.
_DTYPES = {
    np.dtype(np.float16): types_pb2.DT_HALF,
    np.dtype(np.float32): types_pb2.DT_FLOAT,
    np.dtype(np.float64): types_pb2.DT_DOUBLE,
    np.dtype(np.int8): types_pb2.DT_INT8,
    np.dtype(np.int16): types_pb2.DT_INT16,
    np.dtype(np.int32): types_pb2.DT_INT32,
    np.dtype(np.int64): types_pb2.DT_INT64,
    np.dtype(np.uint8): types_pb2.DT_UINT8,
    np.dtype(np.uint16): types_pb2.DT_UINT16,
    np.dtype(np.uint32): types_pb2.DT_UINT32,
    np.dtype(np.uint64): types_pb2.DT_UINT64,
    np.dtype(np.bool_): types_pb2.DT_BOOL,
}


def make_shape(shape: Iterable[int]) -> tensor_shape_pb2.TensorShapeProto:
    return tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=int(d))
                                                  for d in shape])


def make_tensor(array: np.ndarray) -> tensor_pb2.TensorProto:
    """A TensorProto of a numeric array (packed little-endian tensor_content)."""
    array = np.asarray(array)
    dtype = _DTYPES.get(array.dtype.newbyteorder("=") if array.dtype.byteorder == ">" else array.dtype)
    if dtype is None:
        raise TypeError(f"no TensorProto dtype for NumPy dtype {array.dtype}")
    content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return tensor_pb2.TensorProto(dtype=dtype, tensor_shape=make_shape(array.shape), tensor_content=content)


def make_string_tensor(strings: Iterable, shape: Iterable[int]) -> tensor_pb2.TensorProto:
    """A DT_STRING TensorProto; str items are UTF-8 encoded, bytes kept as they are."""
    values = [s.encode("utf-8") if isinstance(s, str) else bytes(s) for s in strings]
    return tensor_pb2.TensorProto(dtype=types_pb2.DT_STRING, tensor_shape=make_shape(shape), string_val=values)


def check_optional_text(value, name: str) -> Optional[str]:
    """None, "" or a str UTF-8 can encode (protobuf string fields); raises naming `name` otherwise."""
    return value if value is None or value == "" else check_tag(value, name)


def make_metadata(plugin_name: Optional[str] = None, content: bytes = b"", display_name: Optional[str] = None,
                  description: Optional[str] = None, data_class: int = summary_pb2.DATA_CLASS_UNKNOWN
                  ) -> summary_pb2.SummaryMetadata:
    """SummaryMetadata for a plugin; unset fields stay unset so they cost no bytes."""
    display_name = check_optional_text(display_name, "display_name")
    description = check_optional_text(description, "summary_description")
    metadata = summary_pb2.SummaryMetadata(data_class=data_class)
    if plugin_name is not None:
        metadata.plugin_data.plugin_name = plugin_name
        metadata.plugin_data.content = content
    if display_name:
        metadata.display_name = display_name
    if description:
        metadata.summary_description = description
    return metadata
