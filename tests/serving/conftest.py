"""pytest fixtures of tests/serving (defined in serving_helpers.py)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from serving_helpers import peer_logdir, server_pair  # noqa: E402,F401  (fixtures)
