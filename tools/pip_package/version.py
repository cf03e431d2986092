"""Prints the version of a wheel built from this checkout, and can stamp it into a staged `_version.py`.

The commit tagged `v<RELEASE>` (RELEASE from python/tensorboard/_version.py) builds `<RELEASE>`. Any
other commit builds `<RELEASE>.dev<N>`, N the number of commits since the last `v*` tag (since the
first commit when there is none) that changed the wheel's inputs (tools/pip_package/inputs_hash.py),
so `tensorboard --version` tells a build of main from the release, and a commit that changes only
docs or tests keeps its predecessor's version. Outside a git checkout N is 0.

Usage: version.py                 print the version
       version.py --stamp FILE... rewrite each FILE's `__version__ = ...` line to that version
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inputs_hash import INPUT_DIRS, INPUT_FILES  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
VERSION_FILE = REPO / "python" / "tensorboard" / "_version.py"
VERSION_LINE = re.compile(r"^__version__\s*=.*$", re.M)


def release() -> str:
    """RELEASE as python/tensorboard/_version.py states it."""
    match = re.search(r"""^RELEASE\s*=\s*["']([^"']+)["']""", VERSION_FILE.read_text(encoding="utf-8"), re.M)
    if not match:
        raise SystemExit(f"version.py: no RELEASE = \"...\" line in {VERSION_FILE}")
    return match.group(1)


def _git(*args: str) -> str | None:
    """stdout of `git args` in the checkout, or None when git or the checkout is absent or it fails."""
    try:
        done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True, check=False)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def build_version() -> str:
    """`RELEASE` at its tag, else `RELEASE.dev<N>`."""
    rel = release()
    tags = (_git("tag", "--points-at", "HEAD") or "").split()
    if f"v{rel}" in tags:
        return rel
    last_tag = _git("describe", "--tags", "--abbrev=0", "--match", "v*")
    span = f"{last_tag}..HEAD" if last_tag else "HEAD"
    count = _git("rev-list", "--count", span, "--", *INPUT_DIRS, *INPUT_FILES)
    return f"{rel}.dev{int(count) if count else 0}"


def stamp(path: Path, version: str) -> None:
    """Rewrites the `__version__ = ...` line of `path` (a copy of _version.py) to `version`."""
    text = path.read_text(encoding="utf-8")
    new, count = VERSION_LINE.subn(f'__version__ = "{version}"', text)
    if count != 1:
        raise SystemExit(f"version.py: {path} has {count} `__version__ =` lines, expected 1")
    path.write_text(new, encoding="utf-8")


def main(argv: list[str]) -> int:
    version = build_version()
    if argv[1:2] == ["--stamp"]:
        for name in argv[2:]:
            stamp(Path(name), version)
    else:
        print(version)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
