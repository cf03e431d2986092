"""One measurement in a fresh process: `worker.py LIB WORKLOAD LOGDIR [--crc python]`, prints one JSON line.

LIB: ours | tbx | torch | torch-ours | ref-hand | ref-pre. bench/run.py starts it with the right
interpreter: ours, torch-ours and the reference rows with the main one (PYTHONPATH=<repo>/python),
tensorboardX and torch.utils.tensorboard with .venv-upstream's (their `tensorboard` is upstream's).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time


def load(lib: str):
    """(make_writer, info) for `lib`, imported before the baseline so import cost and memory are excluded."""
    info: dict = {"python": platform.python_version()}
    if lib in ("ours", "ref-hand", "ref-pre"):
        import tensorboard
        import tensorboard.events.crc32c

        # Our submodules load lazily, on the first add_* that needs them; tensorboardX and torch
        # load all theirs at import. Load ours here too, so code is not counted as data memory.
        import tensorboard.projector
        import tensorboard.summary

        info.update(module=tensorboard.__file__, version=tensorboard.__version__,
                    crc32c=tensorboard.events.crc32c.IMPLEMENTATION)
        return tensorboard.SummaryWriter, info
    if lib == "tbx":
        import tensorboardX
        import tensorboardX.crc32c

        info.update(module=tensorboardX.__file__, version=tensorboardX.__version__,
                    crc32c="crc32c" if tensorboardX.crc32c._crc32c_native is not None else "python")
        return tensorboardX.SummaryWriter, info
    if lib == "torch":
        import torch
        from torch.utils.tensorboard import SummaryWriter

        import tensorboard as upstream

        info.update(module=upstream.__file__, version=f"torch {torch.__version__} / tensorboard {upstream.__version__}",
                    crc32c="python")  # upstream's record writer always uses its pure-Python CRC
        return SummaryWriter, info
    if lib == "torch-ours":  # torch.utils.tensorboard unchanged, its EventFileWriter served by our core
        import torch
        from torch.utils.tensorboard import SummaryWriter

        import tensorboard
        import tensorboard.events.crc32c
        from tensorboard.summary.writer import event_file_writer

        if not event_file_writer.__file__.startswith(os.path.dirname(tensorboard.__file__)):
            raise SystemExit(f"torch-ours: EventFileWriter comes from {event_file_writer.__file__}, not ours")
        info.update(module=event_file_writer.__file__,
                    version=f"torch {torch.__version__} / ours {tensorboard.__version__}",
                    crc32c=tensorboard.events.crc32c.IMPLEMENTATION)
        return SummaryWriter, info
    raise SystemExit(f"unknown library {lib!r}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("lib")
    parser.add_argument("workload")
    parser.add_argument("logdir")
    parser.add_argument("--crc", choices=("installed", "python"), default="installed",
                        help="'python': hide native crc32c modules, so every library uses its pure-Python CRC")
    parser.add_argument("--no-check", action="store_true", help="skip reading the files back")
    args = parser.parse_args(argv)
    if args.crc == "python":
        sys.modules["crc32c"] = None  # makes `import crc32c` raise ImportError
        sys.modules["google_crc32c"] = None

    t_import = time.perf_counter()
    make_writer, info = load(args.lib)
    import numpy as np
    import workloads
    from memory import PeakRSS

    info["import_s"] = time.perf_counter() - t_import
    info["numpy"] = np.__version__
    data = workloads.make_data(args.workload)
    if args.lib.startswith("ref-"):
        if args.workload not in workloads.SCALAR_WORKLOADS:
            raise SystemExit("the reference rows exist for the scalar workloads only")
        prepared = workloads.prepare_reference(args.lib[4:], args.workload, data)
    probe = PeakRSS()
    probe.start()
    if args.lib.startswith("ref-"):
        result = workloads.run_reference(prepared, args.logdir)
    else:
        result = workloads.run_workload(args.workload, make_writer, data, args.logdir)
    result.update(probe.stop())
    result.update(lib=args.lib, workload=args.workload, **info)
    if not args.no_check:
        t_check = time.perf_counter()
        scan = workloads.scan_logdir(args.logdir)
        result["problems"] = workloads.check(args.workload, scan, data)
        scan.pop("other_files", None)
        result["scan"] = scan
        result["check_s"] = time.perf_counter() - t_check
    result["bytes_written"] = sum(os.path.getsize(os.path.join(d, n)) for d, _, ns in os.walk(args.logdir) for n in ns)
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
