"""Counts what upstream TensorBoard reads from an S3 logdir, through its own S3 file system (boto3).

Runs inside .venv-upstream (needs boto3 there); the endpoint comes from S3_ENDPOINT, as in
upstream. Usage: upstream_s3_dump.py s3://bucket/logdir. Prints {"runs": {run: {"files": {name:
events}, "scalars": {tag: [[step, wall_time, value], ...]}}}} as JSON.
"""
import json
import posixpath
import sys

from tensorboard.backend.event_processing import event_accumulator, event_file_loader, io_wrapper
from tensorboard.compat import tf


def main(logdir: str) -> None:
    runs = {}
    for run_dir in sorted(io_wrapper.GetLogdirSubdirectories(logdir)):
        name = posixpath.relpath(run_dir.rstrip("/"), logdir.rstrip("/")) if run_dir.rstrip("/") != logdir.rstrip(
            "/") else "."
        files = {}
        for path in sorted(tf.io.gfile.listdir(run_dir)):
            full = posixpath.join(run_dir, path)
            if io_wrapper.IsSummaryEventsFile(full):
                files[path] = sum(1 for _ in event_file_loader.RawEventFileLoader(full).Load())
        acc = event_accumulator.EventAccumulator(run_dir, size_guidance={event_accumulator.SCALARS: 0})
        acc.Reload()
        scalars = {tag: [[e.step, e.wall_time, e.value] for e in acc.Scalars(tag)] for tag in acc.Tags()["scalars"]}
        runs[name] = {"files": files, "scalars": scalars}
    json.dump({"runs": runs}, sys.stdout)


if __name__ == "__main__":
    main(sys.argv[1])
