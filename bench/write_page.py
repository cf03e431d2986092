#!/usr/bin/env python3
"""Renders docs/benchmarks.md from one `make bench` run (results.json, read_results.json), so the
published figures are always those of a complete, recorded run: the page is never edited by hand.

    python bench/write_page.py                                  # artifacts/bench -> docs/benchmarks.md
    python bench/write_page.py --results DIR --out PAGE.md
"""
from __future__ import annotations

import argparse
import json
import os
import sys

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
sys.path.insert(0, BENCH)
import histogram_dists  # noqa: E402
import read  # noqa: E402
from jax_step_overhead import VARIANTS  # noqa: E402
from page_format import fmt, has_result, not_run, ratio, reps_text, table, with_each, yes_no  # noqa: E402,F401
from page_scale import plot_section, report_section, serving_section, sweeps_section  # noqa: E402
from run import LABELS, TORCH_OURS, table_rows  # noqa: E402
from workloads import WORKLOADS  # noqa: E402

VARIANT_TEXT = {"nothing": "nothing (the noise floor: identical blocks)",
                "python-200us": "200 µs of pure-Python CPU in the caller",
                "host-copy": "`copy_to_host_async()` on the weights",
                "copy-weights": "one jitted copy of the step's 256×256 weights",
                "copy-constant": "one jitted copy of a constant 256×256 array",
                "ours-snapshots": "our snapshots of the loss and the weights (what `add_*` takes)",
                "device-counts": "the weights counted into buckets by a jitted JAX kernel"}


# -- sections ----------------------------------------------------------------------------------------

def machine_section(results: dict) -> str:
    m, env = results.get("machine", {}), results.get("environments", {})
    load = [m.get("loadavg_start"), m.get("loadavg_end")]
    rows = [["CPU", m.get("cpu", "unknown")], ["cores", m.get("cores")], ["memory", f"{m.get('mem_gb')} GB"],
            ["OS", m.get("os")], ["Python", m.get("python")], ["NumPy", m.get("numpy") or "unknown"],
            ["date", m.get("date") or "unknown"], ["git commit", f"`{m.get('git_commit') or 'unknown'}`"],
            ["1-min load average, start / end", " / ".join(f"{x[0]:.2f}" if x else "–" for x in load)],
            ["total time", f"{results.get('elapsed_s', 0) / 60:.0f} min"]]
    rows += [[f"environment: {LABELS.get(lib, lib)}", f"`{text}`"] for lib, text in env.items()]
    return "## Machine and run\n\n" + table(["", ""], rows) + (
        "\n\nThe figures are ratios of libraries measured side by side in one run, each measurement in a fresh "
        "process with the libraries in rotating order; absolute times move with the machine and its load.")


def writing_section(results: dict) -> str:
    config = results.get("config", {})
    workloads = [w for w in config.get("workloads", list(WORKLOADS)) if w in results.get("summary", {})]
    if not workloads:
        return "## Writing\n\nNo writing workload completed in this run."
    head, rows = table_rows(results["summary"], workloads, with_refs=not config.get("no_refs"))
    what = "\n".join(f"- `{w}`: {WORKLOADS[w][0]}" for w in workloads)
    notes = "\n\n".join(results.get("notes", []))
    return (f"## Writing: ours vs tensorboardX vs torch.utils.tensorboard\n\n{what}\n\n" + table(head, rows) +
            f"\n\n{notes}\n\nRows \"{LABELS[TORCH_OURS]}\" run the same `torch.utils.tensorboard` code on our "
            "writer core; their × compares them with torch on upstream's core. \"ref\" rows are plain Python loops "
            "writing the same framed records (hand-encoded, or framed before the clock started).")


