"""Run metadata: what is recorded (command, git, host, versions, start), once per run, and what never
is (secrets, by the rule in tensorboard.system.secrets)."""
from __future__ import annotations

import importlib.metadata
import os
import platform
import shlex
import socket
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

import tensorboard
from tensorboard.reader import SummaryReader
from tensorboard.system.secrets import REDACTED, is_secret_name, redact_argv

REPO_PYTHON = str(Path(__file__).resolve().parents[2] / "python")
SECRETS = ("S3CR3T-TOKEN-VALUE", "hunter2hunter2", "pw-in-url", "ENV-ONLY-SECRET",
           "ghp_abcdefghijklmnopqrstuvwxyz012345")


@pytest.mark.parametrize("argv, expected", [
    (["--token", "abc", "--lr", "3"], ["--token", REDACTED, "--lr", "3"]),
    (["--token=abc", "--api-key=abc", "--apiKey", "abc"], ["--token=***", "--api-key=***", "--apiKey", REDACTED]),
    (["--aws_secret_access_key", "abc", "--password", "--next"], ["--aws_secret_access_key", REDACTED,
                                                                  "--password", "--next"]),
    (["db.password=abc", "+OPENAI_API_KEY=abc", "lr=0.1"], ["db.password=***", "+OPENAI_API_KEY=***", "lr=0.1"]),
    (["--tokenizer", "bert", "--max_tokens", "5", "--keyboard", "x"],
     ["--tokenizer", "bert", "--max_tokens", "5", "--keyboard", "x"]),
    (["https://user:pw@host/x", "s3://bucket/key"], ["https://***@host/x", "s3://bucket/key"]),
    (["ghp_abcdefghijklmnop1234", "Bearer abc.def", "AKIAABCDEFGHIJKLMNOP"], [REDACTED, REDACTED, REDACTED]),
    (["-p", "8080", "train.py"], ["-p", "8080", "train.py"]),
])
def test_the_secret_rule(argv, expected):
    assert redact_argv(argv) == expected


def test_secret_names_by_word_not_by_substring():
    assert all(map(is_secret_name, ["HF_TOKEN", "hfToken", "client-secret", "x.auth", "PRIVATE_KEY", "passwd"]))
    assert not any(map(is_secret_name, ["tokenizer", "num_tokens", "author", "monkey", "keys", "passes"]))


def git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True,
                          env=env).stdout.strip()


def run_script(repo: Path, logdir: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": REPO_PYTHON, "MY_API_KEY": "ENV-ONLY-SECRET"}
    env.pop("TB_RUN_METADATA", None)
    return subprocess.run([sys.executable, str(repo / "train.py"), str(logdir), *args], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def script_repo(tmp_path) -> Path:
    repo = tmp_path / "code"
    repo.mkdir()
    (repo / "train.py").write_text(
        "import sys, numpy, tensorboard\n"
        "with tensorboard.SummaryWriter(sys.argv[1]) as w:\n"
        "    w.add_scalar('loss', 0.5, 1)\n")
    git(repo, "init", "-q")
    git(repo, "add", "train.py")
    git(repo, "commit", "-q", "-m", "first")
    return repo


def test_a_run_records_where_it_came_from_and_no_secret(script_repo, tmp_path):
    logdir = tmp_path / "logs"
    before = datetime.now(timezone.utc).replace(microsecond=0)
    result = run_script(script_repo, logdir / "run", "--token", "S3CR3T-TOKEN-VALUE", "--lr", "0.1",
                        "db.password=hunter2hunter2", "https://me:pw-in-url@example.com/data",
                        "ghp_abcdefghijklmnopqrstuvwxyz012345")
    assert result.returncode == 0, result.stderr
    fields = SummaryReader(str(logdir)).metadata["run"]
    assert fields["git.commit"] == git(script_repo, "rev-parse", "HEAD") and fields["git.dirty"] is False
    assert fields["host"] == socket.gethostname() and fields["python"] == platform.python_version()
    assert fields["versions.numpy"] == __import__("numpy").__version__
    assert fields["versions.tensorboard"] == importlib.metadata.version("tensorboard")
    assert before <= datetime.fromisoformat(fields["start_time"]) <= datetime.now(timezone.utc) + timedelta(seconds=1)
    assert shlex.split(fields["command"])[1:] == [
        str(script_repo / "train.py"), str(logdir / "run"), "--token", REDACTED, "--lr", "0.1",
        "db.password=***", "https://***@example.com/data", REDACTED]
    written = b"".join(path.read_bytes() for path in (logdir / "run").iterdir())
    for secret in SECRETS:
        assert secret.encode() not in written


def test_a_dirty_tree_is_recorded_as_dirty(script_repo, tmp_path):
    with open(script_repo / "train.py", "a") as script:
        script.write("# changed\n")
    assert run_script(script_repo, tmp_path / "logs").returncode == 0
    assert SummaryReader(str(tmp_path / "logs")).metadata["."]["git.dirty"] is True


def test_once_per_run_and_off_when_asked(tmp_path, monkeypatch):
    monkeypatch.delenv("TB_RUN_METADATA", raising=False)
    for _ in range(2):
        with tensorboard.SummaryWriter(str(tmp_path / "on")) as writer:
            writer.add_scalar("x", 1.0, 0)
    with tensorboard.SummaryWriter(str(tmp_path / "off"), metadata=False) as writer:
        writer.add_scalar("x", 1.0, 0)
    reader = SummaryReader(str(tmp_path))
    assert set(reader.metadata) == {"on"}
    assert list(reader.text.tag) == ["run/metadata", "run/metadata_fields"]  # one event, in the run "on" only


def test_the_environment_turns_metadata_off(tmp_path, monkeypatch):
    monkeypatch.setenv("TB_RUN_METADATA", "0")
    with tensorboard.SummaryWriter(str(tmp_path)) as writer:
        writer.add_scalar("x", 1.0, 0)
    assert SummaryReader(str(tmp_path)).metadata == {}
