"""Small torch models for the graph tests, each with its example inputs."""
from __future__ import annotations

import torch

nn = torch.nn


class Residual(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return torch.relu(x + self.bn(self.conv(x)))


class Net(nn.Module):
    """A CNN with batch norm, a residual block, a multi-output op (chunk) and two inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(1, 4, 3)
        self.block = Residual(4)
        self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 6 * 6, 16), nn.ReLU(), nn.Linear(16, 10))

    def forward(self, image, scale):
        features = self.block(self.stem(image))
        low, high = features.chunk(2, dim=1)
        return self.head(torch.cat([high, low], dim=1)) * scale


class Twice(nn.Module):
    """One submodule called twice (tied weights), plus a gradient-free branch."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        with torch.no_grad():
            shift = x + 1
        return self.fc(torch.tanh(self.fc(x))) + shift


class TupleOut(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.enc = nn.Linear(3, 2)

    def forward(self, x, y):
        code = self.enc(x)
        return code, code.sum() + y.mean()


class DictOut(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 2)

    def forward(self, x):
        return {"logits": self.fc(x), "mean": x.mean(dim=0)}


class Branchy(nn.Module):
    """A Python branch on a tensor value: torch.export and torch.fx refuse it, torch.jit.trace records one path."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x):
        if x.sum() > 0:
            return self.fc(x) * 2
        return x - 1


class Packet:
    """A plain object as a forward() argument: torch.export takes pytrees only, torch.fx takes it."""

    def __init__(self, features) -> None:
        self.features = features


class PacketNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4))

    def forward(self, packet):
        low, high = self.body(packet.features).relu().chunk(2, dim=1)
        return torch.cat([high, low], 1) * 2


def default_path_models() -> dict:
    """name -> (model, example inputs), for models torch.export takes."""
    torch.manual_seed(0)
    return {
        "mlp": (nn.Sequential(nn.Linear(20, 32), nn.ReLU(), nn.Linear(32, 2)), (torch.randn(5, 20),)),
        "cnn": (Net(), (torch.randn(2, 1, 8, 8), torch.tensor(2.0))),
        "twice": (Twice(), (torch.randn(2, 4),)),
        "tuple_out": (TupleOut(), (torch.randn(2, 3), torch.randn(4))),
        "dict_out": (DictOut(), (torch.randn(2, 3),)),
    }


class Guarded(nn.Module):
    """torch.cond and a grad-mode block: export keeps them as higher-order operator nodes."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.register_buffer("scale", torch.ones(3), persistent=False)
        self.offset = torch.tensor([1.0, 2.0, 3.0])  # a plain tensor attribute: a lifted constant

    def forward(self, x):
        with torch.enable_grad():
            y = self.fc(x) * self.scale
        return torch.cond(x.sum() > 0, lambda a: a + self.offset, lambda a: a - 1, (y,))