def histogram_section(extra: dict | None) -> str:
    title = "## Histograms on any data (`bench/histogram_dists.py`)\n\n"
    if not extra or not extra.get("rows"):
        return title + not_run(extra)
    by_dist: dict = {}
    for row in extra["rows"]:
        by_dist.setdefault(row["dist"], {})[row["size"]] = row
    sizes = sorted({row["size"] for row in extra["rows"]})
    largest = 1_000_000 if 1_000_000 in sizes else sizes[-1]
    head = (["data"] + [f"× tbx {size:,}" for size in sizes] + [f"× torch {size:,}" for size in sizes] +
            [f"ms/call at {largest:,} ours / tbx / torch"])
    rows = []
    for dist, per_size in by_dist.items():
        at = per_size.get(largest, {})
        name = histogram_dists.DISTS.get(dist, dist) + (" (ours: `ValueError`)" if at.get("ours_refused") else "")
        rows.append([name] + [ratio(per_size.get(s, {}).get("x_tbx")) for s in sizes] +
                    [ratio(per_size.get(s, {}).get("x_torch")) for s in sizes] +
                    [" / ".join(fmt(at.get(lib) and at[lib] * 1e3) for lib in histogram_dists.LIBS)])
    met = sum(1 for row in extra["rows"] if row.get("met"))
    return (title + "`add_histogram` with the default buckets; × = peer's median seconds per call / ours "
            f"({reps_text(extra)}).\n\n" + table(head, rows) +
            f"\n\nGoal {extra.get('goal', '')}: {met} of {len(extra['rows'])} rows met." + errors_text(extra))


def reading_section(read_results: dict | None, extra: dict | None) -> str:
    title = "## Reading logs into DataFrames (`bench/read.py`)\n\n"
    results = (read_results or {}).get("results")
    if not results:
        return title + not_run(extra)
    head = ["workload", "size", "ours", "EventAccumulator", "tbparse", "× EventAccumulator", "× tbparse",
            "peak ΔRSS MB ours / EA / tbparse", "goal", "met?"]
    rows = []
    for workload, row in results.items():
        r = row["readers"]
        seconds = [fmt(r.get(x, {}).get("seconds"), unit=" s") for x in read.READERS]
        memory = " / ".join(fmt(r.get(x, {}).get("peak_delta_mb")) for x in read.READERS)
        goal = (f"≥{row['goal']:g}× both, less memory" if row.get("goal") else "less memory")
        met = row.get("goal_met") if row.get("goal") else row.get("lower_memory")
        rows.append([f"{row['what']}", f"{row['bytes'] / 1e6:.1f} MB", *seconds, ratio(row.get("x_ea")),
                     ratio(row.get("x_tbparse")), memory, goal, yes_no(met)])
    reps = (read_results or {}).get("config", {}).get("reps")
    return (title + "Our `tensorboard.reader.SummaryReader` vs upstream's `EventAccumulator` (size guidance 0, one "
            "per run directory, rows into a DataFrame) vs tbparse; each reader in a fresh process, median of "
            f"{reps} runs; × = peer's time / ours.\n\n" + table(head, rows))


def _steps_kept(per_tag: dict | None) -> str:
    counts = sorted(set((per_tag or {}).values()))
    if not counts:
        return "–"
    return f"{counts[0]:,}" if len(counts) == 1 else f"{counts[0]:,} to {counts[-1]:,}"


