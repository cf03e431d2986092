"""A small Flax linen model shared by the JAX graph tests and the browser test (imports flax)."""
import flax.linen as nn


class LinenMLP(nn.Module):
    """Dense(8) -> relu -> Dense(2): scopes LinenMLP/Dense_0, LinenMLP/relu, LinenMLP/Dense_1."""

    @nn.compact
    def __call__(self, x):
        hidden = nn.relu(nn.Dense(8)(x))
        return nn.Dense(2)(hidden)
