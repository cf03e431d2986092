"""Serving a large logdir: the `tensorboard` command on each data path, side by side.

A logdir of --runs runs x 1,000 scalars (one tag, written by our logger) is served by the launcher
(tools/launcher/main.py from the source tree, via tests/serving/run_launcher.py, with the renderer
of the wheel installed in .venv) with `--data_provider=native` (upstream's native data server),
`--data_provider=multiplexer` (upstream's Python loader, EventMultiplexer) and
`--data_provider=standalone` (our reader); and, for reference (not a goal), by upstream's own
`tensorboard` command from .venv-upstream (its launcher and its Rust data server: what users of
upstream's package run). Per path, in a fresh server:

* **load**: from spawning the server until the last run's scalars are served complete (1,000 points)
  and every run is listed with its tag (bench/serving.Readiness: the cheap request every 50 ms, the
  listing of every run only once that holds, each poll a small share of the server's time);
* **peak memory**: the largest summed proportional set size (PSS) of the server's process tree (the
  native data server is a child process; our readers are forked from the server and share its pages,
  which summed RSS would count once per process), sampled every 0.2 s, and every 50 ms once loaded;
  the peak summed RSS, sampled every 50 ms, is kept too;
* **reload**: after 1,000 new points are appended to one run's file (a run being written: each append
  follows the last), the time until they are served (--reload_interval 1: a server that reads new
  bytes only at its reloads waits up to 1 s for the next one); the median of 5.

Also, in process, our reader's full read of the logdir against a reload after those 1,000 points.
Targets: ours >= 20x faster than the Python loader and <= 1/4 of its peak memory (1,000 runs); the first
load in at most half the native server's time at 1,000 runs and three quarters at 10,000 (LOAD_GOALS);
at every size no more time and no more peak memory than the native server, and the appended points served no later
than the native server serves them. `--runs 1000 10000` adds 10,000 runs, where ours must grow no
faster than linearly (the Python loader is skipped there unless --with-multiplexer: it takes many
minutes). Prints one JSON line last.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import SOURCE, TESTS, python_of, server_env, use_tests_harness  # noqa: E402  (bench/envs.py)
from logdirs import ScalarRun, write_scalar_runs  # noqa: E402
from page_cache import ColdReads, warm  # noqa: E402

use_tests_harness()
from waiting import free_port, stop_group  # noqa: E402  (tests/waiting.py: the tests' harness)

LAUNCHER = os.path.join(TESTS, "serving", "run_launcher.py")
POINTS = 1000
TAG = "loss"
SPEED_TARGET = 20.0  # ours vs the Python loader
NATIVE_TARGET = 1.0  # ours / native, at most: time and peak memory (PSS), at every size
LOAD_GOALS = {1000: 0.5, 10000: 0.75}  # ours / native first-load time, at most, at these sizes (others: NATIVE_TARGET)
MEMORY_TARGET = 0.25  # ours / the Python loader, at most
LINEAR_SLACK = 1.25  # 10x the runs may cost up to 12.5x the time or memory
RELOADS = 5  # appends timed per server (their median)
DEADLINE_S = 3600  # guards against a hang only
UPSTREAM = "upstream"  # upstream's own `tensorboard` command (reported beside the goals, not a goal)
PATHS = (UPSTREAM, "native", "multiplexer", "standalone")
POLL_S = 0.05  # the readiness poll's period (bench/serving.Readiness)
WARM_UP_RUNS = 10  # the server started before each timed one reads this many runs (its time: the start-up)
MEMORY_EVERY_S = 0.05  # peak memory's sampling period while loading


def write_logdir(path: str, runs: int) -> None:
    """`runs` runs of POINTS scalars each, by our logger (source tree)."""
    write_scalar_runs(path, (ScalarRun("run_%05d" % r, [TAG], ([1.0 / (step + 1 + r)] for step in range(POINTS)))
                             for r in range(runs)), max_queue=POINTS + 10)


def _get(url: str):
    try:
        with urllib.request.urlopen(url, timeout=600) as resp:
            return json.loads(resp.read())
    except (OSError, ValueError):
        return None


def _tree(pid: int) -> set[int]:
    """`pid` and its descendants."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                parents[int(entry)] = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
    tree, frontier = {pid}, {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - tree
        tree |= frontier
    return tree


def _summed(tree: set[int], path: str, field: str) -> int:
    """The sum of a kB `field` of /proc/<pid>/`path` over `tree`, in bytes."""
    total = 0
    for p in tree:
        try:
            with open("/proc/%d/%s" % (p, path)) as f:
                for line in f:
                    if line.startswith(field):
                        total += int(line.split()[1]) * 1024
                        break
        except (OSError, ValueError, IndexError):
            continue
    return total


class Memory:
    """Peak summed RSS (sampled every call: cheap) and peak summed PSS (every PSS_EVERY-th call: reading
    smaps_rollup takes each process's memory map lock, which slows a process that is allocating) of a
    process tree. PSS splits each page among the processes sharing it: a reader forked from the server
    shares the server's pages, which summed RSS counts once per process."""

    PSS_EVERY = 4

    def __init__(self, pid: int):
        self.pid, self.calls, self.rss, self.pss = pid, 0, 0, 0

    def sample(self, pss: bool = False) -> None:
        tree = _tree(self.pid)
        self.rss = max(self.rss, _summed(tree, "status", "VmRSS:"))
        if pss or self.calls % self.PSS_EVERY == 0:
            self.pss = max(self.pss, _summed(tree, "smaps_rollup", "Pss:"))
        self.calls += 1


def _scalars(url: str, run: str):
    return _get(url + "/data/plugin/scalars/scalars?" + urllib.parse.urlencode({"run": run, "tag": TAG}))


class Readiness:
    """When a server has loaded the logdir: the last run's scalars served complete, then every run listed
    with its tag. The first is a request about one run, cheap on every path, asked every POLL_S; the
    listing of every run (tens of milliseconds of the server's time at 1,000 runs, and more on the native
    path) is asked only once the first holds, and again after a pause as long as it took, so that polling
    costs the server a bounded share of its time and the load is seen within POLL_S of its end."""

    def __init__(self, url: str, runs: list[str], points: int):
        self.url, self.runs, self.points = url, runs, points
        self.last_complete = False
        self._pause = POLL_S

    def loaded(self) -> bool:
        if not self.last_complete:
            served = _scalars(self.url, self.runs[-1])
            self.last_complete = served is not None and len(served) == self.points
            if not self.last_complete:
                self._pause = POLL_S
                return False
        asked = time.perf_counter()
        tags = _get(self.url + "/data/plugin/scalars/tags")
        self._pause = max(POLL_S, time.perf_counter() - asked)
        return tags is not None and len(tags) >= len(self.runs) and all(TAG in tags.get(run, {}) for run in self.runs)

    def pause(self) -> float:
        """Seconds until the next poll."""
        return self._pause


def command(path: str, python: str) -> list[str]:
    """The command serving on `path` (PATHS), before its --logdir: our launcher with that data path, or
    for "upstream", upstream's own `tensorboard` (.venv-upstream: its launcher, its Rust data server)."""
    if path == UPSTREAM:
        return [python_of("peers"), "-m", "tensorboard.main", "--load_fast=true"]
    return [python, LAUNCHER, "--data_provider=" + path]


def serve(path: str, logdir: str, runs: list[str], python: str, workdir: str, flags: tuple[str, ...] = (),
          reloads: int = RELOADS, points: int = POINTS) -> dict:
    """Start a server on `path` (with `flags`), time the complete load (every run listed, the last one's
    `points` scalars of TAG served) and `reloads` reloads, and stop it."""
    port = free_port()
    url = "http://127.0.0.1:%d" % port
    env = server_env()
    log = open(os.path.join(workdir, "%s.log" % path), "wb")
    warm(logdir)
    cold = ColdReads()
    start = time.perf_counter()
    proc = subprocess.Popen([*command(path, python), "--logdir", logdir, "--port", str(port), "--reload_interval", "1",
                             *flags], stdout=log, stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env, start_new_session=True, cwd=workdir)
    memory = Memory(proc.pid)
    result: dict = {}
    try:
        readiness = Readiness(url, runs, points)
        next_sample = 0.0
        while True:
            now = time.perf_counter()
            if now >= next_sample:
                memory.sample()
                next_sample = now + MEMORY_EVERY_S
            if proc.poll() is not None:
                raise RuntimeError("%s server exited:\n%s" % (path, open(log.name, errors="replace").read()[-2000:]))
            if readiness.loaded():
                result["load_s"] = round(time.perf_counter() - start, 3)
                result["cold_pages"] = cold.pages()
                break
            if now - start > DEADLINE_S:
                raise RuntimeError("%s server never served the logdir" % path)
            time.sleep(readiness.pause())
        for _ in range(10):  # what it holds once loaded, settled
            memory.sample(pss=True)
            time.sleep(0.05)
        result["peak_pss_mib"] = round(memory.pss / 2**20, 1)
        result["peak_rss_mib"] = round(memory.rss / 2**20, 1)
        if reloads:  # the median of `reloads` appends: each waits until the server reads the new bytes
            times = [_reload(url, logdir, runs[0], proc) for _ in range(reloads)]
            result["reload_s"] = round(statistics.median(times), 3)
        first = _scalars(url, runs[len(runs) // 2])
        result["complete"] = first is not None and len(first) == points
    finally:
        stop_group(proc)
        log.close()
    return result


_APPENDED = {}


def _append_points(logdir: str, run: str, first_step: int) -> None:
    """POINTS more scalar events at the end of the run's event file (as a live writer appends them)."""
    sys.path.insert(0, SOURCE)
    from tensorboard.events.record import frame
    from tensorboard.src import event_pb2

    directory = os.path.join(logdir, run)
    (name,) = [f for f in os.listdir(directory) if "tfevents" in f]
    chunks = []
    for step in range(first_step, first_step + POINTS):
        event = event_pb2.Event(step=step, wall_time=time.time())
        event.summary.value.add(tag=TAG, simple_value=float(step))
        chunks.append(frame(event.SerializeToString()))
    with open(os.path.join(directory, name), "ab") as f:
        f.write(b"".join(chunks))


def _reload(url: str, logdir: str, run: str, proc) -> float:
    first_step = _APPENDED.get(run, POINTS)
    _APPENDED[run] = first_step + POINTS
    _append_points(logdir, run, first_step)
    start = time.perf_counter()
    want = first_step + POINTS - 1
    while time.perf_counter() - start < DEADLINE_S:
        points = _scalars(url, run)
        if points and points[-1][1] == want:
            return round(time.perf_counter() - start, 3)
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise RuntimeError("the appended points were never served")


def in_process(logdir: str, runs: list[str]) -> dict:
    """Our reader's full read of the logdir vs a reload after POINTS new points in one run."""
    sys.path.insert(0, SOURCE)
    from tensorboard.serving.ingester import size_guidance
    from tensorboard.serving.served_logdir import Logdir

    sizes, default = size_guidance(None)
    store = Logdir({logdir: None}, sizes, default)
    start = time.perf_counter()
    store.reload()
    full = time.perf_counter() - start
    first_step = _APPENDED.get(runs[0], POINTS)
    _APPENDED[runs[0]] = first_step + POINTS
    _append_points(logdir, runs[0], first_step)
    start = time.perf_counter()
    store.reload()
    again = time.perf_counter() - start
    return {"full_read_s": round(full, 3), "reload_after_append_s": round(again, 4)}


def measure(runs: int, paths: list[str], python: str, reps: int = 1) -> dict:
    """Every path on one logdir of `runs` runs, `reps` fresh servers each (the paths alternating, so that a
    busy moment hits all of them; the reloads timed in the first), then our reader in process. A path's
    row: the median load, the largest peak memory."""
    tmp = tempfile.mkdtemp(prefix="bench-serving-")
    result: dict = {"runs": runs, "points_per_run": POINTS, "reps": reps}
    try:
        logdir = os.path.join(tmp, "logs")
        start = time.perf_counter()
        write_logdir(logdir, runs)
        result["write_s"] = round(time.perf_counter() - start, 2)
        result["logdir_mb"] = round(sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(logdir)
                                        for f in fs) / 1e6, 1)
        names = sorted(os.listdir(logdir))
        small = os.path.join(tmp, "warm-up")
        write_logdir(small, WARM_UP_RUNS)
        served: dict[str, list[dict]] = {path: [] for path in paths}
        started: dict[str, list[float]] = {path: [] for path in paths}
        for rep in range(reps):
            for path in paths:
                # First, on a few runs: the path's own program files (interpreter modules, the native binary)
                # back in the page cache, whatever the previous path's load let the host page out. Its time is
                # the path's start-up, what any load of any logdir costs at least.
                started[path].append(serve(path, small, sorted(os.listdir(small)), python, tmp, reloads=0)["load_s"])
                served[path].append(serve(path, logdir, names, python, tmp, reloads=RELOADS if rep == 0 else 0))
        for path in paths:
            row = result[path] = _row_of(served[path])
            row["startup_s"] = min(started[path])  # the least disturbed start: what a load costs at least
            row["startups_s"] = started[path]
            print("%d runs, %s: load %.2f s (%s), peak memory %.0f MiB (PSS; RSS %.0f MiB), new points served after "
                  "%.2f s, start-up %.2f s" % (runs, path, row["load_s"], ", ".join("%.2f" % t for t in row["loads_s"]),
                                               row["peak_pss_mib"], row["peak_rss_mib"], row["reload_s"],
                                               row["startup_s"]), flush=True)
        result["standalone_in_process"] = in_process(logdir, names)
        print("%d runs, standalone in process: full read %.2f s, reload after 1,000 new points %.4f s" % (
            runs, result["standalone_in_process"]["full_read_s"],
            result["standalone_in_process"]["reload_after_append_s"]), flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    ours = result.get("standalone")
    if ours and "multiplexer" in result:
        result["speedup_vs_multiplexer"] = round(result["multiplexer"]["load_s"] / ours["load_s"], 1)
        result["memory_vs_multiplexer"] = round(ours["peak_pss_mib"] / result["multiplexer"]["peak_pss_mib"], 3)
    if ours and "native" in result:
        result["ratio_vs_native"] = round(ours["load_s"] / result["native"]["load_s"], 2)
        result["ratio_goal"] = LOAD_GOALS.get(runs, NATIVE_TARGET)
        result["memory_vs_native"] = round(ours["peak_pss_mib"] / result["native"]["peak_pss_mib"], 2)
        result["reload_vs_native"] = round(ours["reload_s"] / result["native"]["reload_s"], 2)
    if ours and UPSTREAM in result:  # reported, not a goal: what users of upstream's package see
        result["ratio_vs_upstream"] = round(ours["load_s"] / result[UPSTREAM]["load_s"], 2)
    result["complete"] = all(result[p].get("complete") for p in paths)
    return result


def _row_of(served: list[dict]) -> dict:
    """One path's row from its servers: the median load (each listed), the largest peaks, the first reloads."""
    loads = [row["load_s"] for row in served]
    return {"load_s": round(statistics.median(loads), 3), "loads_s": loads,
            "peak_pss_mib": max(row["peak_pss_mib"] for row in served),
            "peak_rss_mib": max(row["peak_rss_mib"] for row in served),
            "reload_s": served[0]["reload_s"], "complete": all(row["complete"] for row in served),
            "cold_pages": [row["cold_pages"] for row in served]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, nargs="+", default=[1000],
                        help="logdir sizes, in runs of 1,000 scalars (`--runs 1000 10000`: both sizes)")
    parser.add_argument("--paths", nargs="+", default=list(PATHS), choices=PATHS)
    parser.add_argument("--with-multiplexer", action="store_true",
                        help="also time upstream's Python loader above 1,000 runs (many minutes)")
    parser.add_argument("--reps", type=int, default=1, help="fresh servers per path and size (the median load)")
    parser.add_argument("--python", default=python_of("ours"),
                        help="interpreter of the environment with the wheel's renderer (and the native binary)")
    args = parser.parse_args(argv)
    sizes = {}
    for runs in args.runs:
        paths = [p for p in args.paths if (p != "multiplexer" or runs <= 1000 or args.with_multiplexer)
                 and (p != UPSTREAM or os.path.exists(python_of("peers")))]
        sizes[str(runs)] = measure(runs, paths, args.python, args.reps)
    checks = []
    for row in sizes.values():
        checks.append(row["complete"])
        if "speedup_vs_multiplexer" in row:
            checks += [row["speedup_vs_multiplexer"] >= SPEED_TARGET, row["memory_vs_multiplexer"] <= MEMORY_TARGET]
        if "ratio_vs_native" in row:
            checks += [row["ratio_vs_native"] <= row["ratio_goal"], row["memory_vs_native"] <= NATIVE_TARGET,
                       row["reload_vs_native"] <= 1.0]
    result: dict = {"sizes": sizes, "startup_runs": WARM_UP_RUNS, "targets": {"speedup_vs_multiplexer": SPEED_TARGET,
                                                 "ratio_vs_native": NATIVE_TARGET, "load_goals": LOAD_GOALS,
                                                 "memory_vs_native": NATIVE_TARGET, "reload_vs_native": 1.0,
                                                 "memory_vs_multiplexer": MEMORY_TARGET,
                                                 "growth_vs_runs": LINEAR_SLACK}}
    small, large = sizes.get("1000", {}).get("standalone"), sizes.get("10000", {}).get("standalone")
    if small and large:  # 10x the runs: at most 10x the time and memory (with some slack for noise)
        result["growth_10x_runs"] = {"load": round(large["load_s"] / small["load_s"], 2),
                                     "peak_memory": round(large["peak_pss_mib"] / small["peak_pss_mib"], 2)}
        checks += [v <= 10 * LINEAR_SLACK for v in result["growth_10x_runs"].values()]
    result["target_met"] = all(checks)
    print(json.dumps(result))
    return 0 if result["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
