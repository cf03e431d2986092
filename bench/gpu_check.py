#!/usr/bin/env python3
"""A one-minute check for GPU users: `add_*` on CUDA tensors and JAX GPU arrays returns at once and
logs exactly the values that were on the device at the call, even after an in-place update or a
donation of the buffer.

    python bench/gpu_check.py                 # the GPU: torch CUDA and/or JAX GPU, whichever is present
    python bench/gpu_check.py --device cpu    # the same checks on the CPU (what the repo's tests run)

Per framework it reports the caller's time in add_scalar/add_histogram (first call and steady state)
beside the time the pending computation took, then reads the event file back and compares every
logged scalar and histogram exactly with a host copy of the device value taken right after the call.
Exit status: 0 all values exact (and, on a GPU, no call waited for its computation); 1 a check failed;
3 no GPU found (one line says so); 4 neither torch nor JAX is importable.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
import warnings
from typing import Any

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import SOURCE  # noqa: E402  (bench/envs.py)
from timing import elapsed_ms  # noqa: E402

if os.path.exists(os.path.join(SOURCE, "tensorboard", "src", "graph_pb2.py")):  # a built source checkout
    sys.path.insert(0, SOURCE)

import tensorboard  # noqa: E402
from tensorboard import summary  # noqa: E402
from tensorboard.reader import read_events  # noqa: E402
from tensorboard.values.deferred import framework_of  # noqa: E402

EXIT_FAILED, EXIT_NO_GPU, EXIT_NO_FRAMEWORK = 1, 3, 4
SIZE = 1 << 20  # values per logged array


class Framework:
    """What the checks need from one framework on one device: arrays, a slow computation, updates."""

    def __init__(self, name: str, device: str, dim: int) -> None:
        self.name, self.device, self.dim = name, device, dim

    def array(self, values: np.ndarray) -> Any: ...
    def slow_scalar(self, seconds_hint: int) -> Any: ...
    def wait(self, value: Any) -> None: ...
    def to_numpy(self, value: Any) -> np.ndarray: ...
    def update(self, value: Any) -> Any: ...  # in place (torch) or donating its buffer (JAX)


class Torch(Framework):
    def __init__(self, device: str, dim: int) -> None:
        import torch

        super().__init__("torch", device, dim)
        self.torch = torch
        self.matrix = torch.randn(dim, dim, device=device) / dim ** 0.5

    def array(self, values):
        return self.torch.from_numpy(values).to(self.device)

    def slow_scalar(self, rounds):
        x = self.matrix
        for _ in range(rounds):
            x = x @ self.matrix
        return x.sum()

    def wait(self, value):
        if self.device != "cpu":
            self.torch.cuda.synchronize()

    def to_numpy(self, value):
        return value.detach().cpu().numpy()

    def update(self, value):
        value.mul_(0.5).add_(1.0)  # what an optimizer step does to a parameter
        return value


class Jax(Framework):
    def __init__(self, device: str, dim: int) -> None:
        import jax
        import jax.numpy as jnp

        super().__init__("jax", device, dim)
        self.jax, self.jnp = jax, jnp
        self.target = jax.devices("cpu" if device == "cpu" else "gpu")[0]
        self.matrix = jax.device_put(jnp.asarray(np.random.default_rng(0).standard_normal((dim, dim), np.float32)
                                                 / dim ** 0.5),
                                     self.target)
        self._chain = jax.jit(lambda m, rounds: jnp.sum(jax.lax.fori_loop(0, rounds, lambda i, x: x @ m, m)),
                              static_argnums=1)
        self._step = jax.jit(lambda w: w * 0.5 + 1.0, donate_argnums=0)  # the old buffer is given away

    def array(self, values):
        return self.jax.device_put(values, self.target)

    def slow_scalar(self, rounds):
        return self._chain(self.matrix, rounds)

    def wait(self, value):
        value.block_until_ready()

    def to_numpy(self, value):
        return np.asarray(value)

    def update(self, value):
        with warnings.catch_warnings():  # the CPU backend may not use the donated buffer; it says so
            warnings.simplefilter("ignore")
            return self._step(value)


def frameworks(device: str, dim: int) -> tuple[list[Framework], list[str]]:
    """The frameworks that can run on `device` ("cpu" or "gpu"), and why the others cannot."""
    found, absent = [], []
    try:
        import torch

        if device == "cpu" or torch.cuda.is_available():
            found.append(Torch("cpu" if device == "cpu" else "cuda", dim))
        else:
            absent.append(f"torch {torch.__version__}: no CUDA device")
    except ImportError:
        absent.append("torch: not installed")
    try:
        import jax

        try:
            jax.devices("cpu" if device == "cpu" else "gpu")
            found.append(Jax(device, dim))
        except RuntimeError:
            absent.append(f"jax {jax.__version__}: no GPU backend")
    except ImportError:
        absent.append("jax: not installed")
    return found, absent


def latency(fw: Framework, writer: Any, calls: int, rounds: int) -> dict:
    """The caller's time in add_scalar of a still-computing value, and in add_histogram, in ms."""
    values = np.random.default_rng(1).standard_normal(SIZE, np.float32)
    weights = fw.array(values)
    fw.wait(weights)
    result: dict = {}
    for kind, add in (("add_scalar", lambda v, step: writer.add_scalar(f"{fw.name}/latency", v, step)),
                      ("add_histogram", lambda v, step: writer.add_histogram(f"{fw.name}/latency_hist", v, step))):
        times, computations = [], []
        for step in range(calls + 1):
            start = time.perf_counter()
            pending = fw.slow_scalar(rounds) if kind == "add_scalar" else fw.update(weights)
            if kind == "add_histogram":
                weights = pending
            times.append(elapsed_ms(lambda: add(pending, step)))
            fw.wait(pending)
            computations.append((time.perf_counter() - start) * 1e3)  # issued .. ready, the call included
        result[kind] = {"first_ms": times[0], "steady_median_ms": statistics.median(times[1:]),
                        "steady_max_ms": max(times[1:]), "computation_median_ms": statistics.median(computations)}
    result["path"] = "deferred (device snapshot)" if framework_of(weights) else "synchronous (converted at the call)"
    return result


