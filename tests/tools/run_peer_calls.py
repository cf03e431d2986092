"""Runs tests/tools/peer_calls.py's torch-order calls through a real peer writer, in .venv-upstream:

    python run_peer_calls.py torch|tbx LOGDIR

Prints a JSON list of the calls the peer refused (method, tag, error), so the test can tell them apart.
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peer_calls import torch_calls  # noqa: E402


def main(lib: str, logdir: str) -> None:
    if lib == "torch":
        from torch.utils.tensorboard import SummaryWriter
    else:
        from tensorboardX import SummaryWriter
    refused = []
    with SummaryWriter(logdir) as writer:
        for method, args, kwargs in torch_calls():
            try:
                getattr(writer, method)(*args, **kwargs)
            except Exception as err:  # reported: e.g. tensorboardX's audio needs soundfile
                refused.append([method, str(args[0]) if args else "", f"{type(err).__name__}: {err}"[:200]])
    json.dump(refused, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
