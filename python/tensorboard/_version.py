"""Version of the `tensorboard` distribution this wheel provides.

The upstream TensorBoard release it contains (tools/renderer.pin) plus a PEP 440 local label,
as downstream rebuilds do (torch's `+cpu`): dependency specifiers on `tensorboard`
(`tensorboard>=2.x`, `~=2.21`) accept it, and it sorts after upstream's own 2.21.0.
"""

__version__ = "2.21.0+standalone.1"
