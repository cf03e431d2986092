"""The YAML fast path (`simple_yaml`) gives exactly what PyYAML's safe loader gives, or leaves the text
to it: checked on generated documents of the subset and of the scalars around its edges."""
import math

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tensorboard.logdir.config_files import parse_config, simple_yaml

EDGES = ["0", "00", "07", "-1", "+1", "1_000", "0.001", "1e-3", "1.0e-3", "1.0E+3", ".5", "-.5", "5.", "3.",
         "yes", "No", "on", "OFF", "y", "n", "true", "False", "TRUE", "null", "Null", "~", "1:30", "2024-01-01",
         ".inf", "-.inf", ".nan", "nan", "inf", "adam", "adam_w", "a/b", "a.b", "a-b", "-a", "_x", "0x1f", "0o7",
         "0b101",
         "/data/x-1", "/", "//", "'quoted'", '"dq"', "[1, 2]", "{a: 1}", "a: b", "x #c", "&anchor", "*alias",
         "!!str 1", "|", ">",
         "%x", "@x", "`x", "12345678901234567890", "-0", "-0.0", "1.5e10"]

keys = st.sampled_from(["lr", "seed", "optimizer", "name", "x.y", "a-b", "_k", "on", "yes", "null", "k1", "Y"])
scalars = st.one_of(st.sampled_from(EDGES), st.integers(-10**6, 10**6).map(str),
                    st.floats(allow_nan=False, allow_infinity=False).map(repr),
                    st.text("abcxyz_-./019", min_size=1, max_size=8))


def render(tree, indent=0) -> str:
    lines = []
    for key, value in tree:
        if isinstance(value, list):
            lines.append(" " * indent + f"{key}:")
            lines.append(render(value, indent + 2))
        else:
            lines.append(" " * indent + f"{key}: {value}" if value != "" else " " * indent + f"{key}:")
    return "\n".join(line for line in lines if line)


trees = st.recursive(st.lists(st.tuples(keys, scalars), min_size=1, max_size=4),
                     lambda children: st.lists(st.tuples(keys, st.one_of(scalars, children)), min_size=1,
                                               max_size=4), max_leaves=12)


def same(a, b) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


@settings(max_examples=400, deadline=None)
@given(trees)
def test_the_fast_path_agrees_with_pyyaml_or_steps_aside(tree):
    text = render(tree) + "\n"
    fast = simple_yaml(text)
    if fast is None:
        return
    assert same(fast, yaml.safe_load(text)), text


def test_the_fast_path_takes_what_sweep_tools_write():
    lightning = "lr: 0.001\nbatch_size: 32\noptimizer:\n  name: adam\n  weight_decay: 0.0\nuse_bn: true\n"
    hydra = "seed: 3\nmodel:\n  depth: 4\n  act: relu\ndata:\n  path: /data/cifar-10\n  val: 0.1\n"
    for text in (lightning, hydra):
        assert simple_yaml(text) == yaml.safe_load(text)
    for text in ("a: [1, 2]\n", "a: 'x'\n", "a: 1 # c\n", "on: 1\n", "a: &x 1\nb: *x\n", "- 1\n"):
        assert simple_yaml(text) is None
        assert parse_config(text.encode(), "f.yaml", "yaml") == yaml.safe_load(text)
    assert simple_yaml("a:\n\tb: 1\n") is None  # a tab: PyYAML's error (with its line) is the answer


def test_without_pyyaml_or_a_toml_reader_the_message_says_what_to_install(monkeypatch):
    import sys

    import pytest

    from tensorboard.logdir.config_files import ConfigError

    monkeypatch.setitem(sys.modules, "yaml", None)
    assert parse_config(b"lr: 0.1\nopt:\n  name: adam\n", "h.yaml", "yaml") == {"lr": 0.1, "opt": {"name": "adam"}}
    with pytest.raises(ConfigError, match=r"h.yaml: reading YAML needs PyYAML: pip install pyyaml"):
        parse_config(b"lr: [0.1]\n", "h.yaml", "yaml")
    monkeypatch.setitem(sys.modules, "tomllib", None)
    monkeypatch.setitem(sys.modules, "tomli", None)
    with pytest.raises(ConfigError, match=r"c.toml: reading TOML on Python 3.10 needs tomli: pip install tomli"):
        parse_config(b"a = 1\n", "c.toml", "toml")
