"""The load probe: many clients on one server while a writer appends, with and without the token.

A logdir of RUNS runs x POINTS scalars (bench/serving.py's, by our logger) is served by the launcher
(tests/serving/run_launcher.py: the source tree's launcher on .venv's renderer) twice per repetition,
alternating: `--auth none` and `--auth token` (a token file; every request sends `Authorization: Bearer`).
Once a server serves every run, CLIENTS threads each send REQUESTS requests over a kept-alive connection
(the run list, the scalar tags, one run's scalars, in turn) while a writer appends a point to one run every
10 ms. Measured per server: requests per
second over the whole probe, and every answer that is not a 200 (an error). Goal: 0 errors on both, and with
the token at least 95% of the throughput without it (the medians of --reps). Prints one JSON line last.
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import SOURCE, server_env  # noqa: E402  (bench/envs.py)
from serving import LAUNCHER, POINTS, TAG, free_port, stop_group, write_logdir  # noqa: E402  (bench/serving.py)

RUNS = 20
CLIENTS, REQUESTS = 16, 150
THROUGHPUT_TARGET = 0.95  # token / none, at least
DEADLINE_S = 300  # guards against a hang only
TOKEN = "bench-token-0123456789abcdef"


def _get(connection: http.client.HTTPConnection, path: str, headers: dict) -> tuple[int, bytes]:
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    return response.status, response.read()


def start(logdir: str, workdir: str, auth: str) -> tuple[subprocess.Popen, int]:
    port = free_port()
    flags = ["--auth", auth] + (["--auth_token_file", os.path.join(workdir, "token")] if auth == "token" else [])
    proc = subprocess.Popen([sys.executable, LAUNCHER, "--logdir", logdir, "--port", str(port),
                             "--reload_interval", "1", *flags], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            stdin=subprocess.DEVNULL, env=server_env(), start_new_session=True, cwd=workdir)
    headers = {"Authorization": f"Bearer {TOKEN}"} if auth == "token" else {}
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            status, body = _get(connection, "/data/plugin/scalars/tags", headers)
            connection.close()
            if status == 200 and len(json.loads(body)) == RUNS:
                return proc, port
        except OSError:
            pass
        time.sleep(0.1)
    stop_group(proc)
    raise RuntimeError(f"the --auth {auth} server never served the logdir")


def probe(port: int, headers: dict, logdir: str) -> dict:
    """CLIENTS threads x REQUESTS requests while a writer appends; (requests per second, errors)."""
    paths = ["/data/runs", "/data/plugin/scalars/tags"] + [f"/data/plugin/scalars/scalars?run=run_{r:05d}&tag={TAG}"
                                                           for r in range(RUNS)]
    errors: list[str] = []
    writing = threading.Event()
    writing.set()

    def writer() -> None:
        from tensorboard import SummaryWriter

        with SummaryWriter(os.path.join(logdir, "run_00000"), flush_secs=1) as live:
            step = POINTS
            while writing.is_set():
                live.add_scalar(TAG, 0.5, step)
                step += 1
                time.sleep(0.01)

    def client(index: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        try:
            for i in range(REQUESTS):
                status, _ = _get(connection, paths[(index + i) % len(paths)], headers)
                if status != 200:
                    errors.append(f"{status} {paths[(index + i) % len(paths)]}")
        except OSError as err:
            errors.append(repr(err))
        finally:
            connection.close()

    live = threading.Thread(target=writer)
    live.start()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(CLIENTS)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    writing.clear()
    live.join()
    return {"rps": CLIENTS * REQUESTS / elapsed, "errors": errors}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=3, help="servers of each kind, alternating (default 3)")
    args = parser.parse_args(argv)
    sys.path.insert(0, SOURCE)
    rps: dict[str, list[float]] = {"none": [], "token": []}
    errors: list[str] = []
    with tempfile.TemporaryDirectory(prefix="tb-auth-load-") as workdir:
        with open(os.path.join(workdir, "token"), "w") as f:
            f.write(TOKEN + "\n")
        for _ in range(args.reps):
            for auth in ("none", "token"):
                logdir = os.path.join(workdir, f"logs-{auth}-{len(rps[auth])}")
                write_logdir(logdir, RUNS)
                proc, port = start(logdir, workdir, auth)
                try:
                    result = probe(port, {"Authorization": f"Bearer {TOKEN}"} if auth == "token" else {}, logdir)
                finally:
                    stop_group(proc)
                rps[auth].append(result["rps"])
                errors += [f"--auth {auth}: {e}" for e in result["errors"]]
    none, token = statistics.median(rps["none"]), statistics.median(rps["token"])
    out = {"clients": CLIENTS, "requests_per_client": REQUESTS, "runs": RUNS, "points": POINTS, "reps": args.reps,
           "none_rps": round(none, 1), "token_rps": round(token, 1), "ratio": round(token / none, 3),
           "each_rps": {auth: [round(r, 1) for r in runs] for auth, runs in rps.items()},
           "errors": len(errors), "first_errors": errors[:5]}
    out["target_met"] = not errors and out["ratio"] >= THROUGHPUT_TARGET
    print(json.dumps(out))
    return 0 if out["target_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
