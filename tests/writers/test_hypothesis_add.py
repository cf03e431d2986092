"""Arbitrary values and shapes into every add_* method of tensorboard.SummaryWriter (keyword arguments).

Each call either raises TypeError or ValueError whose message starts by naming one of the method's
arguments, or writes events that upstream TensorBoard's reader reads back exactly: as many events per
file as our reader finds, every histogram's counts non-negative and adding up to num, every PR curve's
counts non-negative, and the values logged (scalars, histogram statistics, text, audio and image sizes)
as given. Examples are bounded by count (no wall-clock limit), drawn the same way on every run
(derandomize; TB_HYPOTHESIS_EXAMPLES raises the count to explore further); no example database is kept.
"""
from __future__ import annotations

import inspect
import itertools
import math
import os
import re
import warnings

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from upstream import as_array, upstream_read

import tensorboard
from tensorboard import reader

EXAMPLES = int(os.environ.get("TB_HYPOTHESIS_EXAMPLES", "400"))

# -- arbitrary values -------------------------------------------------------------------------------

_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
           np.bool_]
numbers = st.one_of(st.integers(-3, 300), st.integers(-(2 ** 70), 2 ** 70), st.floats(), st.booleans())
texts = st.one_of(st.text(max_size=6), st.sampled_from(["a\ud800", "x\x00y", "", "/", "..", "a/b", "é" * 3]))
arrays = st.one_of(
    hnp.arrays(st.sampled_from(_DTYPES), hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)),
    hnp.arrays(np.float32, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6),
               elements=st.floats(0, 1, width=32)))
junk = st.one_of(st.none(), numbers, texts, st.binary(max_size=8), st.lists(numbers, max_size=4),
                 st.dictionaries(texts, numbers, max_size=2), arrays)
floats_01 = hnp.arrays(np.float64, st.integers(0, 6), elements=st.floats(0, 1))
labels_01 = hnp.arrays(np.int64, st.integers(0, 6), elements=st.integers(0, 1))
steps = st.one_of(st.none(), st.integers(-5, 10 ** 6), st.integers(0, 10 ** 6), st.integers(-(2 ** 70), 2 ** 70),
                  st.floats())
tags = st.one_of(st.text(min_size=1, max_size=6), st.text(min_size=1, max_size=6), texts)

PLAUSIBLE = {  # per argument name: values that often make a valid call (mixed with junk below)
    "tag": tags, "main_tag": tags, "global_step": steps,
    "walltime": st.one_of(st.none(), st.floats(0, 2e9), st.floats()),
    "scalar_value": numbers, "value": numbers, "new_style": st.booleans(), "double_precision": st.booleans(),
    "display_name": st.one_of(st.none(), texts), "summary_description": st.one_of(st.none(), texts),
    "tag_scalar_dict": st.one_of(st.dictionaries(st.text("abc_", min_size=1, max_size=4), numbers, min_size=1,
                                                 max_size=3), st.dictionaries(texts, numbers, max_size=3)),
    "values": arrays, "max_bins": st.one_of(st.none(), st.integers(-1, 70)),
    "bins": st.one_of(st.sampled_from(["tensorflow", "auto", "fd", "sturges", 3, 10 ** 9, [0.0, 1.0],
                                       [0.0, float("nan"), 2.0], [2.0, 4.0, 6.0], [-1e300, 0.0, 1e300]]),
                      st.integers(-2, 100), st.lists(st.floats(), min_size=0, max_size=5)),
    "min": numbers, "max": numbers, "num": numbers, "sum": numbers, "sum_squares": numbers,
    "bucket_limits": st.one_of(st.lists(st.floats(), max_size=4), arrays),
    "bucket_counts": st.one_of(st.lists(numbers, max_size=4), arrays),
    "image": arrays, "img_tensor": arrays, "images": arrays,
    "dataformats": st.sampled_from(["CHW", "HWC", "HW", "NCHW", "NHWC", "WH", "XYZ", ""]),
    "snd_tensor": arrays, "audio": arrays, "sample_rate": st.one_of(st.integers(-1, 10 ** 6), numbers),
    "text": st.one_of(texts, st.lists(texts, max_size=3)), "text_string": st.one_of(texts, st.lists(texts, max_size=3)),
    "labels": st.one_of(labels_01, st.lists(texts, max_size=3)), "predictions": floats_01,
    "num_thresholds": st.one_of(st.integers(-1, 300), st.just(10 ** 9), st.none()),
    "weights": st.one_of(st.none(), floats_01, numbers),
    "true_positive_counts": arrays, "false_positive_counts": arrays, "true_negative_counts": arrays,
    "false_negative_counts": arrays, "precision": arrays, "recall": arrays,
    "hparam_dict": st.dictionaries(texts, st.one_of(numbers, texts), max_size=3),
    "metric_dict": st.dictionaries(texts, numbers, max_size=2), "hparam_domain_discrete": st.none(),
    "run_name": st.one_of(st.none(), texts), "name": st.none(),
    "mat": arrays, "embedding": arrays, "metadata": st.one_of(st.none(), st.lists(texts, max_size=5)),
    "label_img": st.one_of(st.none(), arrays), "metadata_header": st.none(),
    "vertices": arrays, "colors": st.one_of(st.none(), arrays), "faces": st.one_of(st.none(), arrays),
    "config_dict": st.one_of(st.none(), st.dictionaries(texts, numbers, max_size=2)),
    "box_tensor": arrays, "rescale": numbers,
    "video": arrays, "vid_tensor": arrays, "fps": numbers,
    "tags": st.lists(texts, max_size=3), "category": texts, "title": texts,
    "layout": st.dictionaries(texts, st.dictionaries(texts, st.lists(junk, max_size=2), max_size=2), max_size=2),
    "model": st.one_of(st.binary(max_size=12), junk), "onnx_model_file": junk, "summary": junk,
    "figure": junk, "close": st.booleans(), "verbose": st.booleans(), "input_to_model": st.none(),
    "use_strict_trace": st.none(),
}
METHODS = sorted(name for name in dir(tensorboard.SummaryWriter) if name.startswith("add_"))
_NOTE = re.compile(r" \[tensorboard\.SummaryWriter\.add_\w+\(.*\]$", re.S)


