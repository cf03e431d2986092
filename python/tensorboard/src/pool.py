"""The descriptor pool our generated protos register in (see tools/gen_protos.sh).

Upstream TensorBoard's protos (`tensorboard.compat.proto.*`) use the same full names in
protobuf's default pool; a pool of our own lets both sets live in one process, in either
import order. The wire format does not depend on the pool.
"""
from google.protobuf import descriptor_pool

POOL = descriptor_pool.DescriptorPool()

# Well-known types our protos import (hparams.proto uses google/protobuf/struct.proto) must be in
# the same pool; their classes come from `message_class`, not from `struct_pb2`.
from google.protobuf import struct_pb2 as _struct_pb2  # noqa: E402

POOL.AddSerializedFile(_struct_pb2.DESCRIPTOR.serialized_pb)


def message_class(full_name: str) -> type:
    """The message class of `full_name` in our pool (e.g. "google.protobuf.Value")."""
    from google.protobuf import message_factory

    return message_factory.GetMessageClass(POOL.FindMessageTypeByName(full_name))


def is_message(value, cls: type) -> bool:
    """True for an instance of our `cls` or of any other class with its full name (upstream's compat protos)."""
    if isinstance(value, cls):
        return True
    descriptor = getattr(type(value), "DESCRIPTOR", None)
    return (getattr(descriptor, "full_name", None) == cls.DESCRIPTOR.full_name
            and callable(getattr(value, "SerializeToString", None)))


def as_ours(value, cls: type):
    """`value` as an instance of our `cls`: itself, or re-parsed from its bytes when it is upstream's class."""
    return value if isinstance(value, cls) else cls.FromString(value.SerializeToString())
