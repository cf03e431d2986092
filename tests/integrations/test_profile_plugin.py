"""The profile plugin (PyPI `tensorboard-plugin-profile`, i.e. xprof) on our `tensorboard`: it reads its own
`<run>/plugins/profile/<session>/<host>.xplane.pb` files, and must answer the same whether our reader serves the
logdir (the default, --data_provider=auto) or upstream's native data server does (--data_provider=native).

The XSpace is a real one, written by `jax.profiler.trace` in .venv (with scalars from our writer in the same run).
The servers run on .venv-ecosystem's interpreter, where tools/test_envs.sh installs the plugin beside our wheel;
each serves its own copy of the logdir (the plugin caches each session's tool list in the session's directory)."""
from __future__ import annotations

import gzip
import json
import shutil
import subprocess
import sys
import textwrap
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO / "tests" / "serving"), str(REPO / "tests" / "e2e")]
from e2e_helpers import clean_env, stop_server  # noqa: E402
from serving_helpers import start_launcher, wait_until  # noqa: E402

ECO_PYTHON = REPO / ".venv-ecosystem" / "bin" / "python"
PROVIDERS = ("auto", "native")  # auto: ours, the default
RUN = "train"
STEPS = 3

# Three calls of one jitted function under the profiler (its XLA module is named jit_step), then the loss as scalars.
TRACE = textwrap.dedent("""
    import sys
    import jax
    import jax.numpy as jnp
    from tensorboard import SummaryWriter

    run, steps = sys.argv[1], int(sys.argv[2])

    @jax.jit
    def step(x):
        return jnp.sin(x) @ jnp.cos(x)

    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 0  # a small file: XLA and runtime events only
    losses = []
    with jax.profiler.trace(run, profiler_options=options):
        for i in range(steps):
            losses.append(float(step(jnp.arange(64.0) + i).block_until_ready()))
    with SummaryWriter(run) as writer:
        for i, loss in enumerate(losses):
            writer.add_scalar("loss", loss, i)
""")


@pytest.fixture(scope="module")
def profile_logdir(tmp_path_factory) -> tuple[Path, str, str]:
    """(logdir, session, host): logdir/train holds an event file and plugins/profile/<session>/<host>.xplane.pb."""
    logdir = tmp_path_factory.mktemp("profile") / "logs"
    out = subprocess.run([sys.executable, "-c", TRACE, str(logdir / RUN), str(STEPS)], capture_output=True, text=True,
                         env=clean_env(PYTHONPATH=str(REPO / "python")), timeout=120)
    assert out.returncode == 0, "jax.profiler.trace failed:\n" + out.stderr[-3000:]
    (xplane,) = (logdir / RUN / "plugins" / "profile").glob("*/*.xplane.pb")
    assert xplane.stat().st_size > 1000, xplane
    assert list((logdir / RUN).glob("events.out.tfevents.*")), "no event file"
    return logdir, xplane.parent.name, xplane.name.removesuffix(".xplane.pb")


@pytest.fixture(scope="module")
def servers(profile_logdir, tmp_path_factory):
    """{provider: server} for auto (ours) and native, on .venv-ecosystem's interpreter; all stopped at the end."""
    assert ECO_PYTHON.exists(), f"{ECO_PYTHON} is missing: run `bash tools/test_envs.sh`"
    logdir, _, _ = profile_logdir
    tmp = tmp_path_factory.mktemp("profile_servers")
    copies = {provider: shutil.copytree(logdir, tmp / provider / "logs") for provider in PROVIDERS}
    started, errors = {}, []
    try:
        with ThreadPoolExecutor(len(PROVIDERS)) as pool:  # each is stopped even if the other fails to start
            futures = {provider: pool.submit(start_launcher, copies[provider], tmp, "--host=127.0.0.1",
                                             "--data_provider=" + provider, python=str(ECO_PYTHON))
                       for provider in PROVIDERS}
        for provider, future in futures.items():
            try:
                started[provider] = future.result()
            except AssertionError as err:
                errors.append(err)
        if errors:
            raise errors[0]
        yield started
    finally:
        for server in started.values():
            stop_server(server)


