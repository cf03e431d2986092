"""`--where`: a query over runs' hyperparameters, tokenized and parsed here (never `eval`'d).

    lr < 0.01 and optimizer == "adam"
    not (seed in [1, 2]) or run == "baseline"
    `model/depth` >= 4 and use_bn == true

Names are hyperparameter keys (dotted: `optimizer.lr`; any other key between backticks) and `run`, the
run's name. Literals: numbers, strings in single or double quotes (backslash escapes the next
character), `true` and `false`. Operators: `== != < <= > >=`, `in [...]`, `not in [...]`, `and`, `or`,
`not`, parentheses; `and` binds tighter than `or`.

A comparison holds only between values of one type: numbers with numbers, strings with strings, bools
with bools (`==` and `!=` only). A run that lacks the key, or holds a value of another type, does not
match the comparison, whatever its operator (`lr != "x"` does not match a run whose lr is a number);
`not` inverts that as any other result.
"""
from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Callable, Mapping, Union

Value = Union[bool, int, float, str]
RUN = "run"
_OPERATORS: dict[str, Callable] = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le,
                                   ">": operator.gt, ">=": operator.ge}
_KEYWORDS = {"and", "or", "not", "in", "true", "false"}


class QueryError(ValueError):
    """A query that can't be parsed, or names a key no run has: the message names the position."""


@dataclass(frozen=True)
class Token:
    kind: str  # "name", "number", "string", "op", "keyword", "punct", "end"
    text: str
    value: object
    position: int  # 0-based offset in the query


@dataclass(frozen=True)
class Comparison:
    name: str
    op: str  # one of _OPERATORS, "in" or "not in"
    literal: object  # a Value, or a tuple of them for in / not in
    position: int

    def holds(self, row: Mapping[str, Value]) -> bool:
        if self.name not in row:
            return False
        value = row[self.name]
        if self.op in ("in", "not in"):
            inside = any(_comparable(value, item) and value == item for item in self.literal)
            typed = any(_comparable(value, item) for item in self.literal) or not self.literal
            return typed and (inside if self.op == "in" else not inside)
        if not _comparable(value, self.literal):
            return False
        if isinstance(value, bool) and self.op not in ("==", "!="):
            return False
        return bool(_OPERATORS[self.op](value, self.literal))


@dataclass(frozen=True)
class Not:
    inner: object

    def holds(self, row: Mapping[str, Value]) -> bool:
        return not self.inner.holds(row)


@dataclass(frozen=True)
class BoolOp:
    op: str  # "and" or "or"
    parts: tuple

    def holds(self, row: Mapping[str, Value]) -> bool:
        if self.op == "and":
            return all(part.holds(row) for part in self.parts)
        return any(part.holds(row) for part in self.parts)


def _comparable(value, literal) -> bool:
    """Whether `value` and `literal` are of one type: numbers (not bools), strings, or bools."""
    if isinstance(value, bool) or isinstance(literal, bool):
        return isinstance(value, bool) and isinstance(literal, bool)
    if isinstance(value, str) or isinstance(literal, str):
        return isinstance(value, str) and isinstance(literal, str)
    return isinstance(value, (int, float)) and isinstance(literal, (int, float)) and not \
        (isinstance(value, float) and math.isnan(value))


@dataclass(frozen=True)
class Query:
    """A parsed query: `matches(row)` for a run's {key: value} (with "run": its name), and the keys it names."""

    text: str
    tree: object
    flag: str = "--where"

    @property
    def names(self) -> dict[str, int]:
        """{key named: its first position}, `run` included."""
        found: dict[str, int] = {}
        stack = [self.tree]
        while stack:
            node = stack.pop()
            if isinstance(node, Comparison):
                found.setdefault(node.name, node.position)
            elif isinstance(node, Not):
                stack.append(node.inner)
            else:
                stack.extend(node.parts)
        return found

    def check_keys(self, keys) -> None:
        """A QueryError for a key no run has, listing the keys there are."""
        known = set(keys) | {RUN}
        for name, position in sorted(self.names.items(), key=lambda item: item[1]):
            if name not in known:
                listed = ", ".join(sorted(known - {RUN})) or "none"
                raise QueryError(f"{self.flag} {self.text!r}: no run has a hyperparameter {name!r} (at column "
                                 f"{position + 1}); the keys are: {listed} (and `run`, the run's name)")

    def matches(self, run: str, hparams: Mapping[str, Value]) -> bool:
        """Whether run `run`, with these hparams, is selected."""
        row = dict(hparams)
        row[RUN] = run
        return self.tree.holds(row)


def tokenize(text: str, flag: str = "--where") -> list[Token]:
    """The tokens of `text`; a QueryError names the column of anything else."""
    tokens, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in "()[],":
            tokens.append(Token("punct", ch, ch, i))
            i += 1
        elif text.startswith(("==", "!=", "<=", ">="), i):
            tokens.append(Token("op", text[i:i + 2], text[i:i + 2], i))
            i += 2
        elif ch in "<>":
            tokens.append(Token("op", ch, ch, i))
            i += 1
        elif ch in "\"'`":
            end, value = _quoted(text, i, flag)
            tokens.append(Token("name" if ch == "`" else "string", text[i:end], value, i))
            i = end
        elif ch.isdigit() or (ch in "+-." and i + 1 < n and (text[i + 1].isdigit() or text[i + 1] == ".")):
            i = _number(text, i, tokens, flag)
        elif ch.isalpha() or ch == "_":
            end = i
            while end < n and (text[end].isalnum() or text[end] in "_."):
                end += 1
            word = text[i:end]
            kind = "keyword" if word in _KEYWORDS else "name"
            tokens.append(Token(kind, word, {"true": True, "false": False}.get(word, word), i))
            i = end
        else:
            raise _error(text, i, f"unexpected {ch!r}", flag)
    tokens.append(Token("end", "", None, n))
    return tokens


