"""Plain GraphML reading and writing (stdlib ``xml.etree``), independent of what the attributes mean.

Both our own GraphML export/import and the LightRAG import go through here, so the XML details (the
namespace, ``<key>`` declarations with defaults, characters XML 1.0 cannot carry) live in one place.
Values are kept as strings; callers convert the few numeric attributes they know about.

Notes on fidelity: XML 1.0 cannot represent most control characters, so they are dropped on write, and
XML parsers turn ``\\r\\n`` into ``\\n``. Python's expat refuses entity-expansion bombs, so untrusted
files are safe to read.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from kgrag.core.errors import KgragError
from kgrag.fileio import read_regular_bytes

GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True)
class GraphmlNode:
    """A node: its GraphML id and its attributes by name (declared defaults filled in)."""

    id: str
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class GraphmlEdge:
    """An edge between two node ids with its attributes by name."""

    source: str
    target: str
    attrs: dict[str, str] = field(default_factory=dict)


@dataclass
class GraphmlGraph:
    """The first ``<graph>`` of a GraphML file."""

    nodes: list[GraphmlNode] = field(default_factory=list)
    edges: list[GraphmlEdge] = field(default_factory=list)
    directed: bool = False
    graph_attrs: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class _Key:
    name: str
    domain: str
    default: str | None


def _local(tag: str) -> str:
    """Tag name without namespace: some writers omit the GraphML namespace, we accept both."""
    return tag.rsplit("}", 1)[-1]


def _children(element: ET.Element, name: str) -> list[ET.Element]:
    return [child for child in element if _local(child.tag) == name]


def _read_keys(root: ET.Element) -> dict[str, _Key]:
    keys: dict[str, _Key] = {}
    for key in _children(root, "key"):
        key_id = key.get("id") or ""
        defaults = _children(key, "default")
        keys[key_id] = _Key(
            name=key.get("attr.name") or key_id,
            domain=key.get("for") or "all",
            default=(defaults[0].text or "") if defaults else None,
        )
    return keys


def _attrs(element: ET.Element, keys: Mapping[str, _Key], domain: str) -> dict[str, str]:
    values = {k.name: k.default for k in keys.values() if k.domain in (domain, "all") and k.default is not None}
    for data in _children(element, "data"):
        key_id = data.get("key") or ""
        name = keys[key_id].name if key_id in keys else key_id
        values[name] = data.text or ""
    return {name: value for name, value in values.items() if value is not None}


def read_graphml(path: Path) -> GraphmlGraph:
    """Parse the first graph of a GraphML file; malformed XML is a user error naming the file."""
    data = read_regular_bytes(path)  # a FIFO or a device is refused, not read forever
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise KgragError(f"{path}: not valid GraphML ({exc})") from exc
    graphs = _children(root, "graph")
    if _local(root.tag) != "graphml" or not graphs:
        raise KgragError(f"{path}: no <graphml><graph> element; is this a GraphML file?")
    keys = _read_keys(root)
    graph = graphs[0]
    result = GraphmlGraph(
        directed=graph.get("edgedefault", "undirected") == "directed", graph_attrs=_attrs(graph, keys, "graph")
    )
    for node in _children(graph, "node"):
        result.nodes.append(GraphmlNode(id=node.get("id") or "", attrs=_attrs(node, keys, "node")))
    for edge in _children(graph, "edge"):
        result.edges.append(
            GraphmlEdge(
                source=edge.get("source") or "", target=edge.get("target") or "", attrs=_attrs(edge, keys, "edge")
            )
        )
    return result


def xml_safe(text: str) -> str:
    """Drop the characters XML 1.0 cannot carry (a parser would reject the file otherwise)."""
    return _INVALID_XML.sub("", text)


def _key_elements(root: ET.Element, domain: str, types: Mapping[str, str], prefix: str) -> dict[str, str]:
    ids: dict[str, str] = {}
    for index, (name, attr_type) in enumerate(types.items()):
        key_id = f"{prefix}{index}"
        ET.SubElement(root, "key", {"id": key_id, "for": domain, "attr.name": name, "attr.type": attr_type})
        ids[name] = key_id
    return ids


def _add_data(element: ET.Element, key_ids: Mapping[str, str], attrs: Mapping[str, str]) -> None:
    for name, value in attrs.items():
        ET.SubElement(element, "data", {"key": key_ids[name]}).text = xml_safe(value)


def write_graphml(
    path: Path, graph: GraphmlGraph, node_types: Mapping[str, str], edge_types: Mapping[str, str]
) -> None:
    """Write ``graph``; ``node_types``/``edge_types`` declare every attribute name with its GraphML type
    (``string``, ``double``, ...), in the order the keys should appear."""
    root = ET.Element("graphml", {"xmlns": GRAPHML_NS})
    node_keys = _key_elements(root, "node", node_types, "n")
    edge_keys = _key_elements(root, "edge", edge_types, "e")
    graph_element = ET.SubElement(root, "graph", {"edgedefault": "directed" if graph.directed else "undirected"})
    for node in graph.nodes:
        _add_data(ET.SubElement(graph_element, "node", {"id": xml_safe(node.id)}), node_keys, node.attrs)
    for edge in graph.edges:
        element = ET.SubElement(
            graph_element, "edge", {"source": xml_safe(edge.source), "target": xml_safe(edge.target)}
        )
        _add_data(element, edge_keys, edge.attrs)
    ET.indent(root)
    try:
        ET.ElementTree(root).write(path, encoding="utf-8", xml_declaration=True)
    except OSError as exc:
        raise KgragError(f"{path}: cannot write ({exc.strerror})") from exc


def split_multi(value: str, separator: str) -> list[str]:
    """Split a ``separator``-joined multi-value, dropping blanks (LightRAG joins with ``<SEP>``)."""
    return [part.strip() for part in value.split(separator) if part.strip()]


def as_float(value: str | None, default: float) -> float:
    """A numeric attribute, or ``default`` when it is absent or not a number."""
    try:
        return float(value) if value not in (None, "") else default
    except ValueError:
        return default
