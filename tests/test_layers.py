"""The package's layers import one way, as docs/architecture.md draws them: every import between two
of our packages is an edge of its "Layers" table, and no module imports another package's private
(underscore) module or name. Read from the source with `ast`, so an import inside a function counts."""
from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "python" / "tensorboard"
ARCHITECTURE = REPO / "docs" / "architecture.md"
ROOT = "tensorboard"  # the package root: tensorboard/__init__.py and its private top-level modules


def packages() -> set[str]:
    """Our packages: each folder of python/tensorboard/ and each public top-level module."""
    found = {ROOT}
    for entry in PACKAGE.iterdir():
        if entry.is_dir() and (entry / "__init__.py").exists():
            found.add(entry.name)
        elif entry.suffix == ".py" and not entry.name.startswith("_"):
            found.add(entry.stem)
    return found


def package_of(module: list[str], ours: set[str]) -> str | None:
    """The package of `tensorboard.a.b...` (None: not ours, e.g. upstream's modules under tensorboard.*)."""
    if not module or module[0] != "tensorboard":
        return None
    if len(module) == 1 or module[1].startswith("_") and module[1] not in ours:
        return ROOT
    return module[1] if module[1] in ours else None


def source_package(path: Path) -> str:
    top = path.relative_to(PACKAGE).parts[0]
    if top.endswith(".py"):
        return ROOT if top.startswith("_") else top[:-3]
    return top


def imports(path: Path):
    """(module parts, imported names or None) of every absolute import in the file."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name.split("."), None
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module.split("."), [alias.name for alias in node.names]


def allowed_edges() -> dict[str, set[str]]:
    """The Layers table of docs/architecture.md: package -> the packages it may import."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("## Layers", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not cells[0].startswith("`"):
            continue
        table[cells[0].strip("`")] = set(re.findall(r"`([^`]+)`", cells[1]))
    return table


def edges_and_private_imports():
    ours = packages()
    edges: dict[str, set[str]] = {}
    private: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "src" == path.relative_to(PACKAGE).parts[0] and path.name.endswith("_pb2.py"):
            continue  # generated protos import each other only
        source = source_package(path)
        for module, names in imports(path):
            target = package_of(module, ours)
            if module == ["tensorboard"] and names:  # from tensorboard import x: x is the module
                for name in names:
                    sub = package_of(["tensorboard", name], ours)
                    if sub is not None and sub != source:
                        edges.setdefault(source, set()).add(sub)
                        if name.startswith("_"):
                            private.append(f"{path.relative_to(REPO)}: from tensorboard import {name}")
                continue
            if target is None or target == source:
                continue
            edges.setdefault(source, set()).add(target)
            named = [part for part in module[1:] if part.startswith("_")] + \
                [name for name in names or () if name.startswith("_")]
            if named:
                private.append(f"{path.relative_to(REPO)}: {'.'.join(module)} {named}")
    return ours, edges, private


def test_every_package_is_in_the_layers_table():
    ours, _, _ = edges_and_private_imports()
    table = allowed_edges()
    assert ours - set(table) == set(), "add these packages to the Layers table of docs/architecture.md"
    assert set(table) - ours == set(), "the Layers table names packages that do not exist"
    for package, uses in table.items():
        assert uses <= ours, f"{package} may import unknown packages {sorted(uses - ours)}"


def test_imports_follow_the_layers():
    _, edges, _ = edges_and_private_imports()
    table = allowed_edges()
    wrong = {f"{source} -> {target}" for source, targets in edges.items() for target in targets
             if target not in table.get(source, set())}
    assert wrong == set(), "imports that docs/architecture.md's Layers table does not allow"


def test_the_layers_have_no_cycle():
    table = allowed_edges()
    state: dict[str, int] = {}

    def visit(package: str, path: tuple) -> None:
        assert state.get(package) != 1, "cycle: " + " -> ".join(path + (package,))
        if state.get(package) == 2:
            return
        state[package] = 1
        for used in table.get(package, ()):
            visit(used, path + (package,))
        state[package] = 2

    for package in table:
        visit(package, ())


def test_no_package_imports_another_packages_private_names():
    _, _, private = edges_and_private_imports()
    assert private == []
