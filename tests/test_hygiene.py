"""The hygiene gate: ruff, with the project's own configuration (ruff.toml), passes clean over the
package, the tests, the benchmarks, the tools and the demo."""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_ruff_passes_clean():
    result = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", "python", "tests", "bench", "tools",
                             "demo"], cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
