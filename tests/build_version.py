"""The version a wheel built from this checkout carries (tools/pip_package/version.py), and that wheel."""
from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@functools.cache
def build_version() -> str:
    """What `make install` names the wheel it builds from this checkout."""
    return subprocess.run([sys.executable, str(REPO / "tools" / "pip_package" / "version.py")], capture_output=True,
                          text=True, check=True).stdout.strip()


def built_wheel() -> Path:
    """dist/'s wheel of this checkout (`make install` builds it)."""
    wheel = REPO / "dist" / f"tensorboard-{build_version()}-py3-none-any.whl"
    assert wheel.exists(), f"{wheel} is missing: run `make install`"
    return wheel
