"""What one extra call per step costs bench/async_log.py's ~8 ms JAX loop: where its logging cost comes from.

A diagnostic behind docs/design-decisions.md's account of the JAX loop's logging cost (about 7 minutes at 100 pairs;
`make bench` runs it through bench/run.py with 10 pairs per --extras-reps). Each variant runs in a
fresh process (.venv, the source tree) as paired blocks with and without the call
(bench/async_worker.paired_loop), by default 100 pairs for a finer median than the bench's 20:

  nothing         no call at all: the blocks are identical, so this is the noise floor
  python-200us    200 us of pure-Python CPU in the caller per step
  host-copy       copy_to_host_async() on the step's weights: starts a transfer, no XLA program
  copy-weights    one jitted copy of the step's 256x256 weights (another XLA program per step)
  copy-constant   one jitted copy of a constant 256x256 array (independent of the step)
  ours-snapshots  tensorboard's own snapshots of the loss and the weights (what add_* takes)
  device-counts   the weights counted into the default buckets by a jitted JAX kernel (exact, with
                  min, max and sums) plus our snapshot of the loss: counting on the device in place
                  of the weights' snapshot and the host's encoding; results fetched after each block

    python bench/jax_step_overhead.py [--pairs 100] [--variants a,b,...]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from envs import BENCH, ours_env, python_of, run_json  # noqa: E402  (bench/envs.py)

VARIANTS = ("nothing", "python-200us", "host-copy", "copy-weights", "copy-constant", "ours-snapshots",
            "device-counts")


def device_counter():
    """A jitted count of float32 values into the default buckets on the device, exact: the host kernel's
    table look-up and carry (tensorboard.summary._histogram_counts), a scatter-add, min, max and sums."""
    import jax
    import jax.numpy as jnp
    from jax import lax

    from tensorboard.summary import _histogram_counts as counts

    table = jnp.asarray(counts._cached("f", lambda: counts._key_table("f")))

    @jax.jit
    def count(values):
        patterns = lax.bitcast_convert_type(values.ravel(), jnp.uint32)
        keys = patterns + table[patterns >> 16]
        keyed = jnp.zeros(counts._LANE_STRIDE, jnp.int32).at[(keys >> 16).astype(jnp.int32)].add(1)
        return keyed, values.min(), values.max(), values.sum(), jnp.vdot(values, values)

    return count


def per_step_call(variant: str):
    """(call, after_block) for `variant`: the call made after every step, (step, params, loss) -> None,
    and what ends each block with calls (None: nothing)."""
    import jax
    import jax.numpy as jnp

    copy = jax.jit(jnp.copy)
    constant = jnp.ones((256, 256), jnp.float32)
    held: list = []  # the last few results stay alive, as queued snapshots would

    def keep(*values) -> None:
        held.append(values)
        if len(held) > 8:
            held.pop(0)

    if variant == "nothing":
        return (lambda step, params, loss: None), None
    if variant == "python-200us":
        def burn(step, params, loss):
            until = time.thread_time() + 200e-6
            while time.thread_time() < until:
                pass
        return burn, None
    if variant == "host-copy":
        return (lambda step, params, loss: (params["w1"].copy_to_host_async(), keep(params["w1"]))), None
    if variant == "copy-weights":
        return (lambda step, params, loss: keep(copy(params["w1"]))), None
    if variant == "copy-constant":
        return (lambda step, params, loss: keep(copy(constant))), None
    if variant == "ours-snapshots":
        from tensorboard.values.deferred import snapshot

        return (lambda step, params, loss: keep(snapshot(loss, "jax"), snapshot(params["w1"], "jax"))), None
    if variant == "device-counts":
        from tensorboard.values.deferred import snapshot

        count, results = device_counter(), []
        return (lambda step, params, loss: results.append((snapshot(loss, "jax"), count(params["w1"]))),
                lambda: (jax.device_get(results), results.clear()))
    raise ValueError(f"variant: expected one of {VARIANTS}, got {variant!r}")


def run_variant(variant: str, pairs: int) -> dict:
    """One variant in a fresh process; its paired_loop result."""
    return run_json([python_of("ours"), os.path.abspath(__file__), "--worker", variant, "--pairs", str(pairs)],
                    ours_env(BENCH, threads=2), 1800)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        from async_worker import paired_loop

        call, after_block = per_step_call(args.worker)
        print(json.dumps(paired_loop("loop", call, after_block, pairs=args.pairs)))
        return 0
    results = {}
    print(f"~8 ms JAX loop: steps/s with the call after every step / without (median of {args.pairs} pairs)")
    for variant in args.variants.split(","):
        results[variant] = result = run_variant(variant, args.pairs)
        shown = result.get("error") or f"{result['ratio']:.3f}  ({result['steps_per_s']:.1f} vs " \
                                       f"{result['steps_per_s_none']:.1f} steps/s)"
        print(f"  {variant:15} {shown}", flush=True)
    print(json.dumps(results))
    return 0 if all("error" not in r for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
