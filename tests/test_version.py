"""Our version is upstream's release inside plus a local label, so every `tensorboard` specifier accepts it;
a build from any commit but the release tag carries a development label (tools/pip_package/version.py)."""
import re
import subprocess
import sys

from build_version import build_version
from packaging.specifiers import SpecifierSet
from packaging.version import Version
from upstream import REPO

import tensorboard
from tensorboard import _version

VERSION_TOOL = REPO / "tools" / "pip_package" / "version.py"


def pinned_renderer_version() -> str:
    """The upstream release named in tools/renderer.pin ("tensorboard==X <sha256>")."""
    line = next(l for l in (REPO / "tools" / "renderer.pin").read_text().splitlines()
                if l.strip() and not l.startswith("#"))
    return re.fullmatch(r"tensorboard==(\S+)", line.split()[0]).group(1)


def test_release_is_the_pinned_upstream_release_plus_a_local_label():
    version = Version(_version.RELEASE)
    assert version.public == pinned_renderer_version()
    assert re.fullmatch(r"standalone\.\d+", version.local)
    assert version > Version(pinned_renderer_version())  # pip sees it as newer than upstream's own build


def test_the_source_tree_and_every_untagged_build_carry_a_development_label():
    assert tensorboard.__version__ == _version.RELEASE + ".dev0"
    built = build_version()
    assert re.fullmatch(re.escape(_version.RELEASE) + r"\.dev\d+", built), built
    assert Version(built).public == pinned_renderer_version()


def test_dependents_specifiers_accept_every_label():
    for version in (_version.RELEASE, build_version()):
        for spec in ("~=2.21", ">=2.0", ">=1.15", "<3", ">=2.21.0,<2.22"):  # tensorflow, tbparse, torch's check
            assert SpecifierSet(spec).contains(version), (spec, version)
        assert Version(version) >= Version("1.15")  # torch.utils.tensorboard's import-time check


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), "-c", "user.email=t@t", "-c", "user.name=t", *args], check=True,
                   capture_output=True)


def test_the_release_tag_builds_the_release_and_only_input_commits_move_n(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-local", f"file://{REPO}", str(clone)], check=True)
    for name in ("tools/pip_package/version.py", "tools/pip_package/inputs_hash.py", "python/tensorboard/_version.py"):
        (clone / name).write_bytes((REPO / name).read_bytes())
    _git(clone, "commit", "-qam", "the version tool", "--allow-empty")

    def version():
        return subprocess.run([sys.executable, str(clone / VERSION_TOOL.relative_to(REPO))], capture_output=True,
                              text=True, check=True).stdout.strip()

    _git(clone, "tag", f"v{_version.RELEASE}")
    assert version() == _version.RELEASE
    (clone / "docs" / "index.md").write_text("a docs-only commit")
    _git(clone, "commit", "-qam", "docs")
    assert version() == _version.RELEASE + ".dev0"
    (clone / "python" / "tensorboard" / "new_module.py").write_text('"""An input of the wheel."""\n')
    _git(clone, "add", "python/tensorboard/new_module.py")
    _git(clone, "commit", "-qm", "code")
    assert version() == _version.RELEASE + ".dev1"
