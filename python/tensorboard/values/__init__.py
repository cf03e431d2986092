"""Values in: what a caller passes to `add_*` becomes NumPy here, before any encoding.

`convert` turns framework values (torch, JAX, MXNet, TensorFlow, lists) into NumPy; `args` checks
arguments and names the one that is wrong; `deferred` snapshots values still computing on a device
and converts them later, on `background`'s idle-priority encoder thread.
"""
