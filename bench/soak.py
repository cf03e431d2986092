"""Soak test: millions of scalars through one SummaryWriter with flat memory and a complete file.

Usage: python bench/soak.py [--events 10000000] [--logdir DIR] [--upstream-sample N] [--keep]
Prints one JSON line: events written, seconds, events/s, peak RSS sampled every 0.2 s during
the run (and its growth past the first 10 % of the run), file size, events read back by our
reader, and (with --upstream-sample) how many events upstream TensorBoard read from the
first N MB of a copy of the file. Not a unit test: `make bench` runs it.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import SOURCE, peer_env, python_of  # noqa: E402  (bench/envs.py)
from memory import rss_bytes  # noqa: E402

sys.path.insert(0, SOURCE)
import tensorboard  # noqa: E402
from tensorboard import reader  # noqa: E402
from tensorboard.events import record, scan  # noqa: E402


class RssSampler(threading.Thread):
    """Samples RSS every `interval` seconds; `samples` is [(fraction of the run done, rss)]."""

    def __init__(self, progress, interval: float = 0.2):
        super().__init__(daemon=True)
        self.progress = progress
        self.interval = interval
        self.samples: list[tuple[float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(self.interval):
            self.samples.append((self.progress(), rss_bytes()))


TAG = "loss"


def count_records(path: str) -> int:
    """Records in a file, CRC-checked (faster than parsing every Event)."""
    with open(path, "rb") as f:
        return sum(1 for _ in scan.read_records(f, path))


def records_before_scalars(path: str) -> int:
    """The records ahead of the first TAG scalar: the file version and the run metadata our writer logs."""
    for index, event in enumerate(reader.read_events(path)):
        if any(value.tag == TAG for value in event.summary.value):
            return index
    return 0


def upstream_sample(path: str, megabytes: int) -> int | None:
    """Events upstream TensorBoard reads from the first `megabytes` MB of `path` (cut at a record boundary)."""
    python = python_of("peers")
    if not os.path.exists(python):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        limit = megabytes << 20
        size = 0
        with open(path, "rb") as f:
            for rec in scan.read_records(f, path):
                end = rec.offset + record.HEADER_SIZE + len(rec.payload) + record.FOOTER_SIZE
                if end > limit:
                    break
                size = end
        with open(path, "rb") as src, open(os.path.join(tmp, os.path.basename(path)), "wb") as dst:
            dst.write(src.read(size))
        code = ("import sys; from tensorboard.backend.event_processing import event_file_loader as l; "
                "print(sum(1 for _ in l.RawEventFileLoader(sys.argv[1]).Load()))")
        out = subprocess.run([python, "-c", code, os.path.join(tmp, os.path.basename(path))], capture_output=True,
                             text=True, timeout=3600, env=peer_env())
        return int(out.stdout) if out.returncode == 0 else None


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--logdir", default=None)
    parser.add_argument("--upstream-sample", type=int, default=0, metavar="MB")
    parser.add_argument("--read-with", choices=["records", "events"], default="events",
                        help="count with our Event reader (default) or by records only")
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args(argv)
    logdir = args.logdir or tempfile.mkdtemp(prefix="tb-soak-")
    done = [0]
    sampler = RssSampler(lambda: done[0] / args.events)
    rss_start = rss_bytes()
    writer = tensorboard.SummaryWriter(logdir)
    sampler.start()
    start = time.perf_counter()
    add = writer.add_scalar
    for i in range(args.events):
        add(TAG, 1.0 / (i + 1), i)
        if i & 0xFFFF == 0:
            done[0] = i
    writer.close()
    seconds = time.perf_counter() - start
    sampler.stop.set()
    sampler.join()
    files = sorted(str(p) for p in Path(logdir).iterdir() if "tfevents" in p.name)
    path = files[-1]
    read_start = time.perf_counter()
    if args.read_with == "events":
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            read_back = sum(1 for e in reader.read_events(path) if e.summary.value and e.summary.value[0].tag == TAG)
    else:
        read_back = count_records(path) - records_before_scalars(path)
    read_seconds = time.perf_counter() - read_start
    warm = [rss for fraction, rss in sampler.samples if fraction >= 0.1] or [rss_bytes()]
    result = {
        "bench": "soak", "events": args.events, "seconds": round(seconds, 2),
        "events_per_second": round(args.events / seconds), "rss_start_mb": round(rss_start / 2**20, 1),
        "rss_peak_mb": round(max([r for _, r in sampler.samples] or [rss_bytes()]) / 2**20, 1),
        "rss_growth_after_10pct_mb": round((max(warm) - min(warm)) / 2**20, 1), "rss_samples": len(sampler.samples),
        "file_mb": round(os.path.getsize(path) / 2**20, 1), "read_back": read_back,
        "read_seconds": round(read_seconds, 1), "complete": read_back == args.events,
    }
    if args.upstream_sample:
        result["upstream_sample_mb"] = args.upstream_sample
        result["upstream_events_in_sample"] = upstream_sample(path, args.upstream_sample)
    if not args.keep and args.logdir is None:
        shutil.rmtree(logdir, ignore_errors=True)
    print(json.dumps(result), flush=True)
    return result


if __name__ == "__main__":
    sys.exit(0 if main()["complete"] else 1)