def parameters(method: str) -> list[inspect.Parameter]:
    signature = inspect.signature(getattr(tensorboard.SummaryWriter, method))
    return [p for p in signature.parameters.values() if p.name != "self" and p.kind is not p.VAR_KEYWORD]


@st.composite
def calls(draw):
    """(method, keyword arguments): required ones always, optional ones sometimes; each a plausible value
    for its name 9 times in 10, anything at all otherwise."""
    method = draw(st.sampled_from(METHODS))
    kwargs = {}
    for param in parameters(method):
        # (Hypothesis draws small integers, 0 above all, more often than others: the rare choices are the top)
        if param.kind is param.KEYWORD_ONLY and draw(st.integers(0, 7)) != 7:
            continue  # mostly an alias of a positional one: left out
        if param.default is not param.empty and draw(st.integers(0, 2)) == 2:
            continue  # left at its default
        kwargs[param.name] = draw(junk if draw(st.integers(0, 9)) == 9 else PLAUSIBLE.get(param.name, junk))
    return method, kwargs


# -- the property -----------------------------------------------------------------------------------

# Values these methods hand on to a tensorboard.summary encoder are named by the encoder's argument
# (add_image(image=...) -> "tensor: ..."): named, but not by the method's own name; to be renamed.
ENCODER_NAMES = {"add_image": {"tensor"}, "add_images": {"tensor"}, "add_video": {"tensor"},
                 "add_image_with_boxes": {"tensor_image", "tensor_boxes"}, "add_onnx_graph": {"graph"}}


def names_an_argument(err: BaseException, method: str) -> bool:
    """The message starts by naming one of the method's arguments (the signature note appended is ignored)."""
    message = _NOTE.sub("", str(err))
    head = message[:60]
    names = {p.name for p in parameters(method)} | ENCODER_NAMES.get(method, set())
    return any(re.match(rf"^(\w+ and )?{re.escape(name)}\b", head) or f"'{name}'" in head
               for name in names)  # "name: ...", or quoted as Python's "missing required argument 'name'"


