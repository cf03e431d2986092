"""`--over` groups runs by configuration and tells about groups of one; discovered hparams become the
HParams plugin content add_hparams would have written; metrics as last, min or max."""
import pytest

from tensorboard.logdir import RunData
from tensorboard.logdir.grouping import group_over, mixed_groups
from tensorboard.logdir.hparams_plugin import experiment_content, session_start_content
from tensorboard.logdir.metrics import MetricChoice, metric_values, parse_metrics, shared_scalar_tags
from tensorboard.src import hparams_pb2
from tensorboard.summary.hparams import hparams as hparams_summary

SWEEP = {f"lr={lr},opt={opt},seed={seed}": {"lr": lr, "opt": opt, "seed": seed, "epochs": 10}
         for lr in (0.01, 0.1) for opt in ("adam", "sgd") for seed in (1, 2, 3)}


def test_over_seed_groups_every_other_setting_and_names_groups_by_what_varies():
    grouping = group_over(SWEEP, ["seed"])
    assert grouping.varying == ["lr", "opt"]
    assert [g.name for g in grouping.groups] == ["lr=0.01,opt=adam", "lr=0.01,opt=sgd", "lr=0.1,opt=adam",
                                                 "lr=0.1,opt=sgd"]
    assert all(len(g.runs) == 3 for g in grouping.groups) and grouping.notes == []
    assert grouping.groups[0].config == {"epochs": 10, "lr": 0.01, "opt": "adam"}
    assert [g.name for g in group_over(SWEEP, "seed,opt").groups] == ["lr=0.01", "lr=0.1"]
    assert [g.name for g in group_over(SWEEP, ["seed", "opt", "lr"]).groups] == ["all"]


def test_groups_of_one_and_runs_lacking_the_key_are_told():
    runs = dict(SWEEP)
    runs["odd"] = {"lr": 0.5, "opt": "adam", "epochs": 10}
    runs["lr=0.01,opt=adam,seed=1"] = {**runs["lr=0.01,opt=adam,seed=1"], "out_dir": "x1"}
    grouping = group_over(runs, ["seed"])
    text = " | ".join(grouping.notes)
    assert "2 of 6 groups hold one run" in text and "odd" in text
    assert "1 runs have no 'seed' (odd)" in text
    with pytest.raises(ValueError, match="--over: no run has a hyperparameter 'sed'; the keys are: epochs, lr"):
        group_over(runs, ["sed"])
    unique = {f"r{i}": {"seed": i, "out": f"/tmp/{i}"} for i in range(3)}
    assert "out differ in every run" in group_over(unique, ["seed"]).notes[0]


def test_mixed_groups_name_the_keys_their_runs_disagree_on():
    groups = {"a": ["lr=0.01,opt=adam,seed=1", "lr=0.01,opt=sgd,seed=2"], "b": ["lr=0.1,opt=adam,seed=1"]}
    assert mixed_groups(groups, SWEEP, ignore=["seed"]) == {"a": ["opt"]}


def test_session_start_content_is_what_add_hparams_writes():
    values = {"lr": 0.01, "opt": "adam", "use_bn": True, "layers": 4}
    _, start, _ = hparams_summary(values, {"m": 0}, start_time_secs=12.5)
    assert session_start_content(values, start_time_secs=12.5) == start.value[0].metadata.plugin_data.content


def test_experiment_content_types_domains_and_metrics():
    content = experiment_content({"a": {"lr": 0.1, "opt": "adam", "flag": True, "mixed": 1},
                                  "b": {"lr": 0.01, "opt": "sgd", "flag": True, "mixed": "x"}},
                                 [MetricChoice("val/loss", "min"), MetricChoice("val/acc")])
    experiment = hparams_pb2.HParamsPluginData.FromString(content).experiment
    infos = {info.name: info for info in experiment.hparam_infos}
    assert infos["lr"].type == hparams_pb2.DATA_TYPE_FLOAT64 and infos["lr"].differs
    assert [v.number_value for v in infos["lr"].domain_discrete.values] == [0.01, 0.1]
    assert infos["flag"].type == hparams_pb2.DATA_TYPE_BOOL and not infos["flag"].differs
    assert infos["mixed"].type == hparams_pb2.DATA_TYPE_STRING
    assert [v.string_value for v in infos["mixed"].domain_discrete.values] == ["1", "x"]
    assert [m.name.tag for m in experiment.metric_infos] == ["val/loss (min)", "val/acc"]


def scalar_run(name, points):
    run = RunData(name)
    for tag, step, value in points:
        run.scalars.add(tag, step, float(step), 0, value)
    return run


