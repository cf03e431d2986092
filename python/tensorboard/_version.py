"""Version of the standalone TensorBoard logger and wheel."""

__version__ = "0.1.0"
