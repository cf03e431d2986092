"""tools/torch_wheel.sh finds CPU torch without /opt/wheels: from a PyTorch-style CPU index, into a cache.

The index here is a local PEP 503 mirror on 127.0.0.1 serving the wheel this machine's test environments
use, so the download path runs for real (pip, the index, the cache) without the internet; pip's own
configuration and PIP_FIND_LINKS (which may point at /opt/wheels) are switched off.
"""
from __future__ import annotations

import functools
import hashlib
import http.server
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from upstream import REPO

SCRIPT = REPO / "tools" / "torch_wheel.sh"


def _run(env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT)], cwd=REPO, env={**os.environ, **env}, capture_output=True,
                          text=True, timeout=600)


@pytest.fixture(scope="module")
def the_wheel() -> Path:
    """The CPU wheel the environments were built with (the folder's, or the cache's on other machines)."""
    done = _run({})
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


@pytest.fixture
def cpu_index(tmp_path, the_wheel):
    """http://127.0.0.1:PORT/ serving /torch/ with the wheel, as PyTorch's CPU index serves it."""
    root = tmp_path / "index"
    (root / "torch").mkdir(parents=True)
    shutil.copy(the_wheel, root / "torch" / the_wheel.name)
    digest = hashlib.sha256(the_wheel.read_bytes()).hexdigest()
    href = f'{the_wheel.name.replace("+", "%2B")}#sha256={digest}'
    (root / "torch" / "index.html").write_text(f'<html><body><a href="{href}">{the_wheel.name}</a></body></html>')
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()
    thread.join()


def test_without_the_folder_it_downloads_from_the_cpu_index_once(tmp_path, cpu_index, the_wheel):
    env = {"TORCH_WHEEL_DIR": str(tmp_path / "no-such-folder"), "TORCH_INDEX_URL": cpu_index,
           "TORCH_CACHE": str(tmp_path / "cache"), "PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": ""}
    first = _run(env)
    assert first.returncode == 0, first.stderr
    got = Path(first.stdout.strip())
    assert got.parent == tmp_path / "cache" and got.name == the_wheel.name
    assert got.read_bytes() == the_wheel.read_bytes()
    assert first.stderr.strip().splitlines() == [f"torch_wheel: CPU torch 2.13.0 from {cpu_index} (cached in "
                                                 f"{tmp_path / 'cache'})"]
    again = _run({**env, "TORCH_INDEX_URL": "http://127.0.0.1:9/"})  # nothing listens there: the cache answers
    assert again.returncode == 0 and Path(again.stdout.strip()) == got, again.stderr


def test_an_index_without_the_wheel_fails_naming_both_places(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(empty))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        done = _run({"TORCH_WHEEL_DIR": str(tmp_path / "none"), "TORCH_INDEX_URL": url,
                     "TORCH_CACHE": str(tmp_path / "cache"), "PIP_CONFIG_FILE": os.devnull, "PIP_FIND_LINKS": ""})
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"torch_wheel: ERROR: no torch-2.13.0+cpu-cp311-cp311-*.whl in {tmp_path / 'none'}, and {url} did not serve it")
