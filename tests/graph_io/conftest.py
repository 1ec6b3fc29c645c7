"""Fixtures for graph statistics/export/import tests: a small hand-built store and a synthetic LightRAG
working directory with the irregularities real ones have (<SEP> lists, dangling ids, count mismatches,
names that differ only in case, an edge to an undeclared node)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

import pytest
from tests.helpers import add_document
from tests.store.backends import StoreMaker

from kgrag.core.graph_records import EntityMention, RelationMention
from kgrag.graph.io.load import EntitySpec, RelationSpec, load_graph
from kgrag.store import Store

NASTY = 'He said "hi", then; left\nnew line, <tag> & ampersand\ttab — ünïcode'


def entity(key: str, etype: str, chunks: list[str], description: str = "") -> EntitySpec:
    description = description or f"{key} is a {etype}"
    mentions = tuple(EntityMention(key, c, key.title(), etype, f"{description} (seen in {c})") for c in chunks)
    return EntitySpec(
        key=key, name=key.title(), type=etype, description=description, mentions=mentions, metadata={"origin": "test"}
    )


def relation(
    a: str,
    b: str,
    chunks: list[str],
    label: str = "knows",
    weight: float = 1.0,
    description: str = "",
    keywords: tuple[str, ...] = ("kw",),
) -> RelationSpec:
    description = description or f"{a} {label} {b}"
    mentions = tuple(
        RelationMention(a, b, c, label, f"{description} in {c}", keywords, weight / len(chunks)) for c in chunks
    )
    return RelationSpec(
        source_key=a,
        target_key=b,
        label=label,
        description=description,
        keywords=keywords,
        weight=weight,
        mentions=mentions,
    )


def build_small_graph(store: Store) -> None:
    """7 nodes, 5 edges: triangle a-b-c plus c-d, a pair e-f, isolated g (hand-computed stats in tests)."""
    c = add_document(store, "doc1", ["alpha beta gamma", "gamma delta", "epsilon zeta", "eta alone"])
    entities = [
        entity("a", "person", [c[0]], NASTY),
        entity("b", "person", [c[0]]),
        entity("c", "person", c[:2]),
        entity("d", "organization", [c[1]]),
        entity("e", "organization", [c[2]]),
        entity("f", "concept", [c[2]]),
        entity("g", "concept", [c[3]]),
    ]
    relations = [
        relation("a", "b", [c[0]], description=NASTY, keywords=("semi;colon", 'quo"te', "comma, here")),
        relation("b", "c", [c[0]], weight=2.5),
        relation("a", "c", [c[0]]),
        relation("c", "d", c[:2], label="works at", weight=3.0),
        relation("e", "f", [c[2]]),
    ]
    with store.transaction():
        load_graph(store, entities, relations)


@pytest.fixture
def small_store(make_store: StoreMaker) -> Store:
    """The small graph in a store of each backend (``make_store`` closes it)."""
    store = make_store("small")
    build_small_graph(store)
    return store


def _data(key: str, value: str) -> str:
    return f'      <data key="{key}">{escape(value)}</data>\n'


def write_lightrag_graphml(path: Path, nodes: list[dict[str, str]], edges: list[dict[str, str]]) -> None:
    """A GraphML file shaped like LightRAG's (networkx writer: d0..dN keys, entity_id repeated as data)."""
    keys = [
        '<key id="d6" for="edge" attr.name="weight" attr.type="double" />',
        '<key id="d7" for="edge" attr.name="description" attr.type="string" />',
        '<key id="d8" for="edge" attr.name="keywords" attr.type="string" />',
        '<key id="d9" for="edge" attr.name="source_id" attr.type="string" />',
        '<key id="d0" for="node" attr.name="entity_id" attr.type="string" />',
        '<key id="d1" for="node" attr.name="entity_type" attr.type="string" />',
        '<key id="d2" for="node" attr.name="description" attr.type="string" />',
        '<key id="d3" for="node" attr.name="source_id" attr.type="string" />',
    ]
    lines = [
        "<?xml version='1.0' encoding='utf-8'?>\n",
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n',
        *(f"  {k}\n" for k in keys),
        '  <graph edgedefault="undirected">\n',
    ]
    for n in nodes:
        lines.append(f"    <node id={quoteattr(n['id'])}>\n")
        lines += [
            _data("d0", n["id"]),
            _data("d1", n["type"]),
            _data("d2", n["description"]),
            _data("d3", n["source_id"]),
            "    </node>\n",
        ]
    for e in edges:
        lines.append(f"    <edge source={quoteattr(e['source'])} target={quoteattr(e['target'])}>\n")
        lines += [
            _data("d6", e["weight"]),
            _data("d7", e["description"]),
            _data("d8", e["keywords"]),
            _data("d9", e["source_id"]),
            "    </edge>\n",
        ]
    lines.append("  </graph>\n</graphml>\n")
    path.write_text("".join(lines), encoding="utf-8")


