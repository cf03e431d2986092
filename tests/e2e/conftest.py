"""pytest fixtures of tests/e2e (defined in e2e_helpers.py)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from e2e_helpers import logdir, venv, wheels  # noqa: E402,F401  (fixtures)
