"""tbparse (the reference) run on a logdir in .venv-upstream, and peer-written logdirs, for our tests."""
from __future__ import annotations

import importlib.util
import json
import os
import pickle
import subprocess
import tempfile
from pathlib import Path

import pandas as pd
from upstream import upstream_python

TOOLS = Path(__file__).resolve().parent.parent / "tools"
_spec = importlib.util.spec_from_file_location("object_strings", TOOLS / "object_strings.py")
_object_strings = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_object_strings)


def _run(args: list[str]) -> None:
    result = subprocess.run([upstream_python(), *args], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "PYTHONPATH": ""})
    if result.returncode != 0:
        raise AssertionError(f"{args[0]} failed:\n{result.stderr}")


def tbparse_frames(logdir, **kwargs) -> dict:
    """{event type: tbparse's DataFrame (or its error text)} for scalars/tensors/histograms/text/hparams."""
    kwargs = {k: sorted(v) if isinstance(v, set) else v for k, v in kwargs.items()}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "frames.pkl")
        _run([str(TOOLS / "tbparse_dump.py"), str(logdir), out, json.dumps(kwargs)])
        with open(out, "rb") as f:
            return pickle.load(f)


def write_peer_logs(mode: str, logdir) -> None:
    """Writes `logdir` with tensorboardX ('tbx'), torch.utils.tensorboard ('torch') or upstream's v1 *_pb ('v1')."""
    write_peer_logdirs([(mode, logdir)])


def write_peer_logdirs(pairs) -> None:
    """write_peer_logs for each (mode, logdir) of `pairs`, all in one interpreter (torch is imported once)."""
    _run([str(TOOLS / "write_peer_logs.py"), *(str(item) for pair in pairs for item in pair)])


def normalized(frame: pd.DataFrame) -> pd.DataFrame:
    """String columns as object: pandas picks pyarrow- or python-backed strings by what is installed."""
    return _object_strings.object_strings(frame)


def assert_same(ours: pd.DataFrame, theirs) -> None:
    assert isinstance(theirs, pd.DataFrame), theirs
    pd.testing.assert_frame_equal(normalized(ours), normalized(theirs), check_index_type=False)
