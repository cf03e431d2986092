"""MXNet `Module.fit` callbacks and an `mx.mon.Monitor` that log to TensorBoard.

The recipes of the "TensorBoard in MXNet" tutorial as one-liners::

    writer = tensorboard.FileWriter('logs/')        # or tensorboard.SummaryWriter('logs/')
    model.fit(train_iter, eval_data=eval_iter, eval_metric='accuracy',
              batch_end_callback=[LogMetricsCallback(writer, 'train-', frequency=100),
                                  LogParamsCallback(writer, pattern='fc1_weight', frequency=100)],
              eval_end_callback=LogMetricsCallback(writer, 'eval-'),
              epoch_end_callback=LogParamsCallback(writer),
              monitor=GradientMonitor(writer, interval=100, pattern='fc1_backward_weight'))

Every callable works with a `SummaryWriter` (add_scalar/add_histogram) or a `FileWriter`
(add_summary of `tensorboard.summary` protos). MXNet is imported only by `GradientMonitor`.
"""
from __future__ import annotations

import numbers
import re
from typing import Any, Callable

import numpy as np

from tensorboard.integrations._common import log_histogram, log_scalar
from tensorboard.values.convert import to_numpy

__all__ = ["LogMetricsCallback", "LogParamsCallback", "GradientMonitor", "gradient_names", "histogram_stat_func"]


def _check_frequency(frequency: Any) -> int:
    """A positive whole number of batches; raises naming `frequency` rather than round or clamp it."""
    if isinstance(frequency, bool) or not isinstance(frequency, numbers.Integral) or frequency < 1:
        raise ValueError(f"frequency: expected a positive int (every N batches), got {frequency!r}")
    return int(frequency)


class LogMetricsCallback:
    """Logs `param.eval_metric`'s values as scalars tagged `prefix + metric name`.

    Args:
        writer: A SummaryWriter or a FileWriter.
        prefix: Put before each metric's name ("train-").
        frequency: As a batch callback, log every this many batches.
        every: "auto": called from `Module.score` as an `eval_end_callback` it logs once per
            epoch at step = `param.epoch`; as a `batch_end_callback` it logs every `frequency`
            batches at step = batches seen so far (counted across epochs). "epoch" or "batch"
            force one or the other.
        step: A callable `param -> int` that gives the step instead.

    Raises:
        ValueError: Another `every`, or a `frequency` that is not a positive int.
    """

    def __init__(self, writer: Any, prefix: str = "", frequency: int = 1, every: str = "auto",
                 step: Callable[[Any], int] | None = None) -> None:
        if every not in ("auto", "batch", "epoch"):
            raise ValueError(f"every must be 'auto', 'batch' or 'epoch', not {every!r}")
        self.writer = writer
        self.prefix = prefix
        self.frequency = _check_frequency(frequency)
        self.every = every
        self.step = step
        self.batches = 0

    def __call__(self, param: Any) -> None:
        metric = getattr(param, "eval_metric", None)
        if metric is None:
            return
        every = self.every
        if every == "auto":
            # Module.score calls eval_end_callback (its score_end_callback) after the loop, when its
            # batch counter `actual_num_batch` has passed the loop index `nbatch`; inside the loop
            # (eval_batch_end_callback) they are equal, and Module.fit has neither.
            scope = getattr(param, "locals", None) or {}
            after_loop = "actual_num_batch" in scope and scope.get("nbatch") != scope["actual_num_batch"]
            every = "epoch" if "score_end_callback" in scope and after_loop else "batch"
        if every == "batch":
            self.batches += 1
            if self.batches % self.frequency:
                return
            step = self.batches
        else:
            step = int(param.epoch)
        if self.step is not None:
            step = int(self.step(param))
        for name, value in metric.get_name_value():
            log_scalar(self.writer, f"{self.prefix}{name}", value, step)


class LogParamsCallback:
    """Logs histograms of parameters whose name matches `pattern` (a regex).

    As an `epoch_end_callback` (epoch, symbol, arg_params, aux_params) it logs at step = epoch;
    as a `batch_end_callback` it reads the module's parameters every `frequency` batches
    (step = batches seen).

    Args:
        writer: A SummaryWriter or a FileWriter.
        pattern: A regex; only parameters whose name it matches are logged.
        prefix: Put before each parameter's name.
        frequency: As a batch callback, log every this many batches.
        include_aux: Also log auxiliary states (BatchNorm moving statistics).
        bins: As `SummaryWriter.add_histogram`'s.

    Raises:
        ValueError: A `frequency` that is not a positive int.
    """

    def __init__(self, writer: Any, pattern: str = ".*", prefix: str = "", frequency: int = 1,
                 include_aux: bool = False, bins: Any = "tensorflow") -> None:
        self.writer = writer
        self.pattern = re.compile(pattern)
        self.prefix = prefix
        self.frequency = _check_frequency(frequency)
        self.include_aux = include_aux
        self.bins = bins
        self.batches = 0

    def __call__(self, *args: Any) -> None:
        if len(args) == 4:  # epoch_end_callback(epoch, symbol, arg_params, aux_params)
            epoch, _, arg_params, aux_params = args
            self.log(arg_params, aux_params, int(epoch))
            return
        (param,) = args
        self.batches += 1
        if (self.batches - 1) % self.frequency:
            return
        module = (getattr(param, "locals", None) or {}).get("self")
        if module is None or not hasattr(module, "get_params"):
            raise ValueError("LogParamsCallback as a batch_end_callback needs Module.fit's locals "
                             "(param.locals['self'])")
        arg_params, aux_params = module.get_params()
        self.log(arg_params, aux_params, self.batches - 1)

    def log(self, arg_params: dict, aux_params: dict | None, step: int) -> None:
        """Logs the matching parameters at `step`.

        Args:
            arg_params: {name: NDArray} of the parameters.
            aux_params: {name: NDArray} of the auxiliary states (logged with `include_aux`).
            step: The step.
        """
        params = dict(arg_params or {})
        if self.include_aux:
            params.update(aux_params or {})
        for name in sorted(params):
            if self.pattern.search(name):
                log_histogram(self.writer, f"{self.prefix}{name}", params[name], step, self.bins)


