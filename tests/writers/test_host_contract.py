"""SummaryWriter's method groups use of their writer exactly what their Protocol in writers/_host.py
declares, and the writers (ours and MXBoard's) provide all of it."""
from __future__ import annotations

import ast
import inspect

import pytest

import tensorboard
from tensorboard.mxboard import SummaryWriter as MXBoardWriter
from tensorboard.writers import _host, _media_methods, _scalar_methods, _structure_methods

GROUPS = [(_scalar_methods, "ScalarMethods", _host.ScalarHost), (_media_methods, "MediaMethods", _host.MediaHost),
          (_structure_methods, "StructureMethods", _host.StructureHost)]


def protocol_members(protocol: type) -> set[str]:
    """The attributes and methods a Protocol declares, its bases' included."""
    members: set[str] = set()
    for cls in protocol.__mro__:
        if cls in (object, _host.Protocol) or not getattr(cls, "_is_protocol", False):
            continue
        members |= set(vars(cls).get("__annotations__", {}))
        members |= {name for name, value in vars(cls).items() if inspect.isfunction(value)}
    return {name for name in members if not name.startswith("__")}


def used_on_self(module, class_name: str) -> set[str]:
    """The attributes the class's methods use of `self`."""
    tree = ast.parse(inspect.getsource(module))
    (cls,) = [node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == class_name]
    return {node.attr for node in ast.walk(cls)
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"}


@pytest.mark.parametrize("module, class_name, protocol", GROUPS)
def test_a_group_uses_exactly_what_its_protocol_declares(module, class_name, protocol):
    used = used_on_self(module, class_name) - set(vars(getattr(module, class_name)))
    undeclared, unused = used - protocol_members(protocol), protocol_members(protocol) - used
    assert not undeclared, f"{class_name} uses {sorted(undeclared)} of its writer; declare them in {protocol.__name__}"
    assert not unused, f"{protocol.__name__} declares {sorted(unused)}, which {class_name} does not use"


@pytest.mark.parametrize("writer_class", [tensorboard.SummaryWriter, MXBoardWriter])
@pytest.mark.parametrize("protocol", [_host.ScalarHost, _host.MediaHost, _host.StructureHost])
def test_the_writers_provide_every_declared_member(writer_class, protocol, tmp_path):
    with writer_class(str(tmp_path)) as writer:
        missing = [name for name in sorted(protocol_members(protocol)) if not hasattr(writer, name)]
    assert protocol_members(protocol) and not missing, missing