def reduce_section(extra: dict | None) -> str:
    title = "## Seeds and sweeps (`bench/reduce.py`)\n\n"
    seeds, sweep = (extra or {}).get("seeds_vs_reducer"), (extra or {}).get("sweep_grouped")
    if not has_result(extra) or not (seeds or sweep):
        return title + not_run(extra)
    goal = (extra.get("targets") or {}).get("speedup_vs_reducer", 20.0)
    parts = [title.rstrip()]
    if seeds and "speedup" in seeds:
        version = seeds.get("reducer_version") or "?"
        rows = [["`tensorboard reduce`", fmt(seeds["ours"]["median_s"], unit=" s"),
                 _steps_kept(seeds.get("steps_per_tag_ours"))],
                [f"tensorboard-reducer {version} (`tb-reducer`)", fmt(seeds["reducer"]["median_s"], unit=" s"),
                 _steps_kept(seeds.get("steps_per_tag_reducer"))]]
        differing = seeds.get("differing_values")
        agree = ("–" if differing is None else
                 f"{differing:,} of the {seeds['common_values']:,} values differ" if differing == 0 else
                 f"**{differing:,} of the {seeds['common_values']:,} values differ**")
        parts.append(
            f"{seeds['seeds']} seeds × {seeds['tags']} float32 scalar tags × {seeds['steps']:,} steps (our writer), "
            f"reduced end to end with `-r {seeds['ops']}`; each tool in fresh processes, "
            f"median of {seeds.get('reps', 3)}, alternating. tensorboard-reducer reads through upstream's "
            "`EventAccumulator`, which keeps a 10,000-point sample of a longer tag.\n\n" +
            table(["", "seconds", "steps kept per tag"], rows) +
            f"\n\nOurs {ratio(seeds['speedup'])} faster (goal ≥ {goal:g}×, met: {yes_no(seeds['speedup'] >= goal)}). "
            f"The two `mean` runs at the steps both kept: {agree}.")
    elif seeds is not None:
        parts.append("Against tensorboard-reducer: not measured (see the error below).")
    if sweep and "reduce" in sweep:
        rows = [[f"`tensorboard reduce --logdir D --group_by '{sweep['group_by']}' -r {sweep['ops']}` "
                 f"(median of {sweep.get('reps', 3)})", fmt(sweep["reduce"]["median_s"], unit=" s"), "–"]]
        for key, flags in (("serve_plain", "`--data_provider=standalone`"),
                           ("serve_grouped", f"`--data_provider=standalone --group_runs '{sweep['group_by']}'`")):
            if key in sweep:
                rows.append([f"first load, {flags}", fmt(sweep[key].get("load_s"), unit=" s"),
                             fmt(sweep[key].get("peak_rss_mib"), digits=4, unit=" MiB")])
        line = ""
        if "load_ratio" in sweep:
            line = (f"\n\nWith `--group_runs` the first load takes {fmt(sweep['load_ratio'])}× the time without "
                    f"(loaded: every run listed and the last group run, \"{sweep.get('last_group_run')}\", served "
                    f"with its {sweep['points_per_run']:,} points).")
        parts.append(
            f"{sweep['runs']:,} runs `cfg{{g}}_seed{{k}}` in {sweep['groups']} groups of {sweep['group_size']}, "
            f"one tag × {sweep['points_per_run']:,} scalars each. The first load is timed as in "
            "`bench/serving.py` (a fresh server, until every run is listed and the last run's scalars are "
            "served; with the groups, the last group's run too).\n\n" +
            table(["", "seconds", "peak RSS"], rows) + line)
    elif sweep is not None:
        parts.append("The grouped sweep: not measured (see the error below).")
    smoothed = extra.get("smoothing")
    if smoothed and "speedup" in smoothed:
        goal_smooth = (extra.get("targets") or {}).get("smoothing_vs_loop", 10.0)
        parts.append(f"`tensorboard.reader.smooth` on {smoothed['points']:,} points (weight {smoothed['weight']}): "
                     f"{fmt(smoothed['vectorised']['median_s'], unit=' s')} against "
                     f"{fmt(smoothed['loop']['median_s'], unit=' s')} for a plain loop of the same algorithm, "
                     f"{ratio(smoothed['speedup'])} (goal ≥ {goal_smooth:g}×, met: "
                     f"{yes_no(smoothed['speedup'] >= goal_smooth)}).")
    if extra.get("error"):
        parts.append(f"Error: `{extra['error']}`")
    return "\n\n".join(parts)


def async_section(extra: dict | None) -> str:
    title = "## Logging does not wait for the step (`bench/async_log.py`)\n\n"
    if not extra or "latency" not in extra:
        return title + not_run(extra)
    rows = [[key.replace("/", ": "), fmt(v.get("caller_ms"), unit=" ms"), fmt(v.get("compute_ms"), unit=" ms")]
            for key, v in extra["latency"].items()]
    latency = table(["framework: library", "caller's time in add_scalar(x)", "x's computation"], rows)
    loop_rows = []
    for mode, libs in extra.get("loops", {}).items():
        for lib, v in libs.items():
            speeds = f"{fmt(v.get('steps_per_s'), 4)} vs {fmt(v.get('steps_per_s_none'), 4)}"
            loop_rows.append([mode, LABELS.get(lib, lib), fmt(v.get("ratio")), speeds])
    loops = table(["loop", "library", "steps/s with logging / without", "steps/s with vs without"], loop_rows)
    goals = ", ".join(f"{k}: {yes_no(v)}" for k, v in extra.get("goals", {}).items())
    return (title + f"The caller's time in `add_scalar(x)` while `x` is a still-running computation "
            f"({reps_text(extra)}; goal for ours ≤ 1 ms):\n\n{latency}\n\n"
            "A small JAX loop logging its loss and a 256×256 weight histogram every step, as a ratio of "
            "paired blocks with and without logging (goal for ours ≥ 0.97 on \"loop\"; \"loop-tiny\" has "
            f"no goal):\n\n{loops}\n\nGoals met: {goals}.")


