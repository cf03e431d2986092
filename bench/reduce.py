"""Seeds and sweeps: `tensorboard reduce` against tensorboard-reducer, and 1,000 runs grouped 10 by 10.

1. **Seeds, end to end.** --seeds runs (default 5) of --tags float32 scalar tags x --steps steps
   (4 x 20,000), each written by our SummaryWriter, reduced with `-r mean,std,min,max,median` by
   `tb-reducer SEED_DIRS... -o OUT/` (tensorboard-reducer 0.4.0 in .venv-upstream, PYTHONPATH unset) and
   by `python -m tensorboard.cli.reduce SEED_DIRS... --out OUT` (ours, PYTHONPATH=<repo>/python): wall
   time of each, median of --reps fresh processes, alternating. Goal: ours >= 20x faster. Both outputs
   are read back with our reader: the steps each kept per tag (tensorboard-reducer reads through
   upstream's EventAccumulator, which keeps a 10,000-point reservoir sample of a longer tag) and the
   values of the two `mean` runs at the steps both kept, which should not differ.
2. **A sweep grouped.** --runs runs (default 1,000) `cfg{g}_seed{k}`, --group-size per group (10), one
   tag x 1,000 scalars each: (a) `tensorboard reduce --logdir D --group_by '_seed\\d+' -r mean,std`,
   median of --reps fresh processes; (b) the web UI's first load through our reader
   (`--data_provider=standalone`) without and then with `--group_runs '_seed\\d+'`, timed by
   bench/serving.py's `serve` (until every run is listed and the last run's scalars are served; with
   the groups, the last run is the last group's run, "cfg99 (mean)").

Prints a table to stderr and one JSON line last on stdout (`target_met`: the 20x goal; `agree`: no mean
value differs); exits 1 when the goal is missed, the means differ or a measurement failed (`error`).

    python bench/reduce.py                                   # full sizes, 3 fresh processes each
    python bench/reduce.py --steps 2000 --runs 20 --reps 1   # a quick look
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serving  # noqa: E402
from envs import REPO, env_for, python_of, venv_dir  # noqa: E402  (bench/envs.py)
from logdirs import ScalarRun, our_tensorboard, write_scalar_runs  # noqa: E402
from page_cache import warm  # noqa: E402
from run import render_text  # noqa: E402
from smoothing_reference import plain_smoothing  # noqa: E402
from timing import summary, timed_process  # noqa: E402

OPS = "mean,std,min,max,median"
GROUP_OPS = "mean,std"
GROUP_BY = r"_seed\d+"
SPEED_TARGET = 20.0  # ours vs tensorboard-reducer, end to end
SMOOTH_TARGET = 10.0  # tensorboard.reader.smooth vs a plain loop of the same algorithm, 1M points
SMOOTH_POINTS = 1_000_000


def smoothing(result: dict, points: int, reps: int) -> None:
    """`smooth` against the plain loop on `points` random-walk points at weight 0.6, each called once
    first, then the median of `reps` (at least 11) calls."""
    import numpy as np

    from tensorboard.reader import smooth

    values = np.random.default_rng(0).standard_normal(points).cumsum()
    listed = values.tolist()
    timings = {}
    for name, run in (("vectorised", lambda: smooth(values, 0.6)), ("loop", lambda: plain_smoothing(listed, 0.6))):
        run()  # a first call, untimed: imports and first-use costs are not the algorithm's
        times = []
        for _ in range(max(reps, 11)):
            started = time.perf_counter()
            run()
            times.append(time.perf_counter() - started)
        timings[name] = summary(times)
    result.update(points=points, weight=0.6, reps=reps, **timings,
                  speedup=round(timings["loop"]["median_s"] / timings["vectorised"]["median_s"], 1))
TIMEOUT_S = 3600  # per process; guards against a hang only


def reducer_cli() -> str:
    return os.path.join(venv_dir("peers"), "bin", "tb-reducer")


def reducer_version() -> str | None:
    python, env = env_for("tbx")
    try:
        proc = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('tensorboard-reducer'))"],
                              env=env, capture_output=True, text=True, timeout=300)
    except OSError:
        return None
    return (proc.stdout.strip() or None) if proc.returncode == 0 else None


# -- logdirs ------------------------------------------------------------------------------------------

def write_seeds(root: str, seeds: int, tags: int, steps: int) -> list[str]:
    """`seeds` run directories of `tags` float32 scalar tags x `steps` steps, by our SummaryWriter."""
    import numpy as np

    rng = np.random.default_rng(0)
    decay = np.exp(-np.arange(steps) / max(steps / 3, 1))

    def seed_run(seed: int) -> ScalarRun:
        values = (decay[None, :] * (1 + np.arange(tags))[:, None] +
                  0.05 * rng.standard_normal((tags, steps))).astype(np.float32)
        return ScalarRun("seed%d" % seed, ["tag%d" % tag for tag in range(tags)], values.T.tolist())

    return write_scalar_runs(root, (seed_run(seed) for seed in range(seeds)), max_queue=10_000)


def sweep_names(runs: int, group_size: int) -> list[str]:
    return ["cfg%d_seed%d" % (index // group_size, index % group_size) for index in range(runs)]


def write_sweep(logdir: str, runs: int, group_size: int) -> list[str]:
    """`runs` runs `cfg{g}_seed{k}` of serving.POINTS scalars of one tag (serving.TAG), by our SummaryWriter."""
    names = sweep_names(runs, group_size)
    write_scalar_runs(logdir, (ScalarRun(name, [serving.TAG], ([1.0 / (step + 1) + 0.01 * ((index * 7919 + step) % 101)]
                                                                for step in range(serving.POINTS)))
                               for index, name in enumerate(names)), max_queue=serving.POINTS + 10)
    return names


# -- processes ----------------------------------------------------------------------------------------

def timed(cmd: list[str], env: dict, name: str, inputs: list[str]) -> float:
    """Wall seconds of one fresh process running `cmd` in the repository, started with `inputs` (the runs it
    reads) in the page cache (bench/page_cache.py)."""
    warm(*inputs)
    return timed_process(cmd, env, name, TIMEOUT_S, cwd=REPO)


def ours_cmd(*args: str) -> tuple[list[str], dict]:
    python, env = env_for("ours")
    return [python, "-m", "tensorboard.cli.reduce", *args], env


def reducer_cmd(*args: str) -> tuple[list[str], dict]:
    _, env = env_for("tbx")  # .venv-upstream's environment: PYTHONPATH removed, no user site
    return [reducer_cli(), *args], env


def steps_per_tag(run: dict) -> dict[str, int]:
    return {tag: len(points) for tag, points in sorted(run.items())}


def compare_means(ours_out: str, reducer_out: str) -> dict:
    """Steps kept per tag by each, and how many values of their `mean` runs differ at the steps both kept."""
    from tensorboard.reader import read_scalars

    ours, theirs = read_scalars(ours_out).get("mean", {}), read_scalars(reducer_out).get("mean", {})
    common = differing = 0
    for tag, points in theirs.items():
        ours_at = {step: value for step, _, value in ours.get(tag, [])}
        for step, _, value in points:
            if step in ours_at:
                common += 1
                differing += ours_at[step] != value
    return {"steps_per_tag_ours": steps_per_tag(ours), "steps_per_tag_reducer": steps_per_tag(theirs),
            "common_values": common, "differing_values": differing,
            "tags_only_one_has": sorted(set(ours) ^ set(theirs))}


def seeds_vs_reducer(result: dict, tmp: str, seeds: int, tags: int, steps: int, reps: int) -> None:
    """Fills `result` as it goes (a failure keeps what was measured)."""
    result.update({"seeds": seeds, "tags": tags, "steps": steps, "ops": OPS, "reps": reps,
                   "reducer_version": reducer_version()})
    start = time.perf_counter()
    dirs = write_seeds(os.path.join(tmp, "seeds"), seeds, tags, steps)
    result["write_s"] = round(time.perf_counter() - start, 2)
    print("seeds: wrote %d runs x %d tags x %s steps in %.1f s" % (seeds, tags, f"{steps:,}", result["write_s"]),
          file=sys.stderr, flush=True)
    times: dict[str, list[float]] = {"ours": [], "reducer": []}
    outs = {}
    for rep in range(reps):
        order = ["ours", "reducer"] if rep % 2 == 0 else ["reducer", "ours"]  # alternate: spread drift
        for who in order:
            out = outs[who] = os.path.join(tmp, "%s-%d" % (who, rep))
            if who == "ours":
                cmd, env = ours_cmd(*dirs, "--out", out, "-r", OPS)
            else:
                cmd, env = reducer_cmd(*dirs, "-o", out + os.sep, "-r", OPS)
            times[who].append(timed(cmd, env, "tensorboard reduce" if who == "ours" else "tb-reducer", dirs))
            print("seeds: rep %d %-7s %.2f s" % (rep + 1, who, times[who][-1]), file=sys.stderr, flush=True)
            if rep < reps - 1:
                shutil.rmtree(out, ignore_errors=True)
    result["ours"], result["reducer"] = summary(times["ours"]), summary(times["reducer"])
    result["speedup"] = round(result["reducer"]["median_s"] / result["ours"]["median_s"], 2)
    result.update(compare_means(outs["ours"], outs["reducer"]))


# -- 2. a sweep grouped --------------------------------------------------------------------------------

@contextlib.contextmanager
def launched_with(*flags: str):
    """serving.serve, with `flags` appended to the `tensorboard` command it launches (serve takes no
    extra flags, so its module's subprocess.Popen is wrapped while the block runs)."""
    real = serving.subprocess

    class _Subprocess:
        def __getattr__(self, name):
            return getattr(real, name)

        @staticmethod
        def Popen(cmd, **kwargs):
            return real.Popen([*cmd, *flags], **kwargs)

    serving.subprocess = _Subprocess()
    try:
        yield
    finally:
        serving.subprocess = real


def group_run_names(names: list[str]) -> list[str]:
    """The runs --group_runs serves beside `names`: one per group of two or more, as the server names them."""
    our_tensorboard()
    from tensorboard.serving.seed_groups import group_run_name
    from tensorboard.stats import group_runs

    return [group_run_name(group) for group, members in group_runs(names, GROUP_BY).items() if len(members) > 1]


def sweep_grouped(result: dict, tmp: str, runs: int, group_size: int, reps: int, python: str) -> None:
    """Fills `result` as it goes (a failure keeps what was measured)."""
    result.update({"runs": runs, "group_size": group_size, "points_per_run": serving.POINTS, "group_by": GROUP_BY,
                   "ops": GROUP_OPS, "reps": reps})
    logdir = os.path.join(tmp, "sweep")
    start = time.perf_counter()
    written_order = write_sweep(logdir, runs, group_size)
    result["write_s"] = round(time.perf_counter() - start, 2)
    names = sorted(written_order)  # as serving.py lists them: its last run is the last name
    groups = group_run_names(written_order)  # cfg0 (mean) ... cfg99 (mean)
    result["groups"] = len(groups)
    print("sweep: wrote %d runs x %d scalars in %.1f s" % (runs, serving.POINTS, result["write_s"]),
          file=sys.stderr, flush=True)

    times = []  # (a) before serving: serve() appends points to the first run
    for rep in range(reps):
        out = os.path.join(tmp, "grouped-%d" % rep)
        cmd, env = ours_cmd("--logdir", logdir, "--group_by", GROUP_BY, "--out", out, "-r", GROUP_OPS)
        times.append(timed(cmd, env, "tensorboard reduce --group_by", [logdir]))
        written = sorted(os.listdir(out))
        shutil.rmtree(out, ignore_errors=True)
        print("sweep: rep %d reduce --group_by %.2f s (%d group directories)" % (rep + 1, times[-1], len(written)),
              file=sys.stderr, flush=True)
    result["reduce"] = summary(times)
    result["reduce"]["group_dirs"] = len(written)

    # (b) plain, then grouped: every run listed and the last one's scalars served; grouped, the last is
    # the last group's run, "cfg99 (mean)" (the server builds the group runs after a reload has read every
    # member, so it is served last)
    result["serve_plain"] = serving.serve("standalone", logdir, names, python, tmp)
    print("sweep: served without --group_runs after %.2f s" % result["serve_plain"]["load_s"], file=sys.stderr,
          flush=True)
    with launched_with("--group_runs", GROUP_BY):
        result["serve_grouped"] = serving.serve("standalone", logdir, names + groups, python, tmp)
    result["last_group_run"] = groups[-1] if groups else None
    print("sweep: served with --group_runs after %.2f s (last run %r)" % (
        result["serve_grouped"]["load_s"], result["last_group_run"]), file=sys.stderr, flush=True)
    result["load_ratio"] = round(result["serve_grouped"]["load_s"] / result["serve_plain"]["load_s"], 2)


# -- report ---------------------------------------------------------------------------------------------

def _steps_text(per_tag: dict) -> str:
    counts = sorted(set(per_tag.values()))
    return "-" if not counts else f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,}..{counts[-1]:,}"


