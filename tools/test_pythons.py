"""The Python matrix: the core suite (writers, reader, serving, report, docs examples) on every supported
Python other than .venv's, each in its own venv (tools/matrix_envs.sh makes them).

Usage: test_pythons.py versions        the matrix's versions, space-separated
       test_pythons.py interpreter V   the path of an interpreter for Python V (PATH or pyenv), else exit 1
       test_pythons.py run [--parallel N]  the core suite in each matrix venv, N at a time (default 2); one line each
"""

from __future__ import annotations

import glob
import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SUPPORTED = ("3.10", "3.11", "3.12", "3.13")  # tools/pip_package/setup.py's classifiers say the same
CORE_SUITE = ("tests/events", "tests/values", "tests/summary", "tests/writers", "tests/logdir", "tests/stats",
              "tests/reader", "tests/report", "tests/serving", "tests/cli", "tests/plot/test_figure_content.py",
              "tests/plot/test_plot_cli.py", "tests/test_import.py",
              "tests/test_version.py", "tests/seeds/test_workflows_doc.py")
LOGS = REPO / "artifacts" / "pythons"
PARALLEL = 2  # the machines have two cores; each suite is mostly one process


def main_version() -> str:
    """The X.Y of .venv's interpreter (the full suite's)."""
    out = subprocess.run([str(REPO / ".venv" / "bin" / "python"), "-c",
                          "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True, text=True)
    return out.stdout.strip()


def versions() -> list[str]:
    """The supported versions the full suite's venv doesn't already run."""
    main = main_version()
    return [v for v in SUPPORTED if v != main]


def interpreter(version: str) -> str | None:
    """A working python<version>: from the PATH, else the newest pyenv build of it (pyenv's shims on the
    PATH answer only for the active version, so each candidate is run once)."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    builds = sorted(glob.glob(f"{root}/versions/{version}.*/bin/python{version}"),
                    key=lambda p: [int(x) for x in re.findall(r"\d+", p.split("/versions/")[1].split("/")[0])])
    for candidate in [shutil.which(f"python{version}"), *reversed(builds)]:
        if candidate and subprocess.run([candidate, "-c", "import venv"], capture_output=True).returncode == 0:
            return candidate
    return None


def venv(version: str) -> Path:
    return REPO / f".venv-py{version}"


def stated_versions_differ(todo: list[str]) -> dict[str, dict]:
    """{version: {package: (stated, installed)}} of the matrix venvs whose versions differ from the page's (the
    main suite's tests/tools/test_compat_table.py checks the other venvs; these are made beside it)."""
    spec = importlib.util.spec_from_file_location("compat_table", REPO / "tools" / "compat_table.py")
    compat_table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(compat_table)
    page = compat_table.parse((REPO / "docs" / "compatibility.md").read_text(encoding="utf-8"))
    out = {}
    for version in todo:
        name = f".venv-py{version}"
        stated, installed = page.get(name, {}), compat_table.env_versions(name)
        differences = {p: (stated.get(p), installed.get(p)) for p in set(stated) | set(installed)
                       if stated.get(p) != installed.get(p)}
        if differences:
            out[version] = differences
    return out


def _start(version: str) -> tuple[subprocess.Popen, float]:
    """Starts the core suite under `version`'s venv, its output into artifacts/pythons/."""
    LOGS.mkdir(parents=True, exist_ok=True)
    log = open(LOGS / f"py{version}.log", "w")
    temp = Path(tempfile.gettempdir()) / f"tb-matrix-py{version}"  # pytest's temporary root, its own
    temp.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "TB_STRICT": "1", "TB_MATRIX": "1", "PYTEST_DEBUG_TEMPROOT": str(temp)}
    command = [str(venv(version) / "bin" / "python"), "-m", "pytest", "-q", "-p", "no:cacheprovider", *CORE_SUITE]
    return subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT), time.monotonic()


def run(parallel: int = PARALLEL) -> int:
    """Runs the matrix, `parallel` suites at a time; prints one line per version; non-zero if any failed or if
    a venv does not hold the versions docs/compatibility.md states."""
    todo = [v for v in versions() if (venv(v) / "bin" / "python").exists()]
    for missing in sorted(set(versions()) - set(todo)):
        print(f"test_pythons: Python {missing}: no venv (no interpreter on this machine): not run")
    stale = stated_versions_differ(todo)
    for version, differences in stale.items():
        print(f"test_pythons: Python {version}: .venv-py{version} is not as docs/compatibility.md states: "
              f"{differences}")
    if stale:
        return 1
    running: dict[str, tuple[subprocess.Popen, float]] = {}
    failed = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stopped: stop the suites it started (finally)
    try:
        return _run(todo, running, failed, parallel)
    finally:
        for process, _ in running.values():
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _run(todo: list, running: dict, failed: list, parallel: int) -> int:
    while todo or running:
        while todo and len(running) < parallel:
            version = todo.pop(0)
            running[version] = _start(version)
        time.sleep(1)
        for version, (process, started) in list(running.items()):
            if process.poll() is None:
                continue
            del running[version]
            text = (LOGS / f"py{version}.log").read_text(errors="replace")
            summary = next((line.strip("= ") for line in reversed(text.splitlines()) if " in " in line), "no summary")
            print(f"test_pythons: Python {version}: {summary} ({time.monotonic() - started:.0f} s wall)")
            if process.returncode != 0:
                failed.append(version)
                print(text[-6000:])
    if failed:
        print(f"test_pythons: FAILED on Python {', '.join(failed)} (logs in {LOGS.relative_to(REPO)}/)")
    return 1 if failed else 0


def main(argv: list[str]) -> int:
    command = argv[1] if len(argv) > 1 else "run"
    if command == "versions":
        print(" ".join(versions()))
    elif command == "interpreter":
        found = interpreter(argv[2])
        if not found:
            return 1
        print(found)
    elif command == "run":
        parallel = int(argv[argv.index("--parallel") + 1]) if "--parallel" in argv else PARALLEL
        return run(parallel)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
