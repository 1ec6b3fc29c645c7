"""GraphML export → import round trips, with and without the provenance companion."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import igraph as ig
import pytest
from tests.store.backends import StoreMaker

from kgrag.core.errors import KgragError
from kgrag.core.graph_records import EntityMention, RelationMention
from kgrag.graph.io.companion import companion_path
from kgrag.graph.io.graphml import export_graphml, import_graphml
from kgrag.graph.io.graphml_format import read_graphml
from kgrag.graph.io.load import EntitySpec, load_graph
from kgrag.store import Store

AddDoc = Callable[[Store, str, list[str]], list[str]]


def _snapshot(store: Store) -> tuple[object, ...]:
    entities = sorted(store.graph.entities(), key=lambda e: e.id)
    relations = sorted(store.graph.relations(), key=lambda r: r.id)
    return tuple(entities), tuple(relations)


def _mentions(store: Store) -> tuple[list[EntityMention], list[RelationMention]]:
    entity_mentions = store.graph.entity_mentions([e.id for e in store.graph.entities()])
    relation_mentions = store.graph.relation_mentions([r.id for r in store.graph.relations()])
    return (
        sorted((m for ms in entity_mentions.values() for m in ms), key=repr),
        sorted((m for ms in relation_mentions.values() for m in ms), key=repr),
    )


def test_round_trip_into_fresh_store_is_exact(
    small_store: Store, tmp_path: Path, nasty_text: str, make_store: StoreMaker
) -> None:
    path = tmp_path / "out" / "graph.graphml"
    counts = export_graphml(small_store, path)
    assert counts == {"entities": 7, "relations": 5, "chunks": 4}
    assert companion_path(path).name == "graph.provenance.json"
    fresh = make_store("s1")
    report = import_graphml(fresh, path)
    assert (report.nodes, report.edges, report.documents, report.chunks_rewritten) == (7, 5, 1, 4)
    assert report.notes() == []
    assert _snapshot(fresh) == _snapshot(small_store)
    assert _mentions(fresh) == _mentions(small_store)
    assert fresh.chunks.for_document("doc1") == small_store.chunks.for_document("doc1")
    nasty = next(e for e in fresh.graph.entities() if e.key == "a")
    assert nasty.description == nasty_text
    assert fresh.graph.stale_entity_ids() == [] and fresh.graph.stale_relation_ids() == []


def test_reimport_into_same_store_is_idempotent(small_store: Store, tmp_path: Path) -> None:
    path = tmp_path / "graph.graphml"
    export_graphml(small_store, path)
    before, counts = _snapshot(small_store), small_store.graph.counts()
    import_graphml(small_store, path)
    import_graphml(small_store, path)
    assert _snapshot(small_store) == before
    assert small_store.graph.counts() == counts


def test_without_companion_into_store_with_same_chunks(
    small_store: Store, tmp_path: Path, add_doc: AddDoc, make_store: StoreMaker
) -> None:
    path = tmp_path / "graph.graphml"
    export_graphml(small_store, path, with_companion=False)
    assert not companion_path(path).exists()
    other = make_store("s1")
    add_doc(other, "doc1", [c.text for c in small_store.chunks.for_document("doc1")])
    report = import_graphml(other, path)
    assert report.skipped_mentions == 0
    assert _snapshot(other) == _snapshot(small_store)


def test_without_chunks_items_go_to_placeholder(small_store: Store, tmp_path: Path, make_store: StoreMaker) -> None:
    path = tmp_path / "graph.graphml"
    export_graphml(small_store, path, with_companion=False)
    empty = make_store("s1")
    report = import_graphml(empty, path)
    assert (report.nodes, report.edges) == (7, 5)
    assert (report.placeholder_entities, report.placeholder_relations) == (7, 5)
    assert report.dangling_source_ids == 4
    assert len(empty.graph.entities()) == 7 and len(empty.graph.relations()) == 5
    placeholder = [d for d in empty.documents.list() if d.metadata.get("placeholder") == "true"]
    assert len(placeholder) == 1
    text = empty.chunks.for_document(placeholder[0].id)[0].text
    assert "A -- B" in text and "Graph items kept without a source chunk" in text
    assert any("placeholder" in note for note in report.notes())


def test_exported_file_is_standard_graphml(small_store: Store, tmp_path: Path) -> None:
    path = tmp_path / "graph.graphml"
    export_graphml(small_store, path)
    graph = ig.Graph.Read_GraphML(str(path))
    assert (graph.vcount(), graph.ecount(), graph.is_directed()) == (7, 5, False)
    parsed = read_graphml(path)
    node = next(n for n in parsed.nodes if n.attrs["key"] == "c")
    assert node.attrs["chunk_ids"] == "doc1-c0<SEP>doc1-c1"
    assert "weight" in parsed.edges[0].attrs


def test_control_characters_are_dropped_not_fatal(
    tmp_path: Path, add_doc: AddDoc, entity_spec: Callable[..., EntitySpec], make_store: StoreMaker
) -> None:
    store = make_store("s1")
    chunks = add_doc(store, "d", ["text"])
    with store.transaction():
        load_graph(store, [entity_spec("x", "concept", chunks, "bell\x07 and nul\x00 here")], [])
    path = tmp_path / "g.graphml"
    export_graphml(store, path)
    fresh = make_store("s2")
    import_graphml(fresh, path)
    assert fresh.graph.entities()[0].description == "bell and nul here"


def test_malformed_files_are_user_errors(tmp_path: Path, make_store: StoreMaker) -> None:
    bad = tmp_path / "bad.graphml"
    bad.write_text("<graphml><graph>", encoding="utf-8")
    with pytest.raises(KgragError, match="not valid GraphML"):
        import_graphml(make_store("s1"), bad)
    bad.write_text(
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph>'
        '<node id="a"/><edge source="a" target="zz"/></graph></graphml>',
        encoding="utf-8",
    )
    with pytest.raises(KgragError, match="not in the file"):
        import_graphml(make_store("s2"), bad)
    companion = companion_path(bad)
    companion.write_text('{"format": "other"}', encoding="utf-8")
    with pytest.raises(KgragError, match="not a kgrag provenance companion"):
        import_graphml(make_store("s3"), bad)


def test_export_into_unwritable_directory_is_a_user_error(small_store: Store, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    with pytest.raises(KgragError, match="cannot create the export directory"):
        export_graphml(small_store, blocker / "sub" / "graph.graphml")