def table(result: dict) -> str:
    rows = []
    seeds = result.get("seeds_vs_reducer")
    if seeds and "speedup" in seeds:
        what = f"{seeds['seeds']} seeds x {seeds['tags']} tags x {seeds['steps']:,} steps, -r {seeds['ops']}"
        rows.append([f"tensorboard reduce ({what})", f"{seeds['ours']['median_s']:.3g} s",
                     f"steps/tag {_steps_text(seeds['steps_per_tag_ours'])}", ""])
        rows.append(["tb-reducer", f"{seeds['reducer']['median_s']:.3g} s",
                     f"steps/tag {_steps_text(seeds['steps_per_tag_reducer'])}", ""])
        met = "YES" if seeds["speedup"] >= SPEED_TARGET else "NO"
        rows.append(["  ratio (tb-reducer / ours)", f"{seeds['speedup']:.3g}x",
                     f"{seeds['differing_values']} of {seeds['common_values']:,} mean values differ",
                     f"goal >= {SPEED_TARGET:g}x: {met}"])
    sweep = result.get("sweep_grouped")
    if sweep and "reduce" in sweep:
        rows.append([f"reduce --group_by ({sweep['runs']:,} runs, {sweep['groups']} groups)",
                     f"{sweep['reduce']['median_s']:.3g} s", f"{sweep['reduce']['group_dirs']} group directories",
                     ""])
    if sweep and "load_ratio" in sweep:
        rows.append(["first load, standalone", f"{sweep['serve_plain']['load_s']:.3g} s",
                     f"peak RSS {sweep['serve_plain']['peak_rss_mib']:.0f} MiB", ""])
        rows.append(["first load, standalone --group_runs", f"{sweep['serve_grouped']['load_s']:.3g} s",
                     f"peak RSS {sweep['serve_grouped']['peak_rss_mib']:.0f} MiB",
                     f"{sweep['load_ratio']:.3g}x without"])
    smoothed = result.get("smoothing")
    if smoothed and "speedup" in smoothed:
        met = "YES" if smoothed["speedup"] >= SMOOTH_TARGET else "NO"
        rows.append([f"smooth, {smoothed['points']:,} points", f"{smoothed['vectorised']['median_s']:.3g} s",
                     f"plain loop {smoothed['loop']['median_s']:.3g} s",
                     f"{smoothed['speedup']:.3g}x, goal >= {SMOOTH_TARGET:g}x: {met}"])
    return render_text(["measurement", "median", "", ""], rows) if rows else "(nothing measured)"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=3, help="fresh processes per reduce measurement (median)")
    parser.add_argument("--seeds", type=int, default=5, help="seed runs reduced against tensorboard-reducer")
    parser.add_argument("--tags", type=int, default=4, help="scalar tags per seed run")
    parser.add_argument("--steps", type=int, default=20_000, help="steps per tag of each seed run")
    parser.add_argument("--runs", type=int, default=1000, help="runs of the grouped sweep (1,000 scalars each)")
    parser.add_argument("--group-size", type=int, default=10, help="seeds per group of the sweep")
    parser.add_argument("--parts", nargs="+", choices=("seeds", "sweep", "smoothing"),
                        default=["seeds", "sweep", "smoothing"])
    parser.add_argument("--smooth-points", type=int, default=SMOOTH_POINTS, help="points of the smoothing series")
    parser.add_argument("--python", default=python_of("ours"),
                        help="interpreter of the environment with the wheel's renderer, for the server")
    args = parser.parse_args(argv)
    result: dict = {"targets": {"speedup_vs_reducer": SPEED_TARGET, "smoothing_vs_loop": SMOOTH_TARGET}}
    errors = []
    tmp = tempfile.mkdtemp(prefix="bench-reduce-")
    try:
        if "seeds" in args.parts:
            try:
                seeds_vs_reducer(result.setdefault("seeds_vs_reducer", {}), tmp, args.seeds, args.tags, args.steps,
                                 args.reps)
            except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as err:
                errors.append("seeds: %s" % err)
        if "sweep" in args.parts:
            try:
                sweep_grouped(result.setdefault("sweep_grouped", {}), tmp, args.runs, args.group_size, args.reps,
                              args.python)
            except (OSError, RuntimeError, ValueError, subprocess.TimeoutExpired) as err:
                errors.append("sweep: %s" % err)
        if "smoothing" in args.parts:
            smoothing(result.setdefault("smoothing", {}), args.smooth_points, args.reps)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    seeds = result.get("seeds_vs_reducer", {})
    smoothed = result.get("smoothing", {})
    # False when a goal was not measured
    result["target_met"] = seeds.get("speedup", 0) >= SPEED_TARGET and \
        ("smoothing" not in args.parts or smoothed.get("speedup", 0) >= SMOOTH_TARGET)
    if "differing_values" in seeds:  # the two mean runs hold the same values where both have the step
        result["agree"] = seeds["differing_values"] == 0 and not seeds["tags_only_one_has"]
    if errors:
        result["error"] = "; ".join(errors)
    print(table(result), file=sys.stderr)
    for err in errors:
        print("ERROR " + err, file=sys.stderr)
    print(json.dumps(result))
    return 0 if result["target_met"] and result.get("agree", True) and not errors else 1


if __name__ == "__main__":
    sys.exit(main())