def plugin_get(server, route: str) -> bytes:
    """The body of GET /data/plugin/profile/<route>, gunzipped: the plugin gzips every answer, asked or not."""
    with urllib.request.urlopen(f"{server.url}/data/plugin/profile/{route}", timeout=60) as response:
        assert response.status == 200, (server.url, route, response.status)
        body = response.read()
        return gzip.decompress(body) if response.headers.get("Content-Encoding") == "gzip" else body


def plugin_json(server, route: str):
    return json.loads(plugin_get(server, route))


def numbered_flows(trace: dict) -> dict:
    """`trace` with each flow's bind_id replaced by the flow's number in order of first appearance: the plugin draws
    bind_ids at random in each server process, while which events a flow binds comes from the XSpace."""
    numbers: dict = {}
    events = [{**event, "bind_id": numbers.setdefault(event["bind_id"], len(numbers))} if "bind_id" in event else event
              for event in trace["traceEvents"]]
    return {**trace, "traceEvents": events}


def test_the_plugin_is_installed_beside_our_tensorboard():
    code = ("import json; from importlib.metadata import version\n"
            "import xprof.profile_plugin_loader, tensorboard_plugin_profile\n"
            "print(json.dumps({n: version(n) for n in ('tensorboard', 'tensorboard-plugin-profile', 'xprof')}))")
    out = subprocess.run([str(ECO_PYTHON), "-c", code], capture_output=True, text=True, env=clean_env(), timeout=60)
    assert out.returncode == 0, out.stderr[-3000:]
    versions = json.loads(out.stdout)
    assert "+standalone" in versions["tensorboard"], versions
    assert versions["tensorboard-plugin-profile"] == versions["xprof"], versions


def assert_same_answers(servers, answer) -> None:
    """`answer(provider, server)` (which asserts what each server must answer) is the same on both servers."""
    answers = {provider: answer(provider, server) for provider, server in servers.items()}
    assert answers["auto"] == answers["native"]


def test_each_server_serves_through_the_path_asked_for_and_lists_the_run(servers):
    assert "through standalone TensorBoard's reader (--data_provider=standalone)" in servers["auto"].log()
    assert "through upstream's native data server (--data_provider=native)" in servers["native"].log()
    for provider, server in servers.items():
        assert wait_until(lambda: server.get("/data/runs") == [RUN], f"{provider} lists run {RUN}")
        assert wait_until(lambda: "loss" in server.get("/data/plugin/scalars/tags").get(RUN, {}), f"{provider}: loss")


def test_the_plugin_is_listed_active_the_same_way(servers):
    listings = {provider: server.get("/data/plugins_listing") for provider, server in servers.items()}
    for provider, listing in listings.items():
        assert listing["profile"]["enabled"] is True, (provider, listing["profile"])
        assert listing["profile"]["loading_mechanism"] == {"type": "IFRAME",
                                                           "module_path": "/data/plugin/profile/index.js"}, provider
    assert listings["auto"] == listings["native"]


def test_runs_tools_and_hosts_are_the_same(servers, profile_logdir):
    _, session, host = profile_logdir
    profile_run = f"{RUN}/{session}"

    def answer(provider, server):
        runs = plugin_json(server, "runs")
        assert runs == [profile_run], provider
        tools = plugin_json(server, f"run_tools?run={profile_run}")
        assert {"overview_page", "trace_viewer@", "graph_viewer", "op_profile", "memory_viewer"} <= set(tools), tools
        hosts = {tool: plugin_json(server, f"hosts?run={profile_run}&tag={tool}") for tool in tools}
        assert hosts["trace_viewer@"] == [{"hostname": host}], hosts
        return runs, tools, hosts

    assert_same_answers(servers, answer)


def test_the_xspace_itself_is_read_the_same(servers, profile_logdir):
    """The tools' data comes from the XSpace: the HLO module list and the trace name the jitted function."""
    _, session, host = profile_logdir
    query = f"run={RUN}/{session}&host={host}"

    def answer(provider, server):
        modules = plugin_get(server, f"module_list?{query}&tag=graph_viewer").decode().split(",")
        assert any(name.startswith("jit_step(") for name in modules), modules
        trace = plugin_json(server, f"data?{query}&tag=trace_viewer@")
        names = {event.get("name", "") for event in trace["traceEvents"]}
        assert any("jit_step" in name for name in names), sorted(names)[:50]
        assert any("bind_id" in event for event in trace["traceEvents"]), "no flow to compare"
        return modules, numbered_flows(trace)

    assert_same_answers(servers, answer)
