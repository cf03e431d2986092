"""Sweeps on object storage: reading N runs x 1,000 scalars from S3 one file at a time (the reader of
release 2.21.0+standalone.1, BASELINE_REF) against the concurrent reader (this source tree) on both of its fetch
paths (s3fs, forced with TB_OBJECT_STORE=fsspec, and obstore), a filtered read of 1 % of the runs, the partitioned
export's peak RSS against the whole-frame export's, and to_dask on a 2-worker LocalCluster.

S3 is moto's S3 WSGI app served by waitress (threaded, connections kept alive as S3 keeps them) on
127.0.0.1 in a child process (tests/reader/slow_s3.py, the tests' S3 server), behind a middleware that
sleeps --delay seconds (default 30 ms, S3's usual time to first byte) per request and counts
requests. Every measurement runs in a fresh process. Prints one JSON line (the last line).

    python bench/sweeps.py                 # 1,000 runs (~4 min, most of it the one-at-a-time read)
    python bench/sweeps.py --runs 1000 10000   # both sizes (~20 min); at 10,000 runs the one-at-a-time
                                           # read is estimated from its requests unless
                                           # --baseline-max-runs allows it
    python bench/sweeps.py --runs 100 --scalars 100   # a quick look
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import BENCH, REPO, SOURCE, ours_env, run_json, use_tests_harness  # noqa: E402  (bench/envs.py)
from logdirs import ScalarRun, write_scalar_runs  # noqa: E402
from timing import middle_run  # noqa: E402

use_tests_harness()
from reader.slow_s3 import SlowS3Process  # noqa: E402  (tests/reader/slow_s3.py: the tests' S3 server)

BUCKET = "sweeps"
TARGET_SPEEDUP = 10.0  # concurrent over one-at-a-time, from 1,000 runs
TARGET_RSS_RATIO = 0.25  # partitioned export's peak RSS growth over the whole-frame export's, from 10,000 runs
TARGET_OBSTORE_S = {1000: 2.0, 10000: 15.0}  # the concurrent read on the obstore path, seconds at most
PATHS = ("fsspec", "obstore")  # TB_OBJECT_STORE for the concurrent read: s3fs, obstore


# -- measurements (each in a fresh process) ---------------------------------------------------------

def worker(mode: str, spec: dict) -> dict:
    sys.path.insert(0, BENCH)
    import numpy  # noqa: F401  -- what every mode imports, before the clock and the RSS baseline
    import pandas  # noqa: F401
    import pyarrow.parquet  # noqa: F401
    import s3fs  # noqa: F401
    from memory import PeakRSS

    try:
        import obstore  # noqa: F401
    except ImportError:
        pass

    try:
        from tensorboard.logdir import decode  # noqa: F401  (imported before the timing, as the reader's own modules)
    except ImportError:  # the one-at-a-time reader of BASELINE_REF decodes in tensorboard.reader
        pass
    from tensorboard.reader import SummaryReader, _frames  # noqa: F401

    probe = PeakRSS()
    probe.start()
    cpu = time.process_time()
    started = time.perf_counter()
    out: dict = {}
    if mode in ("read", "filtered"):
        kwargs = {"runs": spec["runs"]} if mode == "filtered" else {}
        frame = SummaryReader(spec["url"], storage_options=spec["options"], extra_columns={"dir_name"},
                              event_types={"scalars"}, **kwargs).scalars
        out.update(rows=len(frame), run_count=int(frame["dir_name"].nunique()))
    elif mode == "export-whole":
        from tensorboard.reader import export

        export.main(["--logdir", spec["logdir"], "--out", spec["out"] + ".parquet", "--quiet"])
    elif mode == "export-partitioned":
        from tensorboard.reader import export

        export.main(["--logdir", spec["logdir"], "--out", spec["out"], "--partition", "run", "--quiet"])
    elif mode == "dask":
        import distributed

        from tensorboard.reader import to_dask

        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                      dashboard_address=None, scheduler_kwargs={"dashboard": False}) as cluster, \
                distributed.Client(cluster) as client:
            client.run(_warm)  # the workers' imports are not the reader's time either
            started = time.perf_counter()  # the cluster's start-up is not the reader's
            frame = to_dask(spec["url"], storage_options=spec["options"])
            stats = client.compute(frame.groupby("tag")["value"].agg(["count", "mean"]), sync=True)
            out.update(rows=int(stats["count"].sum()), partitions=frame.npartitions)
    out["seconds"] = time.perf_counter() - started
    out["cpu_s"] = time.process_time() - cpu  # this process's CPU, every thread
    out.update(probe.stop())
    return out


def _warm() -> None:
    import pandas  # noqa: F401
    import s3fs  # noqa: F401

    import tensorboard.reader._dask  # noqa: F401
    import tensorboard.reader.export  # noqa: F401


def measure(mode: str, spec: dict, tree: str) -> dict:
    env = ours_env(tree=tree)
    if spec.get("path"):
        env["TB_OBJECT_STORE"] = spec["path"]
    return run_json([sys.executable, __file__, "--worker", mode, json.dumps(spec)], env, 7200)


# -- the driver -------------------------------------------------------------------------------------

def write_logdir(root: str, runs: int, scalars: int) -> None:
    import numpy as np

    values = np.random.default_rng(0).random(scalars).tolist()
    write_scalar_runs(root, (ScalarRun(f"run{i:05d}", ["loss"], ([value] for value in values)) for i in range(runs)),
                      max_queue=scalars + 1)


BASELINE_REF = "6214baa"  # release 2.21.0+standalone.1, whose reader fetches one object at a time


def head_tree(workdir: str, ref: str = BASELINE_REF) -> str | None:
    """The package as of `ref` (git archive), for the one-at-a-time reader."""
    target = os.path.join(workdir, "head")
    os.makedirs(target)
    archive = subprocess.run(["git", "-C", REPO, "archive", ref, "python/tensorboard"], capture_output=True)
    if archive.returncode != 0:
        return None
    subprocess.run(["tar", "-x", "-C", target], input=archive.stdout, check=True)
    generated = os.path.join(REPO, "python", "tensorboard", "src")  # protobuf modules are built, not committed
    for name in os.listdir(generated):
        if name.endswith("_pb2.py") or name == "pool.py":  # pool.py: the descriptor pool they are built against
            shutil.copy(os.path.join(generated, name), os.path.join(target, "python", "tensorboard", "src", name))
    return os.path.join(target, "python")


def measure_size(runs: int, args, ours: str) -> dict:
    """Every measurement for a logdir of `runs` runs, on a fresh server."""
    import s3fs

    workdir = tempfile.mkdtemp(prefix="bench-sweeps-")
    server = SlowS3Process()
    import importlib.util

    default = "obstore" if importlib.util.find_spec("obstore") and os.environ.get("TB_OBJECT_STORE") != "fsspec" \
        else "fsspec"
    result: dict = {"runs": runs, "default_path": default}  # the path of the filtered read, the export and to_dask
    try:
        logdir = os.path.join(workdir, "logs")
        t = time.perf_counter()
        write_logdir(logdir, runs, args.scalars)
        result["write_s"] = time.perf_counter() - t
        fs = s3fs.S3FileSystem(**server.storage_options(fresh=False))
        server.create_bucket(BUCKET)
        fs.put(logdir + "/", f"{BUCKET}/logs/", recursive=True)
        server.control("delay", str(args.delay))
        spec = {"url": f"s3://{BUCKET}/logs", "options": server.storage_options(fresh=False), "logdir": logdir}

        def timed(mode: str, tree: str, **extra) -> dict:
            server.control("reset")
            got = measure(mode, {**spec, **extra}, tree)
            got["requests"] = server.control("reset")["requests"]
            where = BASELINE_REF if tree != ours else f"this tree, {extra.get('path') or result['default_path']}"
            print(f"# {runs} runs, {mode} ({where}): {got}", file=sys.stderr, flush=True)
            return got

        reads = {path: [] for path in PATHS}
        for _ in range(args.reps):  # the two paths alternate, each read in a fresh process
            for path in PATHS:
                reads[path].append(timed("read", ours, path=path))
        for path, label in zip(PATHS, ("new", "obstore")):
            median = middle_run(reads[path])  # the median of fresh processes: CPU-bound, it varies
            result.update({f"read_{label}_s": median.get("seconds"), f"read_{label}_requests": median["requests"],
                           f"read_{label}_rss_mb": median.get("rss_delta_mb"),
                           f"read_{label}_all_s": [r.get("seconds") for r in reads[path]]})
            if median.get("rows") != reads["fsspec"][0].get("rows"):
                result["error"] = f"row counts differ: s3fs {reads['fsspec'][0].get('rows')}, {path} " \
                                  f"{median.get('rows')}"
        new = min(reads["fsspec"], key=lambda r: r.get("seconds") or float("inf"))
        result["rows"] = new.get("rows")
        goal = TARGET_OBSTORE_S.get(runs)
        if goal is not None:
            result.update(read_obstore_goal_s=goal,
                          read_obstore_goal_met=(result.get("read_obstore_s") or float("inf")) <= goal)
        tree = head_tree(workdir) if runs <= args.baseline_max_runs else None
        if tree is not None:
            old = timed("read", tree)
            result.update(read_today_s=old.get("seconds"), read_today_requests=old["requests"],
                          read_today_measured=True)
            if old.get("rows") != new.get("rows"):
                result["error"] = f"row counts differ: one-at-a-time {old.get('rows')}, concurrent {new.get('rows')}"
        else:  # its requests are sequential: ~2 per file plus the listing, each waiting the delay at least
            result.update(read_today_s=2 * runs * args.delay, read_today_measured=False)
        if result.get("read_new_s") and result.get("read_today_s"):
            result["speedup"] = result["read_today_s"] / result["read_new_s"]
        if result.get("read_obstore_s") and result.get("read_today_s"):
            result["speedup_obstore"] = result["read_today_s"] / result["read_obstore_s"]
        filtered = timed("filtered", ours, runs="00$")
        result.update(filtered_s=filtered.get("seconds"), filtered_runs=filtered.get("run_count"),
                      filtered_requests=filtered["requests"])
        server.control("delay", "0")
        whole = measure("export-whole", {**spec, "out": os.path.join(workdir, "whole")}, ours)
        parted = measure("export-partitioned", {**spec, "out": os.path.join(workdir, "parted")}, ours)
        result.update(export_whole_s=whole.get("seconds"), export_whole_rss_mb=whole.get("rss_delta_mb"),
                      export_partitioned_s=parted.get("seconds"),
                      export_partitioned_rss_mb=parted.get("rss_delta_mb"))
        if whole.get("rss_delta_mb"):
            result["export_rss_ratio"] = parted.get("rss_delta_mb", 0) / whole["rss_delta_mb"]
        if not args.no_dask:
            server.control("delay", str(args.delay))
            dask = timed("dask", ours)
            result.update(dask_s=dask.get("seconds"), dask_rows=dask.get("rows"), dask_requests=dask["requests"],
                          dask_partitions=dask.get("partitions"), dask_error=dask.get("error"))
        errors = [m.get("error") for m in (*reads["fsspec"], *reads["obstore"], filtered, whole, parted)
                  if m.get("error")]
        if errors:
            result["error"] = errors[0]
        # the targets: the speed-up where the one-at-a-time read is measured (1,000 runs), the
        # export's RSS ratio from 10,000 runs
        speed_ok = runs < 1000 or not result.get("read_today_measured") or result.get("speedup", 0) >= TARGET_SPEEDUP
        rss_ok = runs < 10000 or result.get("export_rss_ratio", 1) <= TARGET_RSS_RATIO
        obstore_ok = result.get("read_obstore_goal_met", True)
        result["target_met"] = speed_ok and rss_ok and obstore_ok and "error" not in result
    finally:
        server.close()
        shutil.rmtree(workdir, ignore_errors=True)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, nargs="+", default=[1000],
                        help="logdir sizes in runs (`--runs 1000 10000`: both, each on a fresh server)")
    parser.add_argument("--scalars", type=int, default=1000, help="scalars per run")
    parser.add_argument("--delay", type=float, default=0.03, help="seconds the server sleeps per request")
    parser.add_argument("--baseline-max-runs", type=int, default=1000,
                        help="measure the one-at-a-time read only up to this many runs (else estimate it)")
    parser.add_argument("--reps", type=int, default=3, help="fresh-process reads of the concurrent reader (median)")
    parser.add_argument("--no-dask", action="store_true")
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker[0], json.loads(args.worker[1]))), flush=True)
        return 0

    ours = SOURCE
    sys.path.insert(0, ours)
    sizes = {str(runs): measure_size(runs, args, ours) for runs in args.runs}
    result = {"benchmark": "sweeps", "scalars_per_run": args.scalars, "delay_ms": args.delay * 1000, "reps": args.reps,
              "sizes": sizes, "target_speedup": TARGET_SPEEDUP, "target_rss_ratio": TARGET_RSS_RATIO,
              "target_obstore_s": {str(k): v for k, v in TARGET_OBSTORE_S.items()},
              "target_met": all(size["target_met"] for size in sizes.values())}
    errors = [size["error"] for size in sizes.values() if size.get("error")]
    if errors:
        result["error"] = errors[0]
    print(json.dumps(result), flush=True)
    return 0 if result["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
