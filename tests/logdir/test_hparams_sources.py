"""A run's hyperparameters from the files users already have: each source, the precedence rule, and
files that are malformed, too large or hostile (warned about with their line; the run still read)."""
import json
import warnings

import pytest

from tensorboard import SummaryWriter
from tensorboard.logdir import list_runs, read_listed
from tensorboard.logdir.config_files import MAX_CONFIG_BYTES, MAX_KEYS, ConfigError, flatten, parse_config, typed_text
from tensorboard.logdir.hparams_sources import (
    PRECEDENCE,
    ConfigFileWarning,
    config_files,
    run_hparams,
    segment_hparams,
)


def write_run(directory, steps=3):
    with SummaryWriter(str(directory)) as writer:
        for step in range(steps):
            writer.add_scalar("val/loss", 1.0 / (step + 1), step)


def hparams_of(logdir, hparams_file=None):
    listing = list_runs(str(logdir))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = run_hparams(listing, list(read_listed(listing)), hparams_file)
    return found, [str(w.message) for w in caught if issubclass(w.category, ConfigFileWarning)]


def test_lightning_hydra_ray_and_path_sources_with_types_and_dotted_keys(tmp_path):
    write_run(tmp_path / "lightning_logs" / "version_0")
    (tmp_path / "lightning_logs" / "version_0" / "hparams.yaml").write_text(
        "lr: 0.001\noptimizer:\n  name: adam\n  betas: [0.9, 0.99]\nuse_bn: true\nlayers: 4\nnote: null\n")
    job = tmp_path / "multirun" / "0"
    write_run(job / "tb")
    (job / ".hydra").mkdir()
    (job / ".hydra" / "config.yaml").write_text("model:\n  depth: 3\ndata: cifar\n")
    (job / ".hydra" / "overrides.yaml").write_text("- model.depth=3\n- +extra=on\n- ~data\n- hydra.job.chdir=true\n")
    trial = tmp_path / "ray" / "train_fn_00000_0_lr=0.0100_2026-01-01"
    write_run(trial)
    (trial / "params.json").write_text(json.dumps({"lr": 0.01, "net": {"width": 64}}))
    write_run(tmp_path / "sweep" / "lr=0.1,seed=3")
    write_run(tmp_path / "levels" / "lr=0.2" / "seed=4")

    found, warned = hparams_of(tmp_path)
    assert warned == []
    lightning = found["lightning_logs/version_0"]
    assert {key: h.value for key, h in lightning.items()} == {
        "lr": 0.001, "optimizer.name": "adam", "optimizer.betas": "[0.9, 0.99]", "use_bn": True, "layers": 4}
    assert {h.source for h in lightning.values()} == {"lightning"}
    assert lightning["lr"].origin.endswith("hparams.yaml")
    hydra = found["multirun/0/tb"]  # the job's .hydra is in a parent of the run's directory
    assert hydra["model.depth"].value == 3 and hydra["model.depth"].source == "hydra"
    assert hydra["extra"].value == "on" and hydra["extra"].source == "hydra_overrides"
    assert "hydra.job.chdir" not in hydra and hydra["data"].value == "cifar"
    ray = found["ray/train_fn_00000_0_lr=0.0100_2026-01-01"]
    assert ray["net.width"].value == 64 and ray["lr"].source == "ray_tune"
    comma = found["sweep/lr=0.1,seed=3"]
    assert (comma["lr"].value, comma["seed"].value, comma["seed"].source) == (0.1, 3, "path")
    levels = found["levels/lr=0.2/seed=4"]
    assert (levels["lr"].value, levels["seed"].value) == (0.2, 4)


def test_precedence_named_file_then_add_hparams_then_files_nearest_first_then_path(tmp_path):
    run = tmp_path / "lr=9" / "run"
    with SummaryWriter(str(run)) as writer:
        writer.add_hparams({"lr": 0.5, "only_logged": "x"}, {"hp/m": 1.0}, run_name=".")
    (run / "hparams.yaml").write_text("lr: 0.25\nwidth: 10\ndepth: 1\n")
    (tmp_path / "lr=9" / "hparams.yaml").write_text("width: 20\nfar: 1\n")
    (run / "exp.toml").write_text('depth = 7\n[opt]\nname = "sgd"\n')
    found, _ = hparams_of(tmp_path, "exp.toml")
    got = {key: (h.value, h.source) for key, h in found["lr=9/run"].items()}
    assert got == {"lr": (0.5, "add_hparams"), "only_logged": ("x", "add_hparams"), "width": (10, "lightning"),
                   "far": (1, "lightning"), "depth": (7, "hparams_file"), "opt.name": ("sgd", "hparams_file")}
    assert PRECEDENCE[:2] == ("hparams_file", "add_hparams") and PRECEDENCE[-1] == "path"


