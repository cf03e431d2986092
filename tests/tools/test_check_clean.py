"""tools/check_clean.sh, the last step of `make test`: a file the test run changed or left behind fails it."""
from __future__ import annotations

import subprocess

from upstream import REPO


def _check(clone, step):
    return subprocess.run(["bash", "tools/check_clean.sh", step], cwd=clone, capture_output=True, text=True)


def test_a_changed_or_new_file_fails_the_check_and_is_named(tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-local", "--depth", "1", f"file://{REPO}", str(clone)], check=True)
    subprocess.run(["cp", str(REPO / "tools" / "check_clean.sh"), str(clone / "tools")], check=True)
    subprocess.run(["git", "-C", str(clone), "add", "tools/check_clean.sh"], check=True)
    subprocess.run(["git", "-C", str(clone), "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x",
                    "--allow-empty"], check=True)
    assert _check(clone, "save").returncode == 0
    (clone / "artifacts" / "ignored.txt").write_text("generated output goes to ignored folders")
    clean = _check(clone, "check")
    assert clean.returncode == 0 and "as the test run found it" in clean.stdout
    (clone / "docs" / "compatibility.md").write_text("rewritten")
    (clone / "stray.txt").write_text("left behind")
    dirty = _check(clone, "check")
    assert dirty.returncode == 1
    assert " M docs/compatibility.md" in dirty.stderr and "?? stray.txt" in dirty.stderr
