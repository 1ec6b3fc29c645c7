"""LightRAG import of a small synthetic working directory (see conftest for its irregularities)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from kgrag.core.errors import KgragError
from kgrag.core.graph_ids import entity_id_for_key, relation_id_for_pair
from kgrag.graph.analysis.stats import graph_stats
from kgrag.graph.io.lightrag.importer import EXTRACTOR_NAME, import_lightrag
from kgrag.graph.io.lightrag.mapping import assign_keys, map_type, pair_descriptions
from kgrag.store import Store


def _by_name(store: Store) -> dict[str, object]:
    return {e.metadata.get("lightrag_id", e.name): e for e in store.graph.entities()}


def test_report_counts_every_irregularity(store: Store, lightrag_dir: Path) -> None:
    report = import_lightrag(store, lightrag_dir)
    assert (report.nodes, report.edges, report.documents, report.chunks) == (7, 5, 3, 4)
    assert report.dangling_source_ids == 2  # chunk-missing, chunk-gone
    assert report.skipped_mentions == 3  # Bob's chunk-missing, Ghost, the Ghost--Device edge
    assert (report.placeholder_entities, report.placeholder_relations) == (1, 1)
    assert (report.node_description_mismatches, report.edge_description_mismatches) == (1, 1)
    assert (report.key_collisions, report.implicit_nodes) == (1, 1)
    assert len(report.notes()) == 5
    assert report.to_dict()["notes"] == report.notes()


def test_graph_keeps_lightrag_identity_and_stats(store: Store, lightrag_dir: Path) -> None:
    import_lightrag(store, lightrag_dir)
    stats = graph_stats(store)
    assert (stats.nodes, stats.edges) == (7, 5)
    entities = {e.key: e for e in store.graph.entities()}
    assert entities["device"].name == "Device" and entities["device#2"].name == "device"
    assert entities["bob"].type == "concept" and entities["device#2"].type == "concept"
    assert entities["device"].type == "equipment"
    assert entities["undeclared"].description == "" and entities["undeclared"].chunk_ids == ("chunk-1",)
    assert entities["acme"].description == "Acme is a company.\nAcme makes devices.\nextra"
    assert entities["alice"].metadata == {"lightrag_id": "Alice", "lightrag_type": "Person"}
    assert store.graph.stale_entity_ids() == [] and store.graph.stale_relation_ids() == []


def test_descriptions_pair_with_source_chunks(store: Store, lightrag_dir: Path) -> None:
    import_lightrag(store, lightrag_dir)
    alice = entity_id_for_key("alice")
    mentions = {m.chunk_id: m.description for m in store.graph.entity_mentions([alice])[alice]}
    assert mentions == {"chunk-1": "Alice works at Acme.", "chunk-2": "Alice met Bob."}
    acme = entity_id_for_key("acme")
    acme_mentions = store.graph.entity_mentions([acme])[acme]
    assert {m.description for m in acme_mentions} == {"Acme is a company.\nAcme makes devices.\nextra"}
    bob = entity_id_for_key("bob")
    assert [m.chunk_id for m in store.graph.entity_mentions([bob])[bob]] == ["chunk-2"]


def test_relations_keep_weight_keywords_and_provenance(store: Store, lightrag_dir: Path) -> None:
    import_lightrag(store, lightrag_dir)
    rid = relation_id_for_pair(entity_id_for_key("alice"), entity_id_for_key("acme"))
    relation = store.graph.relations([rid])[0]
    assert relation.weight == 3.0 and relation.keywords == ("employment", "work")
    assert relation.label == "employment" and relation.chunk_ids == ("chunk-1", "chunk-2")
    mentions = store.graph.relation_mentions([rid])[rid]
    assert sum(m.weight for m in mentions) == pytest.approx(3.0)
    assert [m.description for m in mentions] == ["Alice is employed by Acme.", "Works there."]
    duplicate = relation_id_for_pair(entity_id_for_key("bob"), entity_id_for_key("device#2"))
    assert store.graph.relations([duplicate])[0].chunk_ids == ("chunk-3",)


def test_documents_chunks_and_placeholder(store: Store, lightrag_dir: Path) -> None:
    import_lightrag(store, lightrag_dir)
    docs = {d.id: d for d in store.documents.list()}
    assert {"doc-A", "doc-B"} <= set(docs) and len(docs) == 4  # + synthetic doc + placeholder doc
    assert [c.id for c in store.chunks.for_document("doc-A")] == ["chunk-1", "chunk-2"]
    first, second = store.chunks.for_document("doc-A")
    assert (first.char_start, first.char_end, second.char_start) == (0, len(first.text), len(first.text))
    assert first.n_tokens == 5
    placeholder = [d for d in docs.values() if d.metadata.get("placeholder") == "true"]
    assert len(placeholder) == 1
    text = store.chunks.for_document(placeholder[0].id)[0].text
    assert "Ghost: Known only from a lost chunk." in text and "Ghost -- Device: A lost link." in text
    ghost = store.graph.entity_by_key("ghost")
    assert ghost is not None and ghost.chunk_ids == (placeholder[0].id,)
    assert store.graph.chunks_needing_extraction(EXTRACTOR_NAME) == []


def test_import_is_idempotent(store: Store, lightrag_dir: Path) -> None:
    first = import_lightrag(store, lightrag_dir)
    snapshot = (store.graph.entities(), store.graph.relations(), store.graph.counts(), store.chunks.count())
    second = import_lightrag(store, lightrag_dir)
    assert (store.graph.entities(), store.graph.relations(), store.graph.counts(), store.chunks.count()) == snapshot
    assert first.chunks_rewritten == 4 and second.chunks_rewritten == 0


def test_reimport_after_change_drops_what_is_gone(store: Store, lightrag_dir: Path, tmp_path: Path) -> None:
    import_lightrag(store, lightrag_dir)
    changed = tmp_path / "changed"
    changed.mkdir()
    shutil.copy(lightrag_dir / "kv_store_text_chunks.json", changed / "kv_store_text_chunks.json")
    text = (lightrag_dir / "graph_chunk_entity_relation.graphml").read_text(encoding="utf-8")
    text = text.replace("chunk-gone", "chunk-1")  # Ghost is now backed by a real chunk
    (changed / "renamed.graphml").write_text(text, encoding="utf-8")
    report = import_lightrag(store, changed)
    assert report.placeholder_entities == 0 and report.dangling_source_ids == 1
    assert not [d for d in store.documents.list() if d.metadata.get("placeholder") == "true"]
    ghost = store.graph.entity_by_key("ghost")
    assert ghost is not None and ghost.chunk_ids == ("chunk-1",)
    assert len(store.graph.entities()) == 7


def test_file_location_rules(store: Store, lightrag_dir: Path, tmp_path: Path) -> None:
    graphml = lightrag_dir / "graph_chunk_entity_relation.graphml"
    chunks = lightrag_dir / "kv_store_text_chunks.json"
    report = import_lightrag(store, tmp_path / "elsewhere", graphml=graphml, chunks_file=chunks)
    assert report.nodes == 7
    two = tmp_path / "two"
    two.mkdir()
    shutil.copy(graphml, two / "a.graphml")
    shutil.copy(graphml, two / "b.graphml")
    with pytest.raises(KgragError, match="exactly one"):
        import_lightrag(store, two)
    (two / "b.graphml").unlink()
    with pytest.raises(KgragError, match="no LightRAG chunks file"):
        import_lightrag(store, two)
    shutil.copy(chunks, two / "lightrag-text-chunks.json")
    assert import_lightrag(store, two).chunks_file.endswith("lightrag-text-chunks.json")
    (two / "lightrag-text-chunks.json").write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(KgragError, match="JSON object"):
        import_lightrag(store, two)


def test_mapping_helpers() -> None:
    assert map_type("UNKNOWN") == "concept" and map_type("") == "concept"
    assert map_type(" Health  Condition ") == "health condition" and map_type("Biology,") == "biology"
    keys, collisions = assign_keys(["Blood tests", "blood tests", "Blood Tests", "Alpha"])
    assert collisions == 2 and len(set(keys.values())) == 4
    assert keys["Blood Tests"] == "blood test" and keys["Blood tests"] == "blood test#2"
    assert assign_keys(["b", "a", "A"]) == assign_keys(["A", "a", "b"])
    per_chunk, mismatch = pair_descriptions("x<SEP>y", "c1<SEP>c1")
    assert per_chunk == {"c1": "x\ny"} and not mismatch
    per_chunk, mismatch = pair_descriptions("x<SEP>y<SEP>z", "c1<SEP>c2")
    assert per_chunk == {"c1": "x\ny\nz", "c2": "x\ny\nz"} and mismatch