def first_call_section(extra: dict | None) -> str:
    title = "## The first call of a new shape (`bench/first_call.py`)\n\n"
    if not extra or "libs" not in extra:
        return title + not_run(extra)
    rows = [[LABELS.get(lib, lib), v.get("errors") and not v.get("first_scalar_ms") and v["errors"][0]
             or fmt(v.get("first_scalar_ms"), unit=" ms"), fmt(v.get("hist_median_ms"), unit=" ms"),
             fmt(v.get("hist_max_ms"), unit=" ms"), fmt(v.get("hist_total_ms"), 4, " ms")]
            for lib, v in extra["libs"].items()]
    goals = ", ".join(f"{k}: {yes_no(v)}" for k, v in extra.get("goals", {}).items())
    return (title + f"The caller's time for JAX values ({reps_text(extra)}): the process's first `add_scalar(x)` "
            "while `x` is still being computed, and 200 `add_histogram` calls of 200 different shapes (goal for "
            "ours: ≤ 1 ms each).\n\n" +
            table(["library", "first add_scalar (pending)", "200 shapes: median", "largest", "total"], rows) +
            f"\n\nGoals met: {goals}.")


def step_overhead_section(extra: dict | None) -> str:
    title = "## What one extra call per step costs the JAX loop (`bench/jax_step_overhead.py`)\n\n"
    variants = {k: v for k, v in (extra or {}).items() if k in VARIANTS}
    if not variants:
        return title + not_run(extra)
    rows = [[VARIANT_TEXT.get(k, k), v.get("error") or fmt(v.get("ratio")),
             "" if "error" in v else f"{fmt(v.get('steps_per_s'), 4)} vs {fmt(v.get('steps_per_s_none'), 4)}"]
            for k, v in variants.items()]
    pairs = (extra.get("args") or ["", "?"])[-1]
    return (title + f"Steps/s with the call after every step over steps/s without, median of {pairs} pairs, a "
            "fresh process per variant (a diagnostic: no goal).\n\n" +
            table(["call after every step", "ratio", "steps/s with vs without"], rows))


def startup_soak_section(startup: dict | None, soak: dict | None) -> str:
    text = "## Start-up, footprint and soak\n\n"
    if startup and "startup_ratio" in startup:
        rows = [["launcher start-up (spawn to first `/data/plugins_listing` answer)",
                 f"{startup['ours_startup_s']} s", f"{startup['upstream_startup_s']} s", startup["startup_ratio"],
                 f"≤ {startup['startup_target']}"],
                ["`import tensorboard`", f"{startup['ours_import_ms']} ms", f"{startup['upstream_import_ms']} ms",
                 startup["import_ratio"], f"≤ {startup['import_target']}"],
                ["installed size", f"{startup['installed_mb']} MB", f"{startup['upstream_installed_mb']} MB",
                 "", ""]]
        if startup.get("wheel_mb"):
            rows.append(["wheel", f"{startup['wheel_mb']} MB", "", "", ""])
        text += (f"`bench/startup.py`: our installed wheel vs upstream tensorboard {startup.get('upstream_version')}"
                 f", medians, alternating (target met: {yes_no(startup.get('target_met'))}).\n\n" +
                 table(["", "ours", "upstream", "ratio", "target"], rows) + "\n\n")
    else:
        text += "Start-up: " + not_run(startup) + "\n\n"
    if soak and "events" in soak:
        text += (f"`bench/soak.py`: {soak['events']:,} scalars through one `SummaryWriter` in {soak['seconds']} s "
                 f"({soak['events_per_second']:,} events/s); peak RSS {soak['rss_peak_mb']} MB, growth after the "
                 f"first 10 % {soak['rss_growth_after_10pct_mb']} MB; the {soak['file_mb']} MB file read back: "
                 f"{soak['read_back']:,} of {soak['events']:,} events.")
    else:
        text += "Soak: " + not_run(soak)
    return text


