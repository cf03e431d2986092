"""The package is grouped by layer (docs/architecture.md): the top level holds only the public entry
points, every former module path still imports as the same module, and the architecture page names
every folder of the tree."""
import importlib
import re
import subprocess
import sys

import pytest
from upstream import REPO

from tensorboard import _aliases

PACKAGE = REPO / "python" / "tensorboard"
TOP_LEVEL_MODULES = {"__init__.py", "_aliases.py", "_upstream_hooks.py", "_version.py", "upstream_path.py", "writer.py",
                     "mxboard.py",
                     "projector.py", "distributed.py", "process.py"}


def test_top_level_holds_only_the_public_entry_points():
    assert {p.name for p in PACKAGE.glob("*.py")} == TOP_LEVEL_MODULES


@pytest.mark.parametrize("former, new", sorted(_aliases.FORMER_PATHS.items()))
def test_former_module_path_is_the_same_module(former, new):
    assert importlib.import_module(former) is importlib.import_module(new)
    assert sys.modules[former] is sys.modules[new]
    parent, _, name = former.rpartition(".")
    assert getattr(importlib.import_module(parent), name) is sys.modules[new]


def test_former_paths_work_in_a_fresh_interpreter_with_from_imports_and_patches():
    """`from tensorboard.event_file import EventFileWriter` and a patch through the former name reach the
    module the writers use, as wandb's and other tools' patches do."""
    probe = """
import tensorboard.event_file as former
from tensorboard.event_file import EventFileWriter
from tensorboard.storage import storage_for, FsspecStorage
from tensorboard.convert import to_numpy
from tensorboard.file_writer import FileWriter
from tensorboard.summary_writer import SummaryWriter
from tensorboard.global_writer import GlobalSummaryWriter
from tensorboard.record import frame_many
from tensorboard.crc32c import masked_crc32c
from tensorboard.event_file_names import event_file_name
from tensorboard.wire import scalar_event
import tensorboard.events.event_file as new
assert former is new and EventFileWriter is new.EventFileWriter
assert tensorboard.FileWriter is FileWriter and tensorboard.SummaryWriter is SummaryWriter
import tensorboard.summary.writer.event_file_writer as upstream_path
assert upstream_path.EventFileWriter.__module__ == "tensorboard.summary.writer.event_file_writer"
print("ok")
"""
    out = subprocess.run([sys.executable, "-c", "import tensorboard\n" + probe], capture_output=True, text=True,
                         env={"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "ok", out.stderr


def test_an_unknown_module_is_still_an_import_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tensorboard.no_such_module")


def test_architecture_page_names_every_folder_and_top_level_module():
    page = (REPO / "docs" / "architecture.md").read_text()
    table = page[page.index("## The package's layout"):page.index("## Where to change what")]
    named = set(re.findall(r"`(python/tensorboard/[^`]*)`", table)) | {
        f"python/tensorboard/{name}" for name in re.findall(r"`([a-z_]+\.py)`", table)}
    folders = {f"python/tensorboard/{p.name}/" for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    modules = {f"python/tensorboard/{name}" for name in TOP_LEVEL_MODULES}
    assert folders | modules <= named, sorted((folders | modules) - named)
    for path in re.findall(r"`(python/tensorboard/[^`]*)`", table):
        assert (REPO / path).exists(), path
    where = page[page.index("## Where to change what"):page.index("## How the wheel is built")]
    for path in re.findall(r"`((?:writers|values|summary|events|reader)/[a-z_<>]+\.py)`", where):
        if "<" not in path:
            assert (PACKAGE / path).is_file(), path
