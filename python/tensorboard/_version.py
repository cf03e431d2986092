"""Version of the `tensorboard` distribution this wheel provides.

The upstream TensorBoard release it contains (tools/renderer.pin) plus a PEP 440 local label,
as downstream rebuilds do (torch's `+cpu`): dependency specifiers on `tensorboard`
(`tensorboard>=2.x`, `~=2.21`) accept it, and it sorts after upstream's own 2.21.0.

`RELEASE` is the release this tree builds toward. A wheel built from the commit tagged
`v<RELEASE>` is that release; any other build carries a development label,
`<RELEASE>.dev<N>`, written here by the wheel build (tools/pip_package/version.py).
"""

RELEASE = "2.21.0+standalone.2"
__version__ = "2.21.0+standalone.2.dev0"  # in the source tree; a wheel holds its own