def histogram_stat_func(writer: Any, tag: str, bins: Any = "tensorflow") -> Callable[[Any], Any]:
    """A `stat_func` for `mx.mon.Monitor(interval, stat_func, pattern=...)` that logs the arrays it
    sees as histograms under one tag. The step is a counter of logged arrays.

    Args:
        writer: A SummaryWriter or a FileWriter.
        tag: The histograms' tag (one pattern, one tag).
        bins: As `SummaryWriter.add_histogram`'s.

    Returns:
        The stat_func; it returns MXNet's default statistic, norm(x)/sqrt(size).
    """
    calls = [0]

    def stat(array: Any) -> Any:
        log_histogram(writer, tag, array, calls[0], bins)
        calls[0] += 1
        return _norm_stat(array)

    return stat


def _norm_stat(array: Any) -> Any:
    if hasattr(array, "norm"):
        import mxnet as mx

        return mx.nd.norm(array) / np.sqrt(array.size)
    values = to_numpy(array)
    return np.linalg.norm(values.reshape(-1)) / np.sqrt(max(values.size, 1))


def gradient_names(symbol_json: str) -> dict[str, str]:
    """MXNet 1.x's backward output names, mapped to readable ones.

    Args:
        symbol_json: A symbol's JSON (`symbol.tojson()`).

    Returns:
        {backward output name: readable name}, e.g. `fc1_backward_output1` (the gradient of
        fc1's input 1) -> `fc1_backward_weight`.
    """
    import json

    nodes = json.loads(symbol_json)["nodes"]
    names: dict[str, str] = {}
    for node in nodes:
        op_name = node["name"]
        for index, entry in enumerate(node.get("inputs", [])):
            source = nodes[entry[0]]
            if source["op"] != "null":
                continue
            arg = source["name"]
            arg = arg[len(op_name) + 1:] if arg.startswith(op_name + "_") else arg
            names[f"{op_name}_backward_output{index}"] = f"{op_name}_backward_{arg}"
    return names


def GradientMonitor(writer: Any, interval: int = 100, pattern: str = ".*backward.*", prefix: str = "",
                    bins: Any = "tensorflow", sort: bool = False, monitor_all: bool = False) -> Any:
    """An `mx.mon.Monitor` that also logs every monitored array as a histogram.

    Pass it as `Module.fit(monitor=...)`. MXNet 1.x names a gradient after the backward
    operator's output (`fc1_backward_output1`); this monitor renames those after the
    variable they belong to (`fc1_backward_weight`, as MXNet 0.x did and seed tutorials
    expect) before matching `pattern`. `toc_print()` still prints norm(x)/sqrt(size) per array.

    Args:
        writer: A SummaryWriter or a FileWriter.
        interval: Log every this many batches, at the monitor's batch counter.
        pattern: A regex the array names must match.
        prefix: Put before each array's name in its tag.
        bins: As `SummaryWriter.add_histogram`'s.
        sort: Log the arrays sorted by name (mx.mon.Monitor's `sort`).
        monitor_all: Monitor operators' inputs too (mx.mon.Monitor's `monitor_all`).

    Returns:
        An `mx.mon.Monitor`.
    """
    import ctypes

    import mxnet as mx
    from mxnet.base import NDArrayHandle, py_str
    from mxnet.ndarray.ndarray import NDArray

    class _GradientMonitor(mx.mon.Monitor):
        def __init__(self) -> None:
            super().__init__(interval, stat_func=lambda x: x.copy(), pattern=pattern, sort=sort,
                             monitor_all=monitor_all)
            self.writer, self.prefix, self.bins = writer, prefix, bins
            self.renames: dict[str, str] = {}

            def stat_helper(name: Any, handle: Any) -> None:
                if not self.activated:
                    return
                name = py_str(name)
                name = self.renames.get(name, name)
                if not self.re_prog.match(name):
                    return
                array = NDArray(ctypes.cast(handle, NDArrayHandle), writable=False)
                self.queue.append((self.step, name, array.copy()))

            self.stat_helper = stat_helper

        def install(self, exe: Any) -> None:
            self.renames.update(gradient_names(exe._symbol.tojson()))
            super().install(exe)

        def toc(self) -> list:
            if not self.activated:
                return []
            for exe in self.exes:
                for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):
                    if self.re_prog.match(name):
                        self.queue.append((self.step, name, array.copy()))
            self.activated = False
            if self.sort:
                self.queue.sort(key=lambda entry: entry[1])
            results = []
            for step, name, array in self.queue:
                log_histogram(self.writer, f"{self.prefix}{name}", array, step, self.bins)
                results.append((step, name, f"{float(_norm_stat(array).asscalar())}\t"))
            self.queue = []
            return results

    return _GradientMonitor()