def log_and_record(fw: Framework, writer: Any, steps: int) -> dict:
    """Logs device values, updating each in place/donating it right after the call; the host copies
    taken between the call and the update are what must be read back."""
    rng = np.random.default_rng(2)
    weights = fw.array(rng.standard_normal(SIZE, np.float32) * 0.1)
    scalar = fw.array(np.array(0.25, np.float32))
    expected: dict = {"scalars": {}, "histograms": {}}
    for step in range(steps):
        writer.add_histogram(f"{fw.name}/weights", weights, step)
        writer.add_scalar(f"{fw.name}/value", scalar, step)
        expected["histograms"][step] = fw.to_numpy(weights).copy()
        expected["scalars"][step] = float(fw.to_numpy(scalar))
        weights = fw.update(weights)
        scalar = fw.update(scalar)
    return expected


def compare(logdir: str, name: str, expected: dict) -> list[str]:
    """Every mismatch between the event files and the expected values, as text (empty: all exact)."""
    got_scalars, got_histograms = {}, {}
    for path in sorted(os.path.join(logdir, f) for f in os.listdir(logdir) if "tfevents" in f):
        for event in read_events(path):
            for value in event.summary.value:
                if value.tag == f"{name}/value":
                    got_scalars[event.step] = value.simple_value if value.HasField("simple_value") else \
                        float(np.frombuffer(value.tensor.tensor_content, np.float32)[0]) \
                        if value.tensor.tensor_content else value.tensor.float_val[0]
                elif value.tag == f"{name}/weights":
                    got_histograms[event.step] = value.histo
    problems = []
    for step, want in expected["scalars"].items():
        if step not in got_scalars or np.float32(got_scalars[step]) != np.float32(want):
            problems.append(f"{name}/value step {step}: logged {got_scalars.get(step)}, device held {want}")
    for step, array in expected["histograms"].items():
        want = summary.histogram(f"{name}/weights", array).value[0].histo
        if got_histograms.get(step) != want:
            problems.append(f"{name}/weights step {step}: the logged histogram differs from the device's values")
    return problems


def check(fw: Framework, logdir: str, calls: int, rounds: int, steps: int) -> dict:
    run = os.path.join(logdir, fw.name)
    writer = tensorboard.SummaryWriter(run)
    try:
        result = latency(fw, writer, calls, rounds)
        expected = log_and_record(fw, writer, steps)
    finally:
        writer.close()
    result["problems"] = compare(run, fw.name, expected)
    result["values_checked"] = steps * 2
    return result