LIGHTRAG_CHUNKS = {
    "chunk-1": {
        "tokens": "5",
        "content": "Alice works at Acme. Acme makes devices.",
        "chunk_order_index": 0,
        "full_doc_id": "doc-A",
    },
    "chunk-2": {"tokens": 4, "content": "Alice met Bob at Acme.", "chunk_order_index": 1, "full_doc_id": "doc-A"},
    "chunk-3": {"tokens": 3, "content": "Bob uses a device daily.", "chunk_order_index": 0, "full_doc_id": "doc-B"},
    "chunk-4": {"tokens": 3, "content": "An orphan chunk with no document id."},
}
LIGHTRAG_NODES = [
    {
        "id": "Alice",
        "type": "Person",
        "description": "Alice works at Acme.<SEP>Alice met Bob.",
        "source_id": "chunk-1<SEP>chunk-2",
    },
    {
        "id": "Acme",
        "type": "Organization",
        "description": "Acme is a company.<SEP>Acme makes devices.<SEP>extra",
        "source_id": "chunk-1<SEP>chunk-2",
    },
    {
        "id": "Bob",
        "type": "UNKNOWN",
        "description": "Bob is a person.<SEP>Bob visited.",
        "source_id": "chunk-2<SEP>chunk-missing",
    },
    {"id": "Device", "type": "Equipment", "description": "A device.", "source_id": "chunk-1"},
    {"id": "device", "type": "", "description": "a device used daily", "source_id": "chunk-3"},
    {"id": "Ghost", "type": "Category", "description": "Known only from a lost chunk.", "source_id": "chunk-gone"},
]
LIGHTRAG_EDGES = [
    {
        "source": "Alice",
        "target": "Acme",
        "weight": "3.0",
        "description": "Alice is employed by Acme.<SEP>Works there.",
        "keywords": "employment,work",
        "source_id": "chunk-1<SEP>chunk-2",
    },
    {
        "source": "Alice",
        "target": "Bob",
        "weight": "1.0",
        "description": "They met.",
        "keywords": "meeting",
        "source_id": "chunk-2",
    },
    {
        "source": "Bob",
        "target": "device",
        "weight": "2.0",
        "description": "Bob uses it.",
        "keywords": "usage",
        "source_id": "chunk-3<SEP>chunk-3",
    },
    {
        "source": "Ghost",
        "target": "Device",
        "weight": "1.0",
        "description": "A lost link.",
        "keywords": "",
        "source_id": "chunk-gone",
    },
    {
        "source": "Acme",
        "target": "Undeclared",
        "weight": "1.0",
        "description": "Mentioned only on an edge.",
        "keywords": "partner",
        "source_id": "chunk-1",
    },
]


@pytest.fixture
def lightrag_dir(tmp_path: Path) -> Path:
    """A LightRAG working directory under its default file names."""
    directory = tmp_path / "lightrag"
    directory.mkdir()
    write_lightrag_graphml(directory / "graph_chunk_entity_relation.graphml", LIGHTRAG_NODES, LIGHTRAG_EDGES)
    (directory / "kv_store_text_chunks.json").write_text(json.dumps(LIGHTRAG_CHUNKS), encoding="utf-8")
    return directory


@pytest.fixture
def nasty_text() -> str:
    return NASTY


@pytest.fixture
def add_doc() -> Callable[[Store, str, list[str]], list[str]]:
    """:func:`add_document` for tests (fixtures rather than imports: test dirs are not packages)."""
    return add_document


@pytest.fixture
def entity_spec() -> Callable[..., EntitySpec]:
    return entity
