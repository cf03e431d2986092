"""Reads a GraphDef as upstream's reader returned it (MessageToDict) into comparable sets."""
from __future__ import annotations

import base64
from dataclasses import dataclass


def attr_value(attr: dict):
    """A Python value from an AttrValue dict (bytes fields come base64-encoded)."""
    if "s" in attr:
        return base64.b64decode(attr["s"]).decode("utf-8")
    if "i" in attr:
        return int(attr["i"])
    if "f" in attr:
        return float(attr["f"])
    if "b" in attr:
        return bool(attr["b"])
    if "list" in attr:
        lst = attr["list"]
        if "shape" in lst:
            return [[int(d.get("size", 0)) for d in s.get("dim", [])] for s in lst["shape"]]
        if "i" in lst:
            return [int(v) for v in lst["i"]]
        if "f" in lst:
            return [float(v) for v in lst["f"]]
        if "s" in lst:
            return [base64.b64decode(v).decode("utf-8") for v in lst["s"]]
        return []
    return None


@dataclass
class GraphView:
    nodes: dict[str, dict]  # name -> {"op", "inputs": [(name, index)], "attrs": {...}}

    @classmethod
    def from_upstream(cls, graph: dict) -> "GraphView":
        nodes = {}
        for node in graph.get("node", []):
            inputs = []
            for spec in node.get("input", []):
                if spec.startswith("^"):
                    continue
                name, _, index = spec.partition(":")
                inputs.append((name, int(index or 0)))
            nodes[node["name"]] = {"op": node.get("op", ""), "inputs": inputs,
                                   "attrs": {k: attr_value(v) for k, v in node.get("attr", {}).items()}}
        return cls(nodes)

    @classmethod
    def from_proto(cls, graph) -> "GraphView":
        from google.protobuf import json_format

        return cls.from_upstream(json_format.MessageToDict(graph, preserving_proto_field_name=True))

    def edges(self, key: str | None = None) -> set[tuple]:
        """(source, output index, destination) triples, nodes named by attribute `key` if given."""
        label = (lambda n: self.nodes[n]["attrs"].get(key, n)) if key else (lambda n: n)
        return {(label(src), index, label(dst)) for dst, node in self.nodes.items()
                for src, index in node["inputs"]}

    def dangling_inputs(self) -> list[str]:
        return [src for node in self.nodes.values() for src, _ in node["inputs"] if src not in self.nodes]

    def scopes_clash(self) -> list[str]:
        """Node names that are also a scope of another node (the dashboard would merge them)."""
        scopes = {n.rsplit("/", i)[0] for n in self.nodes for i in range(1, n.count("/") + 1)}
        return sorted(scopes & set(self.nodes))
