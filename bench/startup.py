"""Renderer start-up time and footprint: our installed wheel vs upstream `tensorboard==2.21.0`.

Start-up = from spawning `<env>/bin/tensorboard --logdir D --port P --host 127.0.0.1` to the
first 200 answer of `/data/plugins_listing`. Ours is `.venv` (the wheel `make install` put
there), upstream is `.venv-upstream` (`pip install tensorboard==2.21.0`, tools/test_envs.sh).
Both get the same flags and the same small logdir; each is started once untimed (so both
have their bytecode caches), then `--reps` times, alternating. Target: median ratio <= 1.1.

Also `import tensorboard` in each environment: the cumulative time Python's `-X importtime`
reports for the `tensorboard` package, median of --import-reps fresh interpreters, alternating
(target: ours no slower than upstream's, ratio <= 1.0).

Also reports the wheel's size and both distributions' installed footprint (the files their
RECORD lists, bytecode included; dependencies excluded). Prints one JSON line last.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import REPO, server_env, use_tests_harness, venv_dir  # noqa: E402  (bench/envs.py)
from logdirs import ScalarRun, write_scalar_runs  # noqa: E402
from page_cache import warm  # noqa: E402

use_tests_harness()
from waiting import free_port, stop_group  # noqa: E402  (tests/waiting.py: the tests' harness)

TARGET_RATIO = 1.1
IMPORT_TARGET_RATIO = 1.0
DEADLINE_S = 180.0  # guards against a hang only

FOOTPRINT = """
import json, os, sys
from importlib import metadata
dist = metadata.distribution(sys.argv[1])
total = count = 0
for f in dist.files or []:
    p = f.locate()
    if os.path.isfile(p):
        total += os.path.getsize(p)
        count += 1
