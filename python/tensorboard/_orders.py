"""Where MXBoard (and the seeds) and tensorboardX/torch put different arguments at one position.

Each resolver takes a method's extra positional arguments and returns the values both libraries'
orders agree on. An interpretation is dropped when its values are impossible (a sample rate of 3 Hz,
one PR-curve threshold); when both stay possible the call is ambiguous and fails naming both orders,
so a call written for either library never logs wrong data silently. The one exception to failing:
add_pr_curve(tag, labels, predictions, n), tensorboardX's and torch's everyday call, is read in their
order and warns (once per call site) that MXBoard reads n as num_thresholds.
"""
from __future__ import annotations

import numbers
import warnings
from typing import Any

# Rates audio is recorded at; a bare positional number is read as a sample rate only if it is one.
STANDARD_SAMPLE_RATES = frozenset({8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000, 64000,
                                   88200, 96000, 176400, 192000})

_AUDIO_ORDERS = ("add_audio's positional order is the seeds' and MXBoard's (tag, audio, sample_rate, "
                 "global_step); torch.utils.tensorboard and tensorboardX use (tag, snd_tensor, global_step, "
                 "sample_rate). Pass sample_rate= and global_step= by keyword")
_PR_ORDERS = ("add_pr_curve's 4th and 5th positional arguments are (num_thresholds, global_step) in MXBoard and "
              "(global_step, num_thresholds) in tensorboardX and torch.utils.tensorboard. Pass global_step= and "
              "num_thresholds= by keyword")


def _whole(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool) or \
        isinstance(value, float) and value.is_integer()


def _plausible_rate(value: Any, standard_only: bool) -> bool:
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        return False
    return value in STANDARD_SAMPLE_RATES if standard_only else 1000 <= value <= 768000


def audio_args(args: tuple, sample_rate: Any, global_step: Any, walltime: Any) -> tuple[Any, Any, Any]:
    """(sample_rate, global_step, walltime) from add_audio's extra positional arguments."""
    if len(args) > 3:
        raise TypeError(f"add_audio takes at most 5 positional arguments, got {len(args) + 2}")
    if len(args) == 3:  # only torch's order has a 5th positional (walltime)
        return _merge_audio(args[1], args[0], args[2], sample_rate, global_step, walltime)
    if len(args) == 2:
        a, b = args
        seeds_ok, torch_ok = _plausible_rate(a, False), _plausible_rate(b, False)
        if seeds_ok and torch_ok:  # both could be rates: a standard one decides
            seeds_ok, torch_ok = _plausible_rate(a, True), _plausible_rate(b, True)
        if seeds_ok == torch_ok:
            raise TypeError(f"add_audio(..., {a!r}, {b!r}) is ambiguous or has no valid sample rate: {_AUDIO_ORDERS}")
        return _merge_audio(*((a, b) if seeds_ok else (b, a)), None, sample_rate, global_step, walltime)
    if len(args) == 1:
        (a,) = args
        if sample_rate is not None:  # seeds' order would give sample_rate twice: torch's order
            return _merge_audio(sample_rate, a, None, None, global_step, walltime)
        if global_step is not None or _plausible_rate(a, True):
            return _merge_audio(a, global_step, None, None, None, walltime)
        raise TypeError(f"add_audio(tag, audio, {a!r}): {a!r} is not a standard sample rate, so this may be a "
                        f"global_step in torch's order. {_AUDIO_ORDERS}")
    return (44100 if sample_rate is None else sample_rate), global_step, walltime


def _merge_audio(rate, step, wall, kw_rate, kw_step, kw_wall) -> tuple[Any, Any, Any]:
    merged = []
    for name, positional, keyword, default in (("sample_rate", rate, kw_rate, 44100), ("global_step", step, kw_step,
                                               None), ("walltime", wall, kw_wall, None)):
        if positional is not None and keyword is not None:
            raise TypeError(f"add_audio got multiple values for argument {name!r}")
        value = positional if positional is not None else keyword
        merged.append(default if value is None else value)
    return merged[0], merged[1], merged[2]


