"""Prints {message short name: {field name: [number, type, label]}} of protobuf modules as JSON.

Run with our modules and with upstream TensorBoard's to compare field numbers.
"""
import importlib
import json
import sys


def _repeated(field):
    """True for a repeated field, on protobuf runtimes with and without `label`."""
    if hasattr(field, "is_repeated"):
        return bool(field.is_repeated)
    return field.label == field.LABEL_REPEATED


def walk(desc, out):
    out[desc.full_name] = {f.name: [f.number, f.type, _repeated(f)] for f in desc.fields}
    for nested in desc.nested_types:
        if not nested.GetOptions().map_entry:
            walk(nested, out)
    for enum in desc.enum_types:
        out[enum.full_name] = {v.name: [v.number] for v in enum.values}


def main(modules):
    out = {}
    for name in modules:
        module = importlib.import_module(name)
        for msg in module.DESCRIPTOR.message_types_by_name.values():
            walk(msg, out)
        for enum in module.DESCRIPTOR.enum_types_by_name.values():
            out[enum.full_name] = {v.name: [v.number] for v in enum.values}
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