def reproduce_section() -> str:
    return ("## Reproduce\n\n```sh\n"
            "make bench        # make install + tools/test_envs.sh, bench/run.py --extras-reps 2, "
            "then bench/write_page.py\n"
            ".venv/bin/python bench/run.py --reps 1 --workloads scalars_1tag --no-extras   # a quick look\n"
            ".venv/bin/python bench/write_page.py --results artifacts/bench --out /tmp/benchmarks.md\n"
            "```\n\nEach script's `--help` lists its options (repetitions, sizes, workloads). tensorboardX and "
            "torch run in `.venv-upstream` (upstream `tensorboard` shares this package's import name), created by "
            "`tools/test_envs.sh` with the CPU torch wheel. Raw results: `artifacts/bench/results.json` and "
            "`read_results.json`; workload details: `bench/README.md`.")


def errors_text(extra: dict) -> str:
    return "".join(f"\n\nError: `{e}`" for e in extra.get("errors", []))


KNOWN_EXTRAS = ("histogram_dists.py", "read.py", "async_log.py", "jax_step_overhead.py", "startup.py", "soak.py",
                "first_call.py", "report_export.py", "serving.py", "sweeps.py", "reduce.py", "auth_load.py",
                "system_cost.py", "plot_figures.py", "experiments.py")


def access_section(extra: dict | None) -> str:
    title = "## Many clients with the token (`bench/auth_load.py`)\n\n"
    if not has_result(extra) or "token_rps" not in extra:
        return title + not_run(extra)
    each = extra.get("each_rps", {})
    rows = [["`--auth none`", with_each(fmt(extra["none_rps"], unit=" requests/s"), each.get("none"))],
            ["`--auth token` (`Authorization: Bearer` on every request)",
             with_each(fmt(extra["token_rps"], unit=" requests/s"), each.get("token"))],
            ["ratio (token / none)", ratio(extra["ratio"])], ["answers that were not a 200", str(extra["errors"])]]
    return (title + f"{extra['clients']} clients × {extra['requests_per_client']} requests on one server of "
            f"{extra['runs']} runs × {extra['points']} scalars while a writer appends, {reps_text(extra)}, "
            f"alternating. Goal: no errors, and with the token at least 95% of the throughput without it (met: "
            f"{yes_no(extra.get('target_met'))}).\n\n" + table(["", ""], rows))


def _ui_cell(row: dict, key: str, overhead: str | None) -> str:
    """One UI column of bench/experiments.py's row: the median load, its overhead over the logdir without
    config files, and each load when the row has them."""
    cell = fmt(row[key], unit=" s") + (f" ({row[overhead]:+.0%})" if overhead else "")
    return with_each(cell, (row.get("ui_loads_s") or {}).get(key))


def experiments_section(extra: dict | None) -> str:
    title = "## Hyperparameters from config files, and `tensorboard runs ls` (`bench/experiments.py`)\n\n"
    if not has_result(extra) or "rows" not in extra:
        return title + not_run(extra)
    rows = [[f"{row['runs']:,}", fmt(row["first_load_s"], unit=" s"), fmt(row["with_discovery_s"], unit=" s"),
             f"{row['overhead']:+.0%}", f"{row['hparams_found']:,}", fmt(row["runs_ls_s"], unit=" s")]
            for row in extra["rows"]]
    ui = [[f"{row['runs']:,}", _ui_cell(row, "ui_first_load_s", None),
           _ui_cell(row, "ui_with_hparams_s", "ui_overhead"), _ui_cell(row, "ui_with_where_s", "ui_where_overhead")]
          for row in extra["rows"] if "ui_first_load_s" in row]
    ui_text = ("\n\nThe web UI's first load (timed as in `bench/serving.py`) of the same two logdirs, the median "
               "of fresh processes, alternating (each load is listed):\n\n"
               + table(["runs", "no config files", "config files", "config files, `--where 'seed >= 0'`"], ui)
               ) if ui else ""
    return (title + f"Reading every run of a logdir in process, without configuration files and with a Lightning "
            f"`hparams.yaml` and a Hydra `.hydra/config.yaml` per run (discovered and merged), {reps_text(extra)}; "
            f"then `tensorboard runs ls --metrics loss=min` on the second. Goal: {extra.get('goal', '–')} "
            f"(met: {yes_no(extra.get('target_met'))}).\n\n"
            + table(["runs", "read", "read + hparams", "overhead", "hparams found", "`runs ls`"], rows) + ui_text)


