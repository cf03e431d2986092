"""The rule that keeps secrets out of a run's metadata: what of a command line is written, and what never.

The rule (docs/logging.md, "Run metadata"):
- No environment variable is ever recorded.
- An option whose name has a secret word among its words (split at `-`, `_`, `.` and camelCase: token,
  password, passwd, pwd, passphrase, secret, credential(s), auth, key, apikey, cookie, sessionid) keeps
  its name and loses its value: `--token abc`, `--token=abc`, `--api-key=abc`, `--aws_secret_access_key
  abc`. `--tokenizer` and `--max_tokens` have no such word and are kept; so are short options (`-p`).
- A `name=value` argument (Hydra's overrides, Ray's) whose name holds a secret word loses its value:
  `db.password=abc`, `+OPENAI_API_KEY=abc`.
- A URL's user information is removed: `https://user:pass@host/x` becomes `https://***@host/x`.
- A value that looks like a credential on its own loses it too: a bearer header, or a long token of a
  known shape (`ghp_...`, `sk-...`, `xox...-`, AWS `AKIA...`).
The redacted text is `***`.
"""
from __future__ import annotations

import re
from typing import Sequence

REDACTED = "***"
SECRET_WORDS = frozenset({"token", "password", "passwd", "pwd", "passphrase", "secret", "secrets", "credential",
                          "credentials", "auth", "key", "apikey", "cookie", "sessionid"})
_WORD_BREAK = re.compile(r"[^A-Za-z0-9]+|(?<=[a-z0-9])(?=[A-Z])")
_URL_USERINFO = re.compile(r"(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]+@")
_CREDENTIAL_SHAPES = re.compile(
    r"(^bearer\s+\S+)|(^(ghp|gho|ghs|ghu|github_pat)_[A-Za-z0-9_]{16,})|(^sk-[A-Za-z0-9_-]{16,})"
    r"|(^xox[abprs]-[A-Za-z0-9-]{10,})|(^AKIA[0-9A-Z]{16}$)|(^hf_[A-Za-z0-9]{20,})", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """True when an option or key name says its value is a secret (`--token`, `db.password`, `AWS_KEY`).

    Args:
        name: An option (`--api-key`) or a key (`db.password`), prefixes and all.
    """
    return any(word.lower() in SECRET_WORDS for word in _WORD_BREAK.split(name) if word)


def redact_value(value: str) -> str:
    """`value` without what looks like a credential on its own: URL user information, bearer headers and
    tokens of well-known shapes.

    Args:
        value: One command-line argument or value.
    """
    if _CREDENTIAL_SHAPES.search(value):
        return REDACTED
    return _URL_USERINFO.sub(lambda m: m.group("scheme") + REDACTED + "@", value)


def redact_argv(argv: Sequence[str]) -> list[str]:
    """A command line as it may be written: the values of secret options and `name=value` arguments,
    and credentials found anywhere, replaced by `***`.

    Args:
        argv: The command line, program first (`sys.argv`).

    Returns:
        A new list; the names stay, so the command still reads as what was run.
    """
    out: list[str] = []
    hide_next = False
    for arg in argv:
        if hide_next and not arg.startswith("-"):
            out.append(REDACTED)
            hide_next = False
            continue
        hide_next = False
        if arg.startswith("-") and "=" not in arg:
            hide_next = len(arg) > 2 and is_secret_name(arg)  # a long option; its value may follow
            out.append(arg)
        elif "=" in arg:
            name, _, value = arg.partition("=")
            out.append(f"{name}={REDACTED}" if is_secret_name(name) else f"{name}={redact_value(value)}")
        else:
            out.append(redact_value(arg))
    return out
