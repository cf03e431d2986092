"""`import tensorboard` stays light: it loads neither upstream's modules, nor protobuf, nor our writers,
until something uses them (upstream's own `import tensorboard` is lazy too)."""
import subprocess
import sys

from upstream import REPO

PROBE = """
import sys
import tensorboard
loaded = sorted(m for m in sys.modules if m.startswith(("tensorboard", "google.protobuf", "numpy")))
print(" ".join(loaded))
tensorboard.SummaryWriter  # first use loads the writers
print("google.protobuf" in sys.modules, "tensorboard.writer" in sys.modules)
"""


def test_import_tensorboard_loads_only_the_package_itself():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(REPO / "python"), "PATH": "/usr/bin:/bin"}).stdout.splitlines()
    assert out[0].split() == ["tensorboard", "tensorboard._aliases", "tensorboard._upstream_hooks",
                              "tensorboard._version", "tensorboard.upstream_path"]
    assert out[1] == "True True"
