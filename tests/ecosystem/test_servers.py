"""Upstream's ways of starting a server, on our wheel: `%load_ext tensorboard` + `%tensorboard` in
IPython, `python -m tensorboard.main` and `tensorboard.program.TensorBoard`. Each serves a logdir
our logger wrote, on 127.0.0.1, and is stopped by the test."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import textwrap
import time
import urllib.request
from pathlib import Path

from eco_helpers import eco_env, eco_python, run_eco
from waiting import free_port

WRITE = """
import tensorboard
with tensorboard.SummaryWriter("logs/run") as w:
    for step in range(5):
        w.add_scalar("loss", 1.0 / (step + 1), step)
"""
DEADLINE_S = 180  # guards against a hang only


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=30) as resp:
        return json.loads(resp.read())


def wait_for(url: str, proc: subprocess.Popen | None = None):
    deadline = time.monotonic() + DEADLINE_S
    while True:
        try:
            return get_json(url)
        except OSError:
            if proc is not None and proc.poll() is not None:
                raise AssertionError(f"server exited with {proc.returncode}")
            if time.monotonic() > deadline:
                raise AssertionError(f"{url} never answered")
            time.sleep(0.3)


def processes_mentioning(text: str) -> list[int]:
    """Pids whose command line contains `text` (to prove nothing is left running)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if text.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


# An IPython shell with our extension loaded, and the imports the magic scripts use.
MAGIC_SHELL = ("import json, os, signal, time, urllib.request\n"
               "from IPython.core.interactiveshell import InteractiveShell; from tensorboard import manager\n"
               "shell = InteractiveShell.instance(); shell.run_line_magic('load_ext', 'tensorboard')\n")


def own_info_dir(tmp_path) -> str:
    """A TMPDIR of the test's own: the magic's server list (`<TMPDIR>/.tensorboard-info`) then holds
    only this test's servers, never another process's, live or stale."""
    path = tmp_path / "tmp"
    path.mkdir(exist_ok=True)
    return str(path)


def stop_own_servers(tmp_path) -> None:
    """SIGTERM to every server listed in the test's own info dir: run in `finally`, so a failing
    test leaves no server behind."""
    for path in (Path(own_info_dir(tmp_path)) / ".tensorboard-info").glob("pid-*.info"):
        try:
            os.kill(json.loads(path.read_text())["pid"], signal.SIGTERM)
        except (OSError, ValueError, KeyError):
            pass


