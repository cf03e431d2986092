"""Each writer class has one positional order per method, never guessed from the values passed.

`states_order` makes an argument error of a writer method (a TypeError or ValueError whose message
names one of the method's parameters, or Python's own error for a call that does not fit the
signature) end with the signature of the class the caller used, so a call written in another
library's order fails saying which order this class follows and where the other one lives.
"""
from __future__ import annotations

import functools
import inspect
import re
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

_LEADING_NAME = re.compile(r"[A-Za-z_]\w*")
_PYTHON_ARGUMENT_ERROR = re.compile(r"positional argument|keyword argument|argument '")


def states_order(method: F) -> F:
    """Decorates a writer method so that its argument errors state the caller's class signature."""
    name = method.__name__
    params = frozenset(list(inspect.signature(method).parameters)[1:])

    @functools.wraps(method)
    def checked(self, *args, **kwargs):
        try:
            return method(self, *args, **kwargs)
        except (TypeError, ValueError) as err:
            add_order_note(err, self, name, params)
            raise

    return checked  # type: ignore[return-value]


def add_order_note(err: BaseException, writer: Any, method: str, params: frozenset) -> None:
    """Appends the signature of `writer`'s `method` to an argument error about one of `params` (once)."""
    if type(err) not in (TypeError, ValueError) or getattr(err, "_order_stated", False) or not err.args:
        return
    message = str(err.args[0])
    leading = _LEADING_NAME.match(message)
    if not (leading and leading.group() in params) and not _PYTHON_ARGUMENT_ERROR.search(message):
        return
    cls = type(writer)
    public = getattr(cls, "_public_name", cls.__qualname__)
    signature = bare_signature(getattr(cls, method))
    where = getattr(cls, "_order_note", "")
    err.args = (f"{message} [{public}.{method}{signature}{where}]", *err.args[1:])
    err._order_stated = True  # type: ignore[attr-defined]


def bare_signature(function: Callable) -> str:
    """`function`'s parameters without self and annotations: "(tag, snd_tensor=None, global_step=None, ...)"."""
    signature = inspect.signature(function)
    params = [p.replace(annotation=inspect.Parameter.empty) for p in signature.parameters.values()]
    if params and params[0].name == "self":
        params = params[1:]
    return str(signature.replace(parameters=params, return_annotation=inspect.Signature.empty))
