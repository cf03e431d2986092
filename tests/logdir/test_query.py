"""`--where`: the query language, parsed (never eval'd), its errors with their column, and what a
run lacking a key or holding another type matches."""
import pytest

from tensorboard.logdir.query import QueryError, parse_query, tokenize

RUNS = {
    "a": {"lr": 0.001, "optimizer": "adam", "seed": 1, "use_bn": True, "model.depth": 4},
    "b": {"lr": 0.01, "optimizer": "sgd", "seed": 2, "use_bn": False},
    "c": {"lr": 0.1, "optimizer": "adam", "seed": 3, "model/width": 64},
    "d": {"lr": "auto", "optimizer": "adam"},
}


def selected(text):
    query = parse_query(text)
    return sorted(run for run, values in RUNS.items() if query.matches(run, values))


@pytest.mark.parametrize("text, runs", [
    ('lr < 0.01 and optimizer == "adam"', ["a"]),
    ("lr <= 0.01", ["a", "b"]),
    ("0.01 > lr", ["a"]),
    ("seed in [1, 3]", ["a", "c"]),
    ("seed not in [1, 3]", ["b"]),
    ("not seed in [1, 3]", ["b", "d"]),
    ("optimizer != 'adam' or seed >= 3", ["b", "c"]),
    ("(seed == 1 or seed == 2) and use_bn == true", ["a"]),
    ("not (optimizer == 'adam')", ["b"]),
    ("use_bn != false", ["a"]),
    ("model.depth >= 4", ["a"]),
    ("`model/width` == 64", ["c"]),
    ('run == "b" or run in ["c"]', ["b", "c"]),
    ('lr == "auto"', ["d"]),
    ("lr > 0", ["a", "b", "c"]),  # "auto" is text: no comparison with a number holds
    ("lr != 0.5", ["a", "b", "c"]),  # nor does != across types
    ("seed == 1.0", ["a"]),
    ("lr < 1e-2", ["a"]),
    ("seed > -1 and seed < +3", ["a", "b"]),
])
def test_queries_select_the_runs_they_say(text, runs):
    assert selected(text) == runs


def test_a_run_lacking_the_key_matches_no_comparison():
    assert selected("seed == 1 or seed != 1") == ["a", "b", "c"]
    assert selected("use_bn < true") == []  # bools only compare for equality


@pytest.mark.parametrize("text, column, words", [
    ("lr <", 5, "expected a number"),
    ("lr < 0.1 and", 13, "expected a hyperparameter name"),
    ("lr === 1", 6, "unexpected '='"),
    ("(lr < 1", 8, "expected ')'"),
    ("lr 1", 4, "a comparison"),
    ("lr < 'x", 6, "unterminated"),
    ("seed in 1", 9, "'['"),
    ("seed in [1 2]", 12, "',' or ']'"),
    ("", 1, "a condition"),
    ("lr < 1 lr", 8, "'and', 'or' or the end"),
    ("lr < 1.2.3", 6, "not a number"),
    ("lr < inf", 6, "a number, a string"),
    ("lr < 1 ; import os", 8, "unexpected ';'"),
    ("__import__('os')", 11, "a comparison"),
])
def test_errors_name_the_column(text, column, words):
    with pytest.raises(QueryError) as caught:
        parse_query(text)
    assert f"at column {column}," in str(caught.value) and words in str(caught.value)
    assert str(caught.value).startswith("--where ")


def test_a_key_no_run_has_is_an_error_listing_the_keys_there_are():
    query = parse_query("lr < 1 and optimiser == 'adam'")
    with pytest.raises(QueryError, match=r"no run has a hyperparameter 'optimiser' \(at column 12\); "
                                         r"the keys are: lr, optimizer"):
        query.check_keys({"lr", "optimizer"})
    parse_query("run == 'x'").check_keys(set())  # `run` always exists


def test_tokens_and_strings_with_escapes():
    kinds = [(t.kind, t.value) for t in tokenize(r'a.b >= "x\"y" and not c in [true, -2]')]
    assert kinds == [("name", "a.b"), ("op", ">="), ("string", 'x"y'), ("keyword", "and"), ("keyword", "not"),
                     ("name", "c"), ("keyword", "in"), ("punct", "["), ("keyword", True), ("punct", ","),
                     ("number", -2), ("punct", "]"), ("end", None)]
    with pytest.raises(TypeError, match="--where must be a string"):
        parse_query(3)
