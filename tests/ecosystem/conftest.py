"""tests/ecosystem: helpers importable by the test modules."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