@pytest.mark.parametrize("name, text, line", [
    ("hparams.yaml", "lr: 0.1\n  bad: [\n", 2),
    ("params.json", '{"lr": 0.1,\n "x": }\n', 2),
    ("hparams.yaml", "!!python/object/apply:os.system ['echo hi']\n", 1),
])
def test_a_malformed_file_is_a_warning_with_its_line_and_the_run_is_still_read(tmp_path, name, text, line):
    write_run(tmp_path / "run")
    (tmp_path / "run" / name).write_text(text)
    write_run(tmp_path / "lr=0.5")
    found, warned = hparams_of(tmp_path)
    assert found["run"] == {} and found["lr=0.5"]["lr"].value == 0.5
    (message,) = warned
    assert str(tmp_path / "run" / name) in message and f"line {line}" in message


def test_hostile_files_are_bounded(tmp_path):
    with pytest.raises(ConfigError, match="larger than"):
        parse_config(b"a: 1\n" * (MAX_CONFIG_BYTES // 5 + 1), "big.yaml", "yaml")
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{c}: &{c} {{{', '.join(f'k{i}: *{p}' for i in range(10))}}}\n" for p, c in zip("abcdefg", "bcdefgh"))
    with pytest.raises(ConfigError, match=f"more than {MAX_KEYS} keys"):
        flatten(parse_config(bomb.encode(), "bomb.yaml", "yaml"), "bomb.yaml")
    with pytest.raises(ConfigError, match="nested too deeply"):
        flatten({"a": _deep(100)}, "deep.json")
    with pytest.raises(ConfigError, match="nested too deeply"):
        parse_config(b"[" * 200_000 + b"]" * 200_000, "deep.json", "json")
    with pytest.raises(ConfigError, match="expected a mapping"):
        flatten([1, 2], "list.json")
    with pytest.raises(ConfigError, match="not UTF-8"):
        parse_config(b"a: 1\nb: \xff\n", "bin.yaml", "yaml")


def _deep(levels):
    node = {"leaf": 1}
    for _ in range(levels):
        node = {"n": node}
    return node


def test_a_too_large_file_next_to_a_run_is_warned_about(tmp_path):
    write_run(tmp_path / "run")
    (tmp_path / "run" / "params.json").write_bytes(b" " * (MAX_CONFIG_BYTES + 10) + b"{}")
    found, warned = hparams_of(tmp_path)
    assert found["run"] == {} and "larger than" in warned[0]


def test_path_segments_and_typed_text():
    assert segment_hparams("lr=0.01,optimizer=adam,use_bn=True,+extra=1e-3") == {
        "lr": 0.01, "optimizer": "adam", "use_bn": True, "extra": 0.001}
    assert segment_hparams("version_0") is None and segment_hparams("a=1,b") is None
    assert segment_hparams("2026-01-01_lr=1") is None
    assert segment_hparams("train_fn_3c7b5_00001_1_lr=0.0100,momentum=0.9000_2026-11-28_10-00-01") == {
        "lr": 0.01, "momentum": 0.9}  # a Ray Tune trial's directory name
    assert [typed_text(t) for t in ("3", "-2", "0.5", "nan", "FALSE", "'q'", "adam")] == \
        [3, -2, 0.5, "nan", False, "q", "adam"]


def test_hparams_file_names_are_checked():
    assert config_files("conf/exp.yml")[0].fmt == "yaml"
    for bad in ("/etc/passwd.json", "../x.json", "exp.ini", "s3://b/x.json"):
        with pytest.raises(ValueError, match="--hparams_file"):
            config_files(bad)


def test_a_cache_reads_only_changed_files_and_warns_once_per_version(tmp_path):
    from tensorboard.logdir.hparams_sources import ConfigCache, discover_hparams

    write_run(tmp_path / "a")
    write_run(tmp_path / "b")
    (tmp_path / "a" / "hparams.yaml").write_text("lr: 0.1\n")
    (tmp_path / "b" / "hparams.yaml").write_text("lr: [\n")
    cache, warned = ConfigCache(), []
    listing = list_runs(str(tmp_path))
    first = discover_hparams(listing, warn=warned.append, cache=cache)
    assert first["a"]["lr"].value == 0.1 and first["b"] == {} and len(warned) == 1
    again = discover_hparams(list_runs(str(tmp_path)), warn=warned.append, cache=cache)
    assert again == first and len(warned) == 1  # nothing read again, the broken file not warned about twice
    (tmp_path / "a" / "hparams.yaml").write_text("lr: 0.25\n")  # another size: read again
    (tmp_path / "b" / "hparams.yaml").write_text("lr: 2\n")
    changed = discover_hparams(list_runs(str(tmp_path)), warn=warned.append, cache=cache)
    assert (changed["a"]["lr"].value, changed["b"]["lr"].value) == (0.25, 2) and len(warned) == 1
    (tmp_path / "b" / "hparams.yaml").unlink()
    assert discover_hparams(list_runs(str(tmp_path)), cache=cache)["b"] == {}
    assert sorted(cache.entries) == [str(tmp_path / "a" / "hparams.yaml")]
