"""pip sees our wheel as the `tensorboard` distribution: installing a package that depends on
`tensorboard` (tbparse) next to it keeps our wheel, and `pip check` is clean."""
import subprocess
import sys

from build_version import build_version, built_wheel
from eco_helpers import eco_env


def test_pip_install_tbparse_keeps_our_wheel(tmp_path):
    wheel = built_wheel()
    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True)
    pip = [str(env_dir / "bin" / "python"), "-m", "pip"]
    subprocess.run(pip + ["install", "-q", str(wheel)], check=True, env=eco_env())
    result = subprocess.run(pip + ["install", "tbparse==0.0.9"], env=eco_env(), capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    assert "Uninstalling tensorboard" not in result.stdout
    frozen = subprocess.run(pip + ["list", "--format=freeze"], env=eco_env(), capture_output=True, text=True,
                            check=True).stdout
    assert f"tensorboard=={build_version()}" in frozen.splitlines()
    assert "tbparse==0.0.9" in frozen.splitlines()
    check = subprocess.run(pip + ["check"], env=eco_env(), capture_output=True, text=True)
    assert check.returncode == 0, check.stdout
    probe = "import tensorboard, tbparse; print(tensorboard.__version__, tensorboard.SummaryWriter.__name__)"
    out = subprocess.run([str(env_dir / "bin" / "python"), "-c", probe], env=eco_env(), capture_output=True,
                         text=True, check=True).stdout.split()
    assert out == [build_version(), "SummaryWriter"]
