"""Store contract, graph repository: ids, cascades, stale flags, orphans and extraction bookkeeping."""

from __future__ import annotations

import pytest
from tests.graph.graph_fakes import ChunkFactory
from tests.store.backends import StoreBackend

from kgrag.core.graph_ids import entity_id_for_key, relation_id_for_pair
from kgrag.core.graph_records import EntityMention, EntityRecord, RelationMention
from kgrag.store import Store


def _mention(key: str, chunk: str, surface: str | None = None, type_: str = "concept", desc: str = "") -> EntityMention:
    return EntityMention(entity_key=key, chunk_id=chunk, surface=surface or key, type=type_, description=desc)


def test_ids_are_stable_and_pair_ids_unordered() -> None:
    a, b = entity_id_for_key("kestrel"), entity_id_for_key("shale")
    assert a == entity_id_for_key("kestrel") and a.startswith("e") and len(a) == 17
    assert relation_id_for_pair(a, b) == relation_id_for_pair(b, a)


def test_mentions_create_entities_and_relations_once(store: Store, add_doc: ChunkFactory) -> None:
    c1, c2 = add_doc("d1", ["one", "two"])
    with store.transaction():
        ids = store.graph.add_entity_mentions(
            [_mention("kestrel", c1), _mention("shale", c1), _mention("kestrel", c2), _mention("shale", c2)]
        )
        store.graph.add_relation_mentions(
            [
                RelationMention("kestrel", "shale", c1, "use", "Kestrel uses Shale."),
                RelationMention("shale", "kestrel", c2, "store_for", "Shale stores for Kestrel.", ("storage",), 2.0),
            ]
        )
    assert ids[0] == ids[2] == entity_id_for_key("kestrel")
    assert store.graph.counts()["entities"] == 2 and store.graph.counts()["relations"] == 1
    relation = store.graph.relations()[0]
    assert relation.source_id < relation.target_id
    assert relation.chunk_ids == (c1, c2)
    mentions = store.graph.relation_mentions([relation.id])[relation.id]
    # each mention keeps the direction it was stated in
    assert [(m.source_key, m.target_key) for m in mentions] == [("kestrel", "shale"), ("shale", "kestrel")]
    assert mentions[1].keywords == ("storage",) and mentions[1].weight == 2.0


def test_self_relation_is_refused_by_the_schema(
    store: Store, add_doc: ChunkFactory, store_backend: StoreBackend
) -> None:
    (c1,) = add_doc("d1", ["one"])
    store.graph.add_entity_mentions([_mention("kestrel", c1)])
    with pytest.raises(store_backend.integrity_error):
        store.graph.add_relation_mentions([RelationMention("kestrel", "kestrel", c1, "is", "")])


def test_deleting_a_document_cascades_to_mentions_and_flags_stale(store: Store, add_doc: ChunkFactory) -> None:
    (c1,) = add_doc("d1", ["one"])
    (c2,) = add_doc("d2", ["two"])
    store.graph.add_entity_mentions([_mention("kestrel", c1), _mention("shale", c1), _mention("kestrel", c2)])
    store.graph.add_relation_mentions([RelationMention("kestrel", "shale", c1, "use", "")])
    kestrel, shale = entity_id_for_key("kestrel"), entity_id_for_key("shale")
    store.graph.save_entities(
        [
            EntityRecord(kestrel, "kestrel", "Kestrel", "product", "d"),
            EntityRecord(shale, "shale", "Shale", "product", "d"),
        ]
    )
    assert store.graph.stale_entity_ids() == []
    store.documents.delete("d1")
    assert store.graph.counts()["entity_mentions"] == 1 and store.graph.counts()["relation_mentions"] == 0
    assert set(store.graph.stale_entity_ids()) == {kestrel, shale}
    assert len(store.graph.stale_relation_ids()) == 1
    assert store.graph.delete_orphans() == (1, 1)  # shale (and, with it, the relation)
    assert [e.key for e in store.graph.entities()] == ["kestrel"]
    assert store.graph.entity_by_key("kestrel") is not None and store.graph.entity_by_key("shale") is None


def test_extraction_marks_errors_and_other_extractors(store: Store, add_doc: ChunkFactory) -> None:
    c1, c2, c3 = add_doc("d1", ["one", "two", "three"])
    assert store.graph.chunks_needing_extraction("x") == [c1, c2, c3]
    store.graph.mark_extracted(c1, "x", None, 2, 1)
    store.graph.mark_extracted(c2, "x", "timeout", 0, 0)
    assert store.graph.chunks_needing_extraction("x") == [c2, c3]  # failed chunks are retried
    assert store.graph.extraction_errors("x") == [(c2, "timeout")]
    assert store.graph.documents_needing_extraction("x") == ["d1"]
    store.graph.mark_extracted(c2, "x", None, 0, 0)
    store.graph.mark_extracted(c3, "x", None, 0, 0)
    assert store.graph.documents_needing_extraction("x") == []
    assert store.graph.chunks_needing_extraction("y") == [c1, c2, c3]  # another extractor starts over
    store.graph.mark_extracted(c1, "y", None, 0, 0)
    assert store.graph.chunks_needing_extraction("x") == [c1]  # one extraction per chunk is kept
    assert store.graph.counts()["chunks_extracted"] == 3


def test_clear_chunk_mentions_flags_what_it_touches(store: Store, add_doc: ChunkFactory) -> None:
    c1, c2 = add_doc("d1", ["one", "two"])
    store.graph.add_entity_mentions([_mention("kestrel", c1), _mention("shale", c2)])
    store.graph.save_entities([EntityRecord(entity_id_for_key(k), k, k, "concept", "") for k in ("kestrel", "shale")])
    store.graph.clear_chunk_mentions([c1])
    assert store.graph.stale_entity_ids() == [entity_id_for_key("kestrel")]
    assert store.graph.counts()["entity_mentions"] == 1


def test_relations_of_and_ordered_lookup(store: Store, add_doc: ChunkFactory) -> None:
    (c1,) = add_doc("d1", ["one"])
    store.graph.add_entity_mentions([_mention(k, c1) for k in ("a1", "b1", "c1")])
    store.graph.add_relation_mentions(
        [RelationMention("a1", "b1", c1, "x", ""), RelationMention("b1", "c1", c1, "y", "")]
    )
    b = entity_id_for_key("b1")
    assert len(store.graph.relations_of([b])) == 2
    assert len(store.graph.relations_of([entity_id_for_key("a1"), b])) == 2
    ids = [entity_id_for_key("c1"), entity_id_for_key("a1"), "missing"]
    assert [e.key for e in store.graph.entities(ids)] == ["c1", "a1"]