def check_nvml() -> dict:
    """The system monitor's GPU probe (tensorboard.system, through NVML) on this machine: every GPU's
    readings present and in range. {"skipped": why} where NVML finds no GPU."""
    from tensorboard.system import sampling

    probe = sampling.nvml_probe()
    if isinstance(probe, str):
        return {"skipped": probe}
    readings = dict(probe.sample(1.0))
    problems = []
    for gpu in range(probe.gpus):
        get = lambda name: readings.get(f"system/gpu{gpu}/{name}")  # noqa: E731
        if get("utilization_percent") is None or not 0 <= get("utilization_percent") <= 100:
            problems.append(f"gpu{gpu}: utilization {get('utilization_percent')}")
        if get("memory_used_mib") is None or not 0 < get("memory_used_mib") <= (get("memory_total_mib") or 0):
            problems.append(f"gpu{gpu}: memory {get('memory_used_mib')} of {get('memory_total_mib')} MiB")
    return {"gpus": probe.gpus, "readings": readings, "problems": problems}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", choices=("gpu", "cpu"), default="gpu",
                        help="gpu (default): torch CUDA and JAX GPU; cpu: the same checks on the CPU")
    parser.add_argument("--calls", type=int, default=50, help="timed calls per add_* (steady state)")
    parser.add_argument("--rounds", type=int, default=20, help="matrix products in each pending computation")
    parser.add_argument("--dim", type=int, help="their matrices' size (default: 2048 on a GPU, 256 on the CPU)")
    parser.add_argument("--steps", type=int, default=10, help="steps of logged, then updated, values")
    parser.add_argument("--logdir", help="where to write (default: a temporary directory, removed)")
    args = parser.parse_args(argv)

    found, absent = frameworks(args.device, args.dim or (256 if args.device == "cpu" else 2048))
    if not found:
        if args.device == "gpu" and not all(reason.endswith("not installed") for reason in absent):
            print(f"gpu_check: no GPU found ({'; '.join(absent)}); `--device cpu` runs the checks on the CPU")
            return EXIT_NO_GPU
        print(f"gpu_check: neither torch nor JAX is importable ({'; '.join(absent)})")
        return EXIT_NO_FRAMEWORK
    with tempfile.TemporaryDirectory(prefix="gpu-check-") as tmp:
        logdir = args.logdir or tmp
        results = {fw.name: check(fw, logdir, args.calls, args.rounds, args.steps) for fw in found}
    failed = False
    for name, r in results.items():
        fw_device = next(fw.device for fw in found if fw.name == name)
        print(f"{name} on {fw_device}: {r['path']}")
        for kind in ("add_scalar", "add_histogram"):
            k = r[kind]
            print(f"  {kind:13s} caller: first {k['first_ms']:.2f} ms, steady median {k['steady_median_ms']:.3f} ms "
                  f"(max {k['steady_max_ms']:.2f}); the value's computation {k['computation_median_ms']:.1f} ms")
        waited = r["add_scalar"]["steady_median_ms"] >= 0.5 * r["add_scalar"]["computation_median_ms"]
        r["waited_for_computation"] = waited
        if args.device == "gpu" and waited:
            failed = True
            print("  FAILED: add_scalar waited for the computation")
        verdict = "all exact" if not r["problems"] else f"{len(r['problems'])} WRONG"
        print(f"  values: {r['values_checked']} logged, read back and compared with the device's: {verdict}")
        for problem in r["problems"]:
            print(f"    {problem}")
        failed |= bool(r["problems"])
    nvml = check_nvml() if args.device == "gpu" else {"skipped": "--device cpu"}
    found_gpus = nvml.get("skipped") or f"{nvml['gpus']} GPU(s) read"
    print(f"system metrics (NVML): {found_gpus}")
    for problem in nvml.get("problems", []):
        print(f"  FAILED: {problem}")
    failed |= bool(nvml.get("problems"))
    if absent:
        print(f"not checked: {'; '.join(absent)}")
    print(json.dumps({"device": args.device, "results": results, "nvml": nvml, "not_checked": absent,
                      "ok": not failed}))
    return EXIT_FAILED if failed else 0


if __name__ == "__main__":
    sys.exit(main())