def system_section(extra: dict | None) -> str:
    title = "## What system metrics cost (`bench/system_cost.py`)\n\n"
    if not has_result(extra) or "ratio" not in extra:
        return title + not_run(extra)
    rows = [["the monitor's CPU per sample", fmt(extra["cpu_ms_per_sample"], unit=" ms")],
            ["its share of one core at the 1 s interval", fmt(extra["cpu_percent_at_1s"], unit="%")],
            ["`add_scalar` throughput, monitor off", fmt(extra["off_calls_per_s"], unit=" calls/s")],
            ["`add_scalar` throughput, monitor on (every 0.1 s)", fmt(extra["on_calls_per_s"], unit=" calls/s")],
            ["ratio (on / off)", ratio(extra["ratio"])],
            ["the monitor's start, in its thread (loads psutil, asks NVML)", fmt(extra["start_ms"], unit=" ms")]]
    return (title + f"The sampling thread's own CPU time over {extra['samples']} samples; then {extra['calls']:,} "
            f"`add_scalar` calls and `close()` per fresh process, the monitor off and on, alternating, "
            f"{reps_text(extra)}. Goals: at most 1% of one core at a 1 s interval, and throughput with the monitor "
            f"on at least 95% of the one without (met: {yes_no(extra.get('target_met'))}).\n\n" + table(["", ""], rows))


def other_extras_section(extras: dict) -> str:
    """Extras this page has no table for yet: their top-level figures, as recorded."""
    parts = []
    for name, extra in extras.items():
        if name in KNOWN_EXTRAS or not has_result(extra):
            continue
        rows = [[key, value] for key, value in extra.items()
                if isinstance(value, (int, float, str, bool)) and key not in ("wall_s",)]
        parts.append(f"### `bench/{name}`\n\n" + (table(["", ""], rows) if rows else "No top-level figures."))
    return ("## Other benchmarks\n\n" + "\n\n".join(parts)) if parts else ""


def failures_section(results: dict) -> str:
    failed = [f"- {r['workload']} / {LABELS.get(r['lib'], r['lib'])}: `{r['error']}`"
              for r in results.get("runs", []) if "error" in r]
    failed += [f"- `{name}`: `{extra['error']}`" for name, extra in results.get("extras", {}).items()
               if extra.get("error") and not has_result(extra)]
    return ("## Failed measurements\n\n" + "\n".join(failed)) if failed else ""


def render(results: dict, read_results: dict | None) -> str:
    extras = results.get("extras", {})
    parts = ["# Benchmarks",
             "Generated by `make bench` (`bench/write_page.py`) from the run described below; not edited by hand. "
             "Every figure compares this package with its peers measured side by side in the same run.",
             machine_section(results), writing_section(results), histogram_section(extras.get("histogram_dists.py")),
             reading_section(read_results, extras.get("read.py")), report_section(extras.get("report_export.py")),
             plot_section(extras.get("plot_figures.py")),
             serving_section(extras.get("serving.py")), sweeps_section(extras.get("sweeps.py")),
             reduce_section(extras.get("reduce.py")), experiments_section(extras.get("experiments.py")),
             access_section(extras.get("auth_load.py")),
             system_section(extras.get("system_cost.py")),
             async_section(extras.get("async_log.py")),
             first_call_section(extras.get("first_call.py")), step_overhead_section(extras.get("jax_step_overhead.py")),
             startup_soak_section(extras.get("startup.py"), extras.get("soak.py")), other_extras_section(extras),
             failures_section(results), reproduce_section()]
    return "\n\n".join(p for p in parts if p) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default=os.path.join(REPO, "artifacts", "bench"),
                        help="directory holding results.json (and read_results.json), default artifacts/bench")
    parser.add_argument("--out", default=os.path.join(REPO, "docs", "benchmarks.md"))
    args = parser.parse_args(argv)
    path = os.path.join(args.results, "results.json")
    if not os.path.exists(path):
        print(f"write_page: {path} not found: run bench/run.py first (make bench)", file=sys.stderr)
        return 2
    with open(path) as f:
        results = json.load(f)
    read_results = None
    read_path = os.path.join(args.results, "read_results.json")
    if has_result(results.get("extras", {}).get("read.py")) and os.path.exists(read_path):
        with open(read_path) as f:
            read_results = json.load(f)
    with open(args.out, "w") as f:
        f.write(render(results, read_results))
    print(f"write_page: wrote {os.path.relpath(args.out)} from {os.path.relpath(path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