print(json.dumps({"bytes": total, "files": count, "version": dist.version}))
"""


def clean_env() -> dict:
    """No virtualenv activation and no PYTHONPATH: the launcher must stand on its own."""
    env = server_env()
    env.pop("PYTHONHOME", None)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p)
    return env


def answers(url: str) -> bool:
    """True once `url` answers 200."""
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status == 200
    except OSError:
        return False


def time_startup(launcher: str, logdir: str, workdir: str) -> float:
    """Seconds from spawning `launcher` to its first plugins_listing answer; stops it afterwards."""
    port = free_port()
    cmd = [launcher, "--logdir", logdir, "--port", str(port), "--host", "127.0.0.1"]
    url = f"http://127.0.0.1:{port}/data/plugins_listing"
    warm(logdir)
    with open(os.path.join(workdir, f"server-{port}.log"), "wb") as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=workdir, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=clean_env(), start_new_session=True)
    try:
        while not answers(url):
            if proc.poll() is not None:
                raise RuntimeError(f"{launcher} exited with {proc.returncode}; see {log.name}")
            if time.perf_counter() - t0 > DEADLINE_S:
                raise RuntimeError(f"{launcher} did not answer within {DEADLINE_S:.0f} s")
            time.sleep(0.01)
        return time.perf_counter() - t0
    finally:
        stop_group(proc)


def time_import(python: str, workdir: str) -> float:
    """Seconds `import tensorboard` takes in a fresh interpreter (cumulative, from -X importtime)."""
    out = subprocess.run([python, "-X", "importtime", "-c", "import tensorboard"], cwd=workdir, env=clean_env(),
                         capture_output=True, text=True, check=True).stderr
    line = next(ln for ln in reversed(out.splitlines()) if ln.rstrip().endswith("| tensorboard"))
    return int(line.split("|")[1]) / 1e6


def footprint(python: str, dist: str) -> dict:
    """Installed size of distribution `dist` in the environment of `python`."""
    out = subprocess.run([python, "-c", FOOTPRINT, dist], capture_output=True, text=True, env=clean_env(), check=True)
    return json.loads(out.stdout)


def write_logdir(path: str) -> None:
    """A small run (100 scalars) written with our logger from the source tree."""
    write_scalar_runs(path, [ScalarRun("run", ["loss"], ([1.0 / (step + 1)] for step in range(100)))])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=9, help="timed starts per launcher (after one untimed start)")
    parser.add_argument("--import-reps", type=int, default=21, help="fresh interpreters per `import tensorboard`")
    parser.add_argument("--ours", default=venv_dir("ours"), help="environment with our wheel")
    parser.add_argument("--upstream", default=venv_dir("peers"),
                        help="environment with upstream tensorboard==2.21.0")
    args = parser.parse_args(argv)

    launchers = {"ours": os.path.join(args.ours, "bin", "tensorboard"),
                 "upstream": os.path.join(args.upstream, "bin", "tensorboard")}
    for name, path in launchers.items():
        if not os.access(path, os.X_OK):
            print(json.dumps({"error": f"{name} launcher {path} missing (make install; tools/test_envs.sh)"}))
            return 1

    result: dict = {}
    with tempfile.TemporaryDirectory(prefix="tb-startup-") as tmp:
        logdir = os.path.join(tmp, "logs")
        write_logdir(logdir)
        times: dict = {name: [] for name in launchers}
        for name, path in launchers.items():
            time_startup(path, logdir, tmp)  # untimed: bytecode caches, the launcher's files in the page cache
        for rep in range(args.reps):
            order = list(launchers) if rep % 2 == 0 else list(reversed(launchers))
            for name in order:
                seconds = time_startup(launchers[name], logdir, tmp)
                times[name].append(seconds)
                print(f"  startup rep {rep + 1} {name:8s} {seconds:6.2f} s", flush=True)
        pythons = {name: os.path.join(os.path.dirname(path), "python") for name, path in launchers.items()}
        imports: dict = {name: [] for name in pythons}
        for name, python in pythons.items():
            time_import(python, tmp)  # untimed: bytecode caches
        for rep in range(args.import_reps):
            for name in (list(pythons) if rep % 2 == 0 else list(reversed(pythons))):
                imports[name].append(time_import(pythons[name], tmp))
    for name, values in imports.items():
        result[f"{name}_import_ms"] = round(statistics.median(values) * 1e3, 2)
    result["import_ratio"] = round(result["ours_import_ms"] / result["upstream_import_ms"], 3)
    result["import_target"] = IMPORT_TARGET_RATIO
    for name, values in times.items():
        result[f"{name}_startup_s"] = round(statistics.median(values), 3)
        result[f"{name}_startup_runs_s"] = [round(v, 3) for v in values]
    result["startup_ratio"] = round(result["ours_startup_s"] / result["upstream_startup_s"], 3)
    result["startup_target"] = TARGET_RATIO
    result["target_met"] = (result["startup_ratio"] <= TARGET_RATIO
                            and result["import_ratio"] <= IMPORT_TARGET_RATIO)

    wheels = sorted(glob.glob(os.path.join(REPO, "dist", "tensorboard-*+standalone*.whl")))
    if wheels:
        result["wheel_mb"] = round(os.path.getsize(wheels[-1]) / 1e6, 2)
    ours = footprint(os.path.join(args.ours, "bin", "python"), "tensorboard")
    upstream = footprint(os.path.join(args.upstream, "bin", "python"), "tensorboard")
    result["installed_mb"] = round(ours["bytes"] / 1e6, 2)
    result["installed_files"] = ours["files"]
    result["upstream_installed_mb"] = round(upstream["bytes"] / 1e6, 2)
    result["upstream_version"] = upstream["version"]
    print(f"startup: ours {result['ours_startup_s']:.2f} s, upstream {result['upstream_startup_s']:.2f} s, "
          f"ratio {result['startup_ratio']:.2f} (target <= {TARGET_RATIO}); import tensorboard: ours "
          f"{result['ours_import_ms']} ms, upstream {result['upstream_import_ms']} ms, "
          f"ratio {result['import_ratio']:.2f} "
          f"(target <= {IMPORT_TARGET_RATIO}); wheel {result.get('wheel_mb')} MB, "
          f"installed {result['installed_mb']} MB (upstream {result['upstream_installed_mb']} MB)")
    print(json.dumps(result))
    return 0 if result["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
