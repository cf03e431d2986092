"""Puts the source tree's logger first on sys.path, so tests exercise python/tensorboard."""
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "python"))
sys.path.insert(0, str(REPO / "tests"))
