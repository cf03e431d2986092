"""The Python matrix (tools/test_pythons.py): the core suite on each supported Python, without frameworks.

Under TB_MATRIX=1 the frameworks below are not installed (torch's CPU wheel exists for one Python only);
a test that needs one skips naming it, and tests/conftest.py lets exactly those skips pass under
TB_STRICT=1. Everywhere else every framework is installed and no skip passes.
"""
from __future__ import annotations

import os
import re
import sys

import pytest

ABSENT_FRAMEWORKS = ("torch", "jax", "flax", "keras", "lightning", "transformers", "accelerate", "mxnet", "onnx",
                     "tensorflow", "tensorboardX")
# Libraries with no release the tests take for older Pythons: obstore 0.12, the first the reader uses, needs 3.11.
ABSENT_BELOW = {"obstore": (3, 11)}
SKIP_PREFIX = "framework absent in the Python matrix:"
# Hardware a machine may lack: a test that needs a GPU skips with this reason, which passes TB_STRICT anywhere
# (bench/gpu_check.py runs the GPU path on a machine that has one).
NO_GPU = "no NVIDIA GPU on this machine"
_IMPORTS = re.compile(r"^\s*(?:import|from)\s+(\w+)", re.M)
_IMPORTORSKIP = re.compile(r"could not import '(\w+)")


def in_matrix() -> bool:
    """True in a matrix run (tools/test_pythons.py sets TB_MATRIX=1)."""
    return os.environ.get("TB_MATRIX") == "1"


def skip_for_absent_frameworks(code: str) -> None:
    """In a matrix run, skips the calling test when `code` imports a framework the matrix leaves out."""
    if in_matrix():
        absent = sorted(set(_IMPORTS.findall(code)) & set(ABSENT_FRAMEWORKS))
        if absent:
            pytest.skip(f"{SKIP_PREFIX} {', '.join(absent)}")


def allowed_skip(reason: str, version: tuple = tuple(sys.version_info[:2])) -> bool:
    """Whether a skip with this reason passes TB_STRICT: only in a matrix run, only for an absent framework
    (or a library with no release for this Python, ABSENT_BELOW); anywhere, for absent hardware (NO_GPU)."""
    reason = reason.removeprefix("Skipped: ")  # how pytest reports a skip's reason
    if reason.startswith(NO_GPU):
        return True
    if not in_matrix():
        return False
    if reason.startswith(SKIP_PREFIX):
        return True
    missing = _IMPORTORSKIP.search(reason)
    if not missing:
        return False
    name = missing.group(1)
    return name in ABSENT_FRAMEWORKS or (name in ABSENT_BELOW and version < ABSENT_BELOW[name])
