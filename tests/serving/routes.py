"""Asks a running TensorBoard every data route its dashboards use, for every run and tag it lists, and
returns {route: answer} (JSON decoded, blobs as bytes), so two servers' answers compare route by route."""
from __future__ import annotations

import json
import sys
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))
from e2e_helpers import http_get  # noqa: E402  (tests/e2e is no package)

PLUGIN = "/data/plugin/"


def _q(**args) -> str:
    return urllib.parse.urlencode(args, doseq=True)


class Collector:
    """GETs (and POSTs) routes of one server, recording each answer under its route."""

    def __init__(self, url: str):
        self.url = url
        self.answers: dict = {}

    def raw(self, route: str, data: bytes | None = None, headers=None) -> bytes:
        status, body = http_get(self.url + route, data, headers)
        self.answers[route + ("" if data is None else " POST " + data.decode())] = (status, body)
        return body if status == 200 else b""

    def json(self, route: str, data: bytes | None = None, headers=None):
        body = self.raw(route, data, headers)
        value = json.loads(body) if body else None
        self.answers[route + ("" if data is None else " POST " + data.decode())] = value
        return value


def collect(url: str) -> dict:
    """Every answer, keyed by route."""
    c = Collector(url)
    c.json("/data/runs")
    c.json("/data/environment")
    listing = c.json("/data/plugins_listing") or {}
    c.answers["/data/plugins_listing"] = {k: v.get("enabled") for k, v in listing.items()}
    for plugin in ("scalars", "histograms", "distributions", "text", "pr_curves", "mesh"):
        tags = c.json(PLUGIN + plugin + "/tags") or {}
        for run, by_tag in tags.items():
            for tag in by_tag:
                if plugin == "pr_curves":
                    c.json(PLUGIN + "pr_curves/pr_curves?" + _q(run=run, tag=tag))
                elif plugin == "mesh":
                    metas = c.json(PLUGIN + "mesh/meshes?" + _q(run=run, tag=tag, sample=0)) or []
                    for meta in metas:
                        c.raw(PLUGIN + "mesh/data?" + _q(run=run, tag=tag, sample=0, step=meta["step"],
                                                         content_type=meta["content_type"]))
                else:
                    c.json(PLUGIN + plugin + "/" + plugin + "?" + _q(run=run, tag=tag))
    for plugin, single in (("images", "individualImage"), ("audio", "individualAudio")):
        tags = c.json(PLUGIN + plugin + "/tags") or {}
        for run, by_tag in tags.items():
            for tag in by_tag:
                for entry in c.json(PLUGIN + plugin + "/" + plugin + "?" + _q(run=run, tag=tag, sample=0)) or []:
                    c.raw(PLUGIN + plugin + "/" + single + "?" + entry["query"])
    _graphs(c)
    _hparams(c)
    layout = c.json(PLUGIN + "custom_scalars/layout")
    for category in (layout or {}).get("category", []):
        for chart in category.get("chart", []):
            for regex in chart.get("multiline", {}).get("tag", []):
                for run in c.answers["/data/runs"]:
                    c.json(PLUGIN + "custom_scalars/scalars?" + _q(run=run, tag=regex))
    _time_series(c)
    return c.answers


def _graphs(c: Collector) -> None:
    info = c.json(PLUGIN + "graphs/info") or {}
    for run, item in info.items():
        if item.get("run_graph"):
            c.raw(PLUGIN + "graphs/graph?" + _q(run=run, conceptual="false"))
        for tag, tag_item in item.get("tags", {}).items():
            if tag_item.get("op_graph") or tag_item.get("conceptual_graph"):
                c.raw(PLUGIN + "graphs/graph?" + _q(run=run, tag=tag, conceptual=str(
                    bool(tag_item.get("conceptual_graph") and not tag_item.get("op_graph"))).lower()))
            if tag_item.get("profile"):
                c.raw(PLUGIN + "graphs/run_metadata?" + _q(run=run, tag=tag))


def _hparams(c: Collector) -> None:
    headers = {"Content-Type": "application/json"}
    experiment = c.json(PLUGIN + "hparams/experiment", json.dumps({"experimentName": ""}).encode(), headers)
    if not experiment:
        return
    request = {"experimentName": "", "allowedStatuses": ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE",
                                                         "STATUS_RUNNING"],
               "colParams": [{"hparam": h["name"]} for h in experiment.get("hparamInfos", [])]
               + [{"metric": m["name"]} for m in experiment.get("metricInfos", [])],
               "startIndex": 0, "sliceSize": 100}
    groups = c.json(PLUGIN + "hparams/session_groups", json.dumps(request).encode(), headers) or {}
    for group in groups.get("sessionGroups", []):
        for session in group.get("sessions", []):
            for metric in experiment.get("metricInfos", []):
                body = {"experimentName": "", "sessionName": session["name"], "metricName": metric["name"]}
                c.json(PLUGIN + "hparams/metric_evals", json.dumps(body).encode(), headers)


def _time_series(c: Collector) -> None:
    tags = c.json(PLUGIN + "timeseries/tags") or {}
    requests = []
    for kind in ("scalars", "histograms"):
        for run, run_tags in tags.get(kind, {}).get("runTagInfo", {}).items():
            requests += [{"plugin": kind, "tag": tag, "run": run} for tag in run_tags]
    for tag, by_run in tags.get("images", {}).get("tagRunSampledInfo", {}).items():
        for run, info in by_run.items():
            requests += [{"plugin": "images", "tag": tag, "run": run, "sample": s}
                         for s in range(info.get("maxSamplesPerStep", 1))]
    if not requests:
        return
    body = urllib.parse.urlencode({"requests": json.dumps(requests)}).encode()
    answer = c.json(PLUGIN + "timeseries/timeSeries", body,
                    {"Content-Type": "application/x-www-form-urlencoded"}) or []
    for series in answer:
        for run_points in series.get("runToSeries", {}).values():
            for point in run_points:
                if "imageId" in point:
                    c.raw(PLUGIN + "timeseries/imageData?" + _q(imageId=point["imageId"]))