def _thresholds_ok(value: Any) -> bool:
    return _whole(value) and value >= 2


def pr_curve_args(args: tuple, global_step: Any, num_thresholds: Any, weights: Any,
                  walltime: Any) -> tuple[Any, int, Any, Any]:
    """(global_step, num_thresholds, weights, walltime) from add_pr_curve's extra positional arguments."""
    if len(args) > 4:
        raise TypeError(f"add_pr_curve takes at most 7 positional arguments, got {len(args) + 3}")
    step = thresholds = None
    rest = ()
    if len(args) == 1:
        (a,) = args
        if global_step is not None and num_thresholds is None:
            thresholds = a  # tensorboardX's order would give global_step twice: MXBoard's
        else:
            step = a  # tensorboardX/torch order, by far the common call
            if num_thresholds is None and _thresholds_ok(a):
                warnings.warn(f"add_pr_curve(tag, labels, predictions, {a!r}): read as global_step={a!r} "
                              f"(tensorboardX/torch order); {_PR_ORDERS} to be explicit", stacklevel=3)
    elif len(args) >= 2:
        a, b = args[:2]
        mxboard_ok, tbx_ok = _thresholds_ok(a), _thresholds_ok(b)
        if mxboard_ok == tbx_ok:
            raise TypeError(f"add_pr_curve(tag, labels, predictions, {a!r}, {b!r}) is ambiguous or has no valid "
                            f"num_thresholds: {_PR_ORDERS}")
        step, thresholds = (b, a) if mxboard_ok else (a, b)
        rest = args[2:]
        if mxboard_ok and len(rest) > 1:
            raise TypeError("add_pr_curve in MXBoard's order takes (num_thresholds, global_step, weights)")
    for name, positional, keyword in (("global_step", step, global_step), ("num_thresholds", thresholds,
                                                                          num_thresholds)):
        if positional is not None and keyword is not None:
            raise TypeError(f"add_pr_curve got multiple values for argument {name!r}")
    step = step if step is not None else global_step
    thresholds = thresholds if thresholds is not None else (127 if num_thresholds is None else num_thresholds)
    if rest:
        if weights is not None:
            raise TypeError("add_pr_curve got multiple values for argument 'weights'")
        weights = rest[0]
        if len(rest) > 1:
            if walltime is not None:
                raise TypeError("add_pr_curve got multiple values for argument 'walltime'")
            walltime = rest[1]
    return step, thresholds, weights, walltime


def hparams_args(args: tuple, domain: Any, run_name: Any, global_step: Any) -> tuple[Any, Any, Any]:
    """(hparam_domain_discrete, run_name, global_step) from add_hparams' extra positional arguments:
    torch's order is (hparam_domain_discrete, run_name, global_step), tensorboardX's (name, global_step);
    the types tell them apart (a dict, a str, a number)."""
    if len(args) > 3:
        raise TypeError(f"add_hparams takes at most 5 positional arguments, got {len(args) + 2}")
    given = {"hparam_domain_discrete": domain, "run_name": run_name, "global_step": global_step}
    for value in args:
        if value is None:
            continue
        if isinstance(value, dict):
            name = "hparam_domain_discrete"
        elif isinstance(value, str):
            name = "run_name"
        elif _whole(value) or hasattr(value, "item"):
            name = "global_step"
        else:
            raise TypeError(f"add_hparams: cannot tell what positional argument {value!r:.60} is; expected "
                            "hparam_domain_discrete (dict), run_name/name (str) or global_step (int)")
        if given[name] is not None:
            raise TypeError(f"add_hparams got multiple values for argument {name!r}")
        given[name] = value
    return given["hparam_domain_discrete"], given["run_name"], given["global_step"]
