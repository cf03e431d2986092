"""Where each benchmark measurement runs: the interpreters of the three environments and the environment
variables a child process gets, in one place.

Our package and upstream TensorBoard share the import name `tensorboard`, so a peer (tensorboardX,
torch.utils.tensorboard, EventAccumulator, tbparse, tensorboard-reducer) runs in `.venv-upstream` with our
source tree kept off its path, and ours runs with `PYTHONPATH=<repo>/python`, so that the source tree is
what is measured, not an installed wheel. MXNet has a venv of its own (`.venv-mxnet`). Also the one place
that runs a measurement in a fresh process and keeps the JSON line it prints last (`run_json`).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Literal

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
SOURCE = os.path.join(REPO, "python")  # the source tree's package: what "ours" measures
TESTS = os.path.join(REPO, "tests")  # the tests' harness (free_port, the S3 test server), shared with bench/

Venv = Literal["ours", "peers", "mxnet"]
VENV_DIRS: dict[Venv, str] = {"ours": ".venv", "peers": ".venv-upstream", "mxnet": ".venv-mxnet"}


def byte_compile_source() -> None:
    """Writes the bytecode of the source tree's package and of the launcher, as pip does when it installs the
    wheel: what a user's server and scripts load. Without it, an environment with PYTHONDONTWRITEBYTECODE
    (CI's, this sandbox's) would compile every module of ours again at each start (0.13 s of a 1,000-run
    server's first load), while upstream's installed modules load their bytecode. Quick when up to date."""
    import compileall  # pylint: disable=import-outside-toplevel

    for tree in (SOURCE, os.path.join(REPO, "tools", "launcher"), os.path.join(TESTS, "serving")):
        compileall.compile_dir(tree, quiet=1, workers=1)


byte_compile_source()  # every bench imports this module first


def use_tests_harness() -> None:
    """Makes the tests' harness importable (`waiting`, `reader.slow_s3`): tests/ goes last on sys.path, so
    that no module of tests/ shadows one of bench/."""
    if TESTS not in sys.path:
        sys.path.append(TESTS)


def venv_dir(venv: Venv) -> str:
    """The directory of one of the benchmarks' environments."""
    return os.path.join(REPO, VENV_DIRS[venv])


def python_of(venv: Venv) -> str:
    """The interpreter of one of the benchmarks' environments (which may be missing: callers check)."""
    return os.path.join(venv_dir(venv), "bin", "python")


def ours_env(*extra_paths: str, tree: str = SOURCE, threads: int | None = None) -> dict[str, str]:
    """This process's environment with PYTHONPATH set to `tree` (by default the source tree's package) and
    `extra_paths`, nothing else, so that nothing shadows what is measured; OMP_NUM_THREADS=`threads` when
    given."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tree, *extra_paths])}
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


def peer_env(threads: int | None = None) -> dict[str, str]:
    """This process's environment for a peer in `.venv-upstream`: PYTHONPATH removed (our python/ would shadow
    upstream's `tensorboard`) and no user site-packages; OMP_NUM_THREADS=`threads` when given."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONNOUSERSITE"] = "1"
    if threads is not None:
        env["OMP_NUM_THREADS"] = str(threads)
    return env


def server_env() -> dict[str, str]:
    """For a launcher that must stand on its own venv: no PYTHONPATH and no activated virtualenv."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}


PEERS = ("tbx", "torch", "ea", "tbparse")  # the libraries of .venv-upstream, by the benches' names for them


def env_for(lib: str) -> tuple[str, dict[str, str]]:
    """(interpreter, environment) of a library: a peer (PEERS) in `.venv-upstream`; ours, and what runs on our
    core (torch-ours, the reference rows), with this interpreter on the source tree."""
    if lib in PEERS:
        return python_of("peers"), peer_env()
    return sys.executable, ours_env()


def last_json(output: str) -> dict | None:
    """The last line of `output` that parses as a JSON object, or None."""
    for line in reversed(output.splitlines()):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict):
            return value
    return None


def error_tail(proc: subprocess.CompletedProcess, lines: int = 3) -> str:
    """The last `lines` lines a failed child printed (its stderr, else its stdout), joined with " | "."""
    text = (proc.stderr or proc.stdout or "").strip()
    return " | ".join(text.splitlines()[-lines:]) or f"exit {proc.returncode}"


def run_json(cmd: list[str], env: dict[str, str], timeout: float, cwd: str | None = None) -> dict:
    """Runs one measurement in a fresh process and returns the JSON line it printed last, or
    {"error": the tail of its output} when it failed, timed out or printed none."""
    try:
        proc = subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    result = last_json(proc.stdout) if proc.returncode == 0 else None
    return result if result is not None else {"error": error_tail(proc)}