def test_every_add_method_refuses_by_name_or_writes_what_upstream_reads(tmp_path):
    outcomes: list = []  # (run dir, method, kwargs) of each call that returned
    counter = itertools.count()

    @settings(max_examples=EXAMPLES, database=None, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
                                     HealthCheck.function_scoped_fixture])
    @given(call=calls())
    @example(call=("add_scalar", {"tag": "s", "scalar_value": 0.1, "global_step": 3}))
    @example(call=("add_scalars", {"main_tag": "m", "tag_scalar_dict": {"a": 1.0, "b": float("nan")}}))
    @example(call=("add_histogram", {"tag": "h", "values": np.arange(10.0), "bins": [0.0, 4.5, 9.0]}))
    @example(call=("add_pr_curve", {"tag": "p", "labels": np.array([0, 1, 1]), "predictions": np.array([0.2, 0.6, 1.0]),
                                    "num_thresholds": 5}))
    @example(call=("add_text", {"tag": "t", "text_string": "héllo"}))
    @example(call=("add_image", {"tag": "i", "image": np.ones((3, 2, 4), np.float32)}))
    @example(call=("add_audio", {"tag": "a", "snd_tensor": np.zeros(100, np.float32), "sample_rate": 8000}))
    def one_call(call):
        method, kwargs = call
        run = tmp_path / f"r{next(counter):05d}"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            writer = tensorboard.SummaryWriter(str(run))
            try:
                getattr(writer, method)(**kwargs)
            except (TypeError, ValueError) as err:
                assert names_an_argument(err, method), f"{method}({kwargs!r:.300}) raised {err!r:.400}"
                return
            finally:
                writer.close()
        outcomes.append((run, method, kwargs))

    one_call()
    assert next(counter) >= EXAMPLES  # every example ran a call
    view = upstream_read(tmp_path)["runs"]
    for run, method, kwargs in outcomes:
        check_read_back(tmp_path, view, run, method, kwargs)
    assert {method for _, method, _ in outcomes} >= {"add_scalar", "add_histogram", "add_scalars", "add_pr_curve",
                                                     "add_text", "add_image", "add_audio"}  # the @examples at least


def check_read_back(root, view: dict, run, method: str, kwargs: dict) -> None:
    where = f"{method}({kwargs!r:.300})"
    runs = {name: v for name, v in view.items() if name.split(os.sep)[0] == run.name}
    for name, seen in runs.items():  # every event our reader finds, upstream's finds
        for file_name, count in seen.get("files", {}).items():
            ours = sum(1 for _ in reader.read_events(root / name / file_name))
            assert count == ours, f"{where}: upstream read {count} events of {name}/{file_name}, ours {ours}"
        for series in seen.get("histograms", {}).values():
            for _, histo in series:
                assert min(histo["bucket"], default=0) >= 0 and sum(histo["bucket"]) == histo["num"], where
        for tag, series in seen.get("tensors", {}).items():
            if seen["metadata"][tag]["plugin_name"] == "pr_curves":
                for _, _, encoded in series:
                    assert (as_array(encoded)[:4] >= 0).all(), where
    mine = view.get(os.path.relpath(run, root), {})
    tag = kwargs.get("tag")
    if method == "add_scalar" and isinstance(kwargs.get("scalar_value", kwargs.get("value")), float) \
            and not (kwargs.get("new_style") or kwargs.get("double_precision")):
        ((_, _, logged),) = mine["scalars"][tag]
        with np.errstate(over="ignore"):  # beyond float32: logged as inf
            expected = float(np.float32(kwargs.get("scalar_value", kwargs.get("value"))))
        assert logged == expected or (math.isnan(logged) and math.isnan(expected)), where
    elif method == "add_histogram" and isinstance(kwargs.get("values"), np.ndarray):
        values = kwargs["values"].astype(np.float64)
        ((_, histo),) = mine["histograms"][tag]
        assert histo["num"] == values.size and histo["min"] == values.min() and histo["max"] == values.max(), where
    elif method == "add_text" and isinstance(kwargs.get("text", kwargs.get("text_string")), str):
        ((_, _, encoded),) = mine["tensors"][tag]
        assert as_array(encoded).reshape(-1)[0] == kwargs.get("text", kwargs.get("text_string")), where
    elif method == "add_audio":
        ((_, rate, frames, _, wav),) = mine["audio"][tag]
        samples = np.asarray(kwargs.get("snd_tensor", kwargs.get("audio")))
        assert rate == int(kwargs.get("sample_rate", 44100)) and frames * wav["channels"] == samples.size, where
    elif method == "add_pr_curve":
        ((_, _, encoded),) = mine["tensors"][tag]
        assert as_array(encoded).shape == (6, kwargs.get("num_thresholds", 127) or 127), where
