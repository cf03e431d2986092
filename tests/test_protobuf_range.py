"""The logger works on the floor of the protobuf range we declare (6.31.1) as well as on the newest.

The generated modules come from protoc 31.1 (gencode 6.31.1); this runs a writer in a
venv pinned to protobuf 6.31.1 and has upstream TensorBoard read the result.
"""
import json
import os
import subprocess
import textwrap

import pytest
from upstream import REPO, upstream_run

FLOOR_PYTHON = REPO / ".venv-protobuf-floor" / "bin" / "python"

SCRIPT = textwrap.dedent("""
    import json, sys, warnings
    warnings.simplefilter("error")  # a gencode/runtime mismatch warning fails the run
    import google.protobuf
    import numpy as np
    import tensorboard
    from tensorboard import reader
    logdir = sys.argv[1]
    with tensorboard.SummaryWriter(logdir) as w:
        for i in range(50):
            w.add_scalar("loss", 1.0 / (i + 1), i)
        w.add_histogram("weights", np.linspace(-1, 1, 1000), 0)
        w.add_image("img", np.zeros((3, 8, 8), dtype=np.uint8), 0)
        w.add_text("note", "hello", 0)
    count = sum(1 for _ in reader.read_logdir(logdir))
    print(json.dumps({"protobuf": google.protobuf.__version__, "events": count}))
""")


def test_writer_on_protobuf_floor(tmp_path):
    if not FLOOR_PYTHON.exists():
        pytest.fail(f"{FLOOR_PYTHON} missing: run `bash tools/test_envs.sh`")
    result = subprocess.run([str(FLOOR_PYTHON), "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True,
                            timeout=300, env={**os.environ, "PYTHONPATH": str(REPO / "python")})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["protobuf"] == "6.31.1"
    assert report["events"] == 1 + 50 + 3
    view = upstream_run(tmp_path)
    assert len(view["scalars"]["loss"]) == 50
    assert sum(view["histograms"]["weights"][0][1]["bucket"]) == 1000
    assert view["images"]["img"][0][1:3] == [8, 8]