def _quoted(text: str, start: int, flag: str) -> tuple[int, str]:
    quote, i, out = text[start], start + 1, []
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            out.append(text[i + 1])
            i += 2
        elif ch == quote:
            return i + 1, "".join(out)
        else:
            out.append(ch)
            i += 1
    raise _error(text, start, f"unterminated {quote}...{quote}", flag)


def _number(text: str, start: int, tokens: list, flag: str) -> int:
    end = start + 1
    while end < len(text) and (text[end].isalnum() or text[end] in ".+-_"):
        if text[end] in "+-" and text[end - 1] not in "eE":
            break
        end += 1
    word = text[start:end]
    try:
        value = int(word) if word.lstrip("+-").isdigit() else float(word)
    except ValueError:
        raise _error(text, start, f"{word!r} is not a number", flag) from None
    if isinstance(value, float) and not math.isfinite(value):
        raise _error(text, start, f"{word!r} is not a finite number", flag)
    tokens.append(Token("number", word, value, start))
    return end


def _error(text: str, position: int, reason: str, flag: str) -> QueryError:
    return QueryError(f"{flag} {text!r}: at column {position + 1}, {reason}")


class _Parser:
    """Recursive descent: or_expr := and_expr ('or' and_expr)*; and_expr := unary ('and' unary)*;
    unary := 'not' unary | '(' or_expr ')' | comparison."""

    def __init__(self, text: str, flag: str):
        self.text, self.flag = text, flag
        self.tokens = tokenize(text, flag)
        self.i = 0

    def peek(self) -> Token:
        return self.tokens[self.i]

    def take(self) -> Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def is_(self, kind: str, text: str | None = None) -> bool:
        token = self.peek()
        return token.kind == kind and (text is None or token.text == text)

    def fail(self, expected: str):
        token = self.peek()
        found = "the end" if token.kind == "end" else repr(token.text)
        raise _error(self.text, token.position, f"expected {expected}, found {found}", self.flag)

    def expect(self, kind: str, text: str, expected: str) -> Token:
        if not self.is_(kind, text):
            self.fail(expected)
        return self.take()

    def parse(self):
        if self.is_("end"):
            self.fail("a condition")
        tree = self.or_expr()
        if not self.is_("end"):
            self.fail("'and', 'or' or the end")
        return tree

    def or_expr(self):
        parts = [self.and_expr()]
        while self.is_("keyword", "or"):
            self.take()
            parts.append(self.and_expr())
        return parts[0] if len(parts) == 1 else BoolOp("or", tuple(parts))

    def and_expr(self):
        parts = [self.unary()]
        while self.is_("keyword", "and"):
            self.take()
            parts.append(self.unary())
        return parts[0] if len(parts) == 1 else BoolOp("and", tuple(parts))

    def unary(self):
        if self.is_("keyword", "not"):
            self.take()
            return Not(self.unary())
        if self.is_("punct", "("):
            self.take()
            inner = self.or_expr()
            self.expect("punct", ")", "')'")
            return inner
        return self.comparison()

    def comparison(self) -> Comparison:
        if self.is_("name"):
            name = self.take()
            if self.is_("op"):
                op = self.take().text
                return Comparison(name.value, op, self.literal(), name.position)
            negated = self.is_("keyword", "not")
            if negated:
                self.take()
            if self.is_("keyword", "in"):
                self.take()
                return Comparison(name.value, "not in" if negated else "in", self.literal_list(), name.position)
            self.fail("a comparison (== != < <= > >=, in, not in)" if not negated else "'in'")
        if self.is_("number") or self.is_("string") or self.is_("keyword", "true") or self.is_("keyword", "false"):
            literal = self.take().value
            if not self.is_("op"):
                self.fail("a comparison operator")
            op = self.take().text
            if not self.is_("name"):
                self.fail("a hyperparameter name")
            name = self.take()
            flipped = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
            return Comparison(name.value, flipped, literal, name.position)
        self.fail("a hyperparameter name, 'not' or '('")

    def literal(self):
        token = self.peek()
        if token.kind in ("number", "string") or (token.kind == "keyword" and token.text in ("true", "false")):
            return self.take().value
        self.fail("a number, a string, true or false")

    def literal_list(self) -> tuple:
        self.expect("punct", "[", "'[' starting a list")
        items = []
        while not self.is_("punct", "]"):
            items.append(self.literal())
            if not self.is_("punct", ","):
                break
            self.take()
        self.expect("punct", "]", "',' or ']'")
        return tuple(items)


def parse_query(text: str, flag: str = "--where") -> Query:
    """`text` parsed; a QueryError (a ValueError) naming `flag` and the column of the first mistake."""
    if not isinstance(text, str):
        raise TypeError(f"{flag} must be a string, not {type(text).__name__}")
    return Query(text, _Parser(text, flag).parse(), flag)
