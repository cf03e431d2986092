"""One measurement of bench/async_log.py in a fresh process: `async_worker.py LIB FRAMEWORK MODE LOGDIR`.

LIB: ours | tbx | torch. FRAMEWORK: jax | mxnet. MODE:
  latency  the caller's time in add_scalar(x) while x is a ~0.5 s computation still running
  loop     a small JAX training loop logging its loss and one histogram every step: steps/s
           with and without logging, in paired blocks in this process
  loop-tiny  the same with a batch so small that a step takes ~1.5 ms
Each library is called as its users call it: tensorboardX takes JAX arrays and NDArrays itself
(converting, so waiting, in the caller); torch.utils.tensorboard needs float(x) / np.asarray(x).
Prints one JSON line.
"""
from __future__ import annotations

import json
import statistics
import sys
import time


def writer_for(lib: str, logdir: str):
    if lib == "ours":
        from tensorboard import SummaryWriter
    elif lib == "tbx":
        from tensorboardX import SummaryWriter
    elif lib == "torch":
        from torch.utils.tensorboard import SummaryWriter
    else:
        raise ValueError(f"LIB: expected ours, tbx or torch, got {lib!r}")
    return SummaryWriter(logdir)


def log_scalar(lib: str, writer, tag: str, value, step: int) -> None:
    if lib == "torch":
        import numpy as np

        value = float(np.asarray(value))  # torch.utils.tensorboard takes numbers, NumPy and torch tensors only
    writer.add_scalar(tag, value, step)


def log_histogram(lib: str, writer, tag: str, values, step: int) -> None:
    if lib == "torch":
        import numpy as np

        values = np.asarray(values)
    writer.add_histogram(tag, values, step)


def jax_slow_function(seconds: float):
    """A jitted computation taking about `seconds` on this machine, and its input."""
    import jax
    import jax.numpy as jnp

    def make(rounds: int):
        @jax.jit
        def slow(x):
            for _ in range(rounds):
                x = jnp.tanh(x @ x / 512.0)
            return x.mean()
        return slow

    x = jnp.ones((512, 512), jnp.float32) * 0.01
    probe = make(4)
    probe(x).block_until_ready()
    start = time.perf_counter()
    probe(x).block_until_ready()
    per_round = (time.perf_counter() - start) / 4
    slow = make(max(1, round(seconds / per_round)))
    slow(x).block_until_ready()
    return slow, x


def mxnet_slow_function(seconds: float):
    import mxnet as mx

    x = mx.nd.ones((512, 512)) * 0.01

    def run(rounds: int):
        y = x
        for _ in range(rounds):
            y = mx.nd.tanh(mx.nd.dot(y, y) / 512.0)
        return y.mean()

    run(2).wait_to_read()
    start = time.perf_counter()
    run(4).wait_to_read()
    rounds = max(1, round(seconds / ((time.perf_counter() - start) / 4)))
    return (lambda _x: run(rounds)), x


def latency(lib: str, framework: str, logdir: str, reps: int = 7) -> dict:
    slow, x = (jax_slow_function if framework == "jax" else mxnet_slow_function)(0.5)
    writer = writer_for(lib, logdir)
    callers, computes = [], []
    for step in range(reps):
        start = time.perf_counter()
        y = slow(x)  # dispatched; still running
        dispatched = time.perf_counter()
        log_scalar(lib, writer, "loss", y, step)
        logged = time.perf_counter()
        (y.block_until_ready() if framework == "jax" else y.wait_to_read())
        done = time.perf_counter()
        callers.append(logged - dispatched)
        computes.append(done - start)
    writer.close()
    return {"caller_ms": 1e3 * statistics.median(callers[1:]), "compute_ms": 1e3 * statistics.median(computes[1:])}


LOOPS = {  # name -> (batch, steps per block, pairs of blocks): one 256x256 hidden layer, its weights as the histogram
    "loop": (4096, 50, 20),  # ~8 ms steps on 2 CPU cores: a small model at a usual batch size
    "loop-tiny": (512, 100, 20),  # ~1.5 ms steps: the logging's own cost shows plainly
}


def loop(lib: str, logdir: str, mode: str) -> dict:
    """Paired blocks in one process: a block of steps logging loss + histogram every step (ending
    in flush(), so all of its logging work is charged to it) next to a block without logging, in
    alternating order. The median ratio of their times cancels the drift of a shared machine."""
    writer = writer_for(lib, logdir)

    def log_step(step: int, params, loss) -> None:
        log_scalar(lib, writer, "loss", loss, step)
        log_histogram(lib, writer, "w1", params["w1"], step)

    result = paired_loop(mode, log_step, writer.flush)
    writer.close()
    return result


def paired_loop(mode: str, per_step, after_block=None, pairs: int | None = None) -> dict:
    """The "loop" model's steps/s with `per_step(step, params, loss)` called after every step over
    steps/s without, in alternating blocks of one process; `after_block()` ends each block with it."""
    import jax
    import jax.numpy as jnp

    batch, block, default_pairs = LOOPS[mode]
    pairs = pairs or default_pairs
    key = jax.random.PRNGKey(0)
    k1, k2, k3 = jax.random.split(key, 3)
    params = {"w1": jax.random.normal(k1, (256, 256)) * 0.05, "w2": jax.random.normal(k2, (256, 1)) * 0.05}
    data = jax.random.normal(k3, (batch, 256))
    target = jnp.sin(data[:, :1])

    def loss_fn(p):
        hidden = jnp.tanh(data @ p["w1"])
        return jnp.mean((hidden @ p["w2"] - target) ** 2)

    @jax.jit
    def step_fn(p):
        loss, grads = jax.value_and_grad(loss_fn)(p)
        return jax.tree_util.tree_map(lambda a, g: a - 0.01 * g, p, grads), loss

    state = {"params": params, "step": 0}

    def run_block(with_calls: bool) -> float:
        params, loss = state["params"], None
        start = time.perf_counter()
        for _ in range(block):
            params, loss = step_fn(params)
            if with_calls:
                per_step(state["step"], params, loss)
            state["step"] += 1
        loss.block_until_ready()
        if with_calls and after_block is not None:
            after_block()
        state["params"] = params
        return time.perf_counter() - start

    run_block(False)
    run_block(True)  # warm-up: compilation, first files, tables
    times_with, times_without, ratios = [], [], []
    for pair in range(pairs):
        first_with = pair % 2 == 0
        a = run_block(first_with)
        b = run_block(not first_with)
        with_calls, without = (a, b) if first_with else (b, a)
        times_with.append(with_calls)
        times_without.append(without)
        ratios.append(without / with_calls)
    return {"ratio": statistics.median(ratios), "steps_per_s": block / statistics.median(times_with),
            "steps_per_s_none": block / statistics.median(times_without)}


def main() -> None:
    lib, framework, mode, logdir = sys.argv[1:5]
    result = latency(lib, framework, logdir) if mode == "latency" else loop(lib, logdir, mode)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
