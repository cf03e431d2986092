"""Our version is upstream's release inside plus a local label, so every `tensorboard` specifier accepts it."""
import re

from packaging.specifiers import SpecifierSet
from packaging.version import Version
from upstream import REPO

import tensorboard


def pinned_renderer_version() -> str:
    """The upstream release named in tools/renderer.pin ("tensorboard==X <sha256>")."""
    line = next(l for l in (REPO / "tools" / "renderer.pin").read_text().splitlines()
                if l.strip() and not l.startswith("#"))
    return re.fullmatch(r"tensorboard==(\S+)", line.split()[0]).group(1)


def test_version_is_the_pinned_upstream_release_plus_a_local_label():
    version = Version(tensorboard.__version__)
    assert version.public == pinned_renderer_version()
    assert re.fullmatch(r"standalone\.\d+", version.local)
    assert version > Version(pinned_renderer_version())  # pip sees it as newer than upstream's own build


def test_dependents_specifiers_accept_it():
    version = tensorboard.__version__
    for spec in ("~=2.21", ">=2.0", ">=1.15", "<3", ">=2.21.0,<2.22"):  # tensorflow, tbparse, torch's check, ...
        assert SpecifierSet(spec).contains(version), spec
    assert Version(version) >= Version("1.15")  # torch.utils.tensorboard's import-time check