def assert_server_gone(tmp_path) -> None:
    """Waits (30 s at most) for the servers of `tmp_path` to exit after their SIGTERM, then checks."""
    deadline = time.monotonic() + 30
    while processes_mentioning(str(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not processes_mentioning(str(tmp_path)), "the %tensorboard server is still running"


def run_magic(tmp_path, script: str) -> dict:
    """Writes a run into `<tmp_path>/logs`, runs `script` after MAGIC_SHELL in the ecosystem venv with
    the test's own info dir, and returns its JSON once every server it started has exited; the
    servers are stopped even when the script fails."""
    run_eco(WRITE, tmp_path)
    try:
        out = run_eco(MAGIC_SHELL + textwrap.dedent(script), tmp_path, TMPDIR=own_info_dir(tmp_path))
    finally:
        stop_own_servers(tmp_path)
    assert_server_gone(tmp_path)
    return out


def test_ipython_tensorboard_magic_starts_our_launcher(tmp_path):
    port = free_port()
    out = run_magic(tmp_path, f"""
        shell.run_line_magic("tensorboard", "--logdir logs --port {port} --host 127.0.0.1")
        info, = [i for i in manager.get_all() if i.port == {port}]
        with urllib.request.urlopen("http://127.0.0.1:{port}/data/runs", timeout=30) as resp:
            runs = json.loads(resp.read())
        deadline = time.monotonic() + 60
        while "run" not in runs and time.monotonic() < deadline:
            time.sleep(0.5)
            with urllib.request.urlopen("http://127.0.0.1:{port}/data/runs", timeout=30) as resp:
                runs = json.loads(resp.read())
        os.kill(info.pid, signal.SIGTERM)
        print(json.dumps({{"pid": info.pid, "runs": runs}}))
    """)
    assert out["runs"] == ["run"]


def test_python_m_tensorboard_main_serves_with_every_plugin(tmp_path):
    run_eco(WRITE, tmp_path)
    port = free_port()
    proc = subprocess.Popen([eco_python(), "-m", "tensorboard.main", "--logdir", "logs", "--port", str(port),
                             "--host", "127.0.0.1"], cwd=str(tmp_path), env=eco_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        listing = wait_for(f"http://127.0.0.1:{port}/data/plugins_listing", proc)
        assert {"scalars", "projector", "hparams", "timeseries"} <= set(listing)
        deadline = time.monotonic() + 60
        while wait_for(f"http://127.0.0.1:{port}/data/runs") != ["run"] and time.monotonic() < deadline:
            time.sleep(0.5)
        tags = get_json(f"http://127.0.0.1:{port}/data/plugin/scalars/tags")
        assert "loss" in tags["run"]
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_program_tensorboard_in_process(tmp_path):
    run_eco(WRITE, tmp_path)
    port = free_port()
    out = run_eco(f"""
        import json, time, urllib.error, urllib.request
        from tensorboard import program
        tb = program.TensorBoard()
        tb.configure(argv=[None, "--logdir", "logs", "--port", "{port}", "--host", "127.0.0.1", "--load_fast", "false"])
        url = tb.launch()
        deadline = time.monotonic() + 60
        while True:
            with urllib.request.urlopen(url + "data/plugin/scalars/tags", timeout=30) as resp:
                tags = json.loads(resp.read())
            if "run" in tags or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        with urllib.request.urlopen(url + "data/plugins_listing", timeout=30) as resp:
            plugins = sorted(json.loads(resp.read()))
        forged = urllib.request.Request(url + "data/runs", headers={{"Host": "attacker.example"}})
        try:
            forged_status = urllib.request.urlopen(forged, timeout=30).status
        except urllib.error.HTTPError as err:
            forged_status = err.code
        print(json.dumps({{"url": url, "tags": tags, "plugins": plugins, "forged": forged_status}}))
    """, tmp_path)  # the server thread ends with the interpreter
    assert out["url"] == f"http://127.0.0.1:{port}/"
    assert "loss" in out["tags"]["run"] and "projector" in out["plugins"]
    assert out["forged"] == 403  # an embedded server keeps the Host rule (tensorboard.serving.access)


def test_ipython_magic_without_host_finds_and_reuses_its_server(tmp_path):
    """`%tensorboard --logdir logs` (no --host): the launcher adds --host=127.0.0.1, but the server's
    cache key stays that of the user's arguments, so the magic finds it at once and reuses it."""
    port = free_port()
    out = run_magic(tmp_path, f"""
        shell.run_line_magic("tensorboard", "--logdir logs --port {port}")
        again = manager.start(["--logdir", "logs", "--port", "{port}"])
        infos = [i for i in manager.get_all() if i.port == {port}]
        for info in infos:
            os.kill(info.pid, signal.SIGTERM)
        print(json.dumps({{"found": len(infos), "again": type(again).__name__}}))
    """)
    assert out["found"] == 1 and out["again"] == "StartReused"


def test_tensorboard_magic_in_a_jupyter_kernel_is_answered_as_the_notebook_asks(tmp_path):
    """`%tensorboard` in a real Jupyter kernel (nbclient): the cell shows the frame of the server on its port, and
    the server answers what that frame asks (Host `localhost:PORT`) while refusing a forged host."""
    port = free_port()
    run_eco(WRITE, tmp_path)
    try:
        out = run_eco(f"""
            import json, urllib.error, urllib.request
            import nbformat
            from nbclient import NotebookClient
            cells = ["%load_ext tensorboard", "%tensorboard --logdir logs --port {port}"]
            notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell) for cell in cells])

            def status(host):
                request = urllib.request.Request("http://127.0.0.1:{port}/data/runs", headers={{"Host": host}})
                try:
                    with urllib.request.urlopen(request, timeout=30) as response:
                        return response.status
                except urllib.error.HTTPError as err:
                    return err.code

            client = NotebookClient(notebook, timeout=300, kernel_name="python3")
            with client.setup_kernel():  # the server lives as long as the kernel that started it
                for index, cell in enumerate(notebook.cells):
                    client.execute_cell(cell, index)
                shown = json.dumps([output.get("data", {{}}) for output in notebook.cells[1].outputs])
                answers = {{"local": status("localhost:{port}"), "forged": status("attacker.example")}}
            print(json.dumps({{"frame": "iframe" in shown and "{port}" in shown, **answers}}))
        """, tmp_path, TMPDIR=own_info_dir(tmp_path))
    finally:
        stop_own_servers(tmp_path)
    assert_server_gone(tmp_path)
    assert out == {"frame": True, "local": 200, "forged": 403}