def test_metrics_last_min_max_and_shared_tags():
    run = scalar_run("r", [("loss", 0, 3.0), ("loss", 2, 1.0), ("loss", 1, float("nan")), ("loss", 3, 2.0),
                           ("acc", 0, 0.5)])
    choices = parse_metrics("loss=min,loss=max,loss,acc=last,missing=max")
    assert metric_values(run, choices) == {"loss (min)": 1.0, "loss (max)": 3.0, "loss": 2.0, "acc": 0.5,
                                           "missing (max)": None}
    assert parse_metrics({"val/loss": "min"}) == [MetricChoice("val/loss", "min")]
    with pytest.raises(ValueError, match="'best' for 'loss' is not one of last, min, max"):
        parse_metrics("loss=best")
    other = scalar_run("s", [("acc", 0, 1.0), ("loss", 0, 1.0), ("_hparams_/x", 0, 0.0)])
    assert shared_scalar_tags([run, other, RunData("empty")]) == ["loss", "acc"]


UPSTREAM_PARSE = """
import json, sys
from google.protobuf import json_format
from tensorboard.plugins.hparams import metadata
experiment, start = (bytes.fromhex(h) for h in sys.argv[1:3])
print(json.dumps({"experiment": json_format.MessageToDict(metadata.parse_experiment_plugin_data(experiment)),
                  "start": json_format.MessageToDict(metadata.parse_session_start_info_plugin_data(start))}))
"""


def test_upstreams_hparams_plugin_parses_the_served_content(tmp_path):
    import json
    import subprocess

    from upstream import upstream_python

    from tensorboard.logdir import list_runs, read_listed
    from tensorboard.logdir.hparams_plugin import served_hparams
    from tensorboard.writer import SummaryWriter

    for lr, opt in ((0.01, "adam"), (0.1, "sgd")):
        with SummaryWriter(str(tmp_path / f"lr={lr},opt={opt}")) as writer:
            for step in range(3):
                writer.add_scalar("val/loss", lr + 1 / (step + 1), step)
    listing = list_runs(str(tmp_path))
    served = served_hparams(listing, list(read_listed(listing)), hparams_metrics="val/loss=min",
                            groups={"lr=0.1,opt=sgd": "opt=sgd"})
    assert served.metric_values == {"lr=0.01,opt=adam": {"val/loss (min)": pytest.approx(0.01 + 1 / 3)},
                                    "lr=0.1,opt=sgd": {"val/loss (min)": pytest.approx(0.1 + 1 / 3)}}
    done = subprocess.run([upstream_python(), "-c", UPSTREAM_PARSE, served.experiment.hex(),
                           served.session_starts["lr=0.1,opt=sgd"].hex()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    parsed = json.loads(done.stdout)
    infos = {info["name"]: info for info in parsed["experiment"]["hparamInfos"]}
    assert infos["lr"]["type"] == "DATA_TYPE_FLOAT64" and infos["opt"]["type"] == "DATA_TYPE_STRING"
    assert infos["opt"]["domainDiscrete"] == ["adam", "sgd"] and infos["lr"]["differs"] is True
    assert parsed["experiment"]["metricInfos"] == [{"name": {"tag": "val/loss (min)"}}]
    assert parsed["start"]["hparams"] == {"lr": 0.1, "opt": "sgd"} and parsed["start"]["groupName"] == "opt=sgd"


def test_aggregate_and_discovery_for_runs_a_server_found_itself(tmp_path):
    from tensorboard.events.storage import storage_for
    from tensorboard.logdir.discovery import Listing
    from tensorboard.logdir.hparams_sources import discover_hparams
    from tensorboard.logdir.metrics import aggregate

    assert aggregate([0, 2, 1, 2], [5.0, 1.0, float("nan"), 3.0], "last") == 3.0
    assert aggregate([0, 1], [float("nan"), 2.0], "min") == 2.0 and aggregate([], [], "max") is None
    assert aggregate([0], [float("nan")], "max") is None
    (tmp_path / "job" / ".hydra").mkdir(parents=True)
    (tmp_path / "job" / ".hydra" / "config.yaml").write_text("lr: 0.1\n")
    (tmp_path / "job" / "tb").mkdir()
    found = discover_hparams(Listing(storage_for(str(tmp_path)), [], root=str(tmp_path)),
                             directories={"job/tb": str(tmp_path / "job" / "tb"), "seed=2": str(tmp_path / "seed=2")})
    assert found["job/tb"]["lr"].value == 0.1 and found["job/tb"]["lr"].source == "hydra"
    assert found["seed=2"]["seed"].value == 2
