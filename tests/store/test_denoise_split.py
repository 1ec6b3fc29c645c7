"""Contract tests of splitting one merged name back out of its entity (every backend): the graph comes back
as it was before the merge, passages indexed after the merge follow the name, and relations between the two
that the merge dropped as self-loops come back."""

from __future__ import annotations

from tests.helpers import add_document
from tests.store.test_denoise_repository import _graph, _ids

from kgrag.core.graph_records import EntityMention, RelationMention
from kgrag.core.records import DocumentStatus
from kgrag.graph.build.aggregate import recompute_stale
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.store import Store


def _rebuild(store: Store) -> None:
    recompute_stale(store, ExtractiveSummarizer(max_tokens=40))


def _state(store: Store) -> tuple[set[tuple[object, ...]], ...]:
    """The graph without row identities: entities, relations, and every mention with its chunk."""
    entities = {
        (e.id, e.key, e.name, e.type, e.description, tuple(sorted(e.chunk_ids))) for e in store.graph.entities()
    }
    relations = store.graph.relations()
    rel = {(r.id, r.source_id, r.target_id, r.label, r.description, r.weight) for r in relations}
    mentions = store.graph.relation_mentions([r.id for r in relations])
    rel_mentions = {
        (rid, m.source_key, m.target_key, m.chunk_id, m.description) for rid, ms in mentions.items() for m in ms
    }
    ent_mentions = {
        (eid, m.chunk_id, m.surface)
        for eid, ms in store.graph.entity_mentions(store.graph.entity_ids()).items()
        for m in ms
    }
    return entities, rel, rel_mentions, ent_mentions


# the fixture's keys are lower-cased surfaces ("LLMs" is not folded to "llm" as the graph layer's key would)


def _merge(store: Store, alias: str, canonical: str, run: str = "run1") -> None:
    store.denoise.snapshot(run)
    store.denoise.merge_entities({alias: canonical}, run)
    _rebuild(store)


def test_a_split_right_after_the_merge_gives_back_the_graph_before_it(store: Store) -> None:
    _graph(store)
    _rebuild(store)
    before = _state(store)
    llm, llms, _gpu = _ids("llm", "llms", "gpu")
    _merge(store, llms, llm)
    assert _state(store) != before
    counts = store.denoise.split_alias("llms", str.lower)
    _rebuild(store)
    assert counts is not None
    assert (counts.entity_mentions, counts.relation_mentions, counts.restored_loops) == (1, 1, 1)
    assert _state(store) == before
    assert store.denoise.aliases() == {}


def test_passages_indexed_after_the_merge_follow_the_name_out(store: Store) -> None:
    _graph(store)
    llm, llms, gpu = _ids("llm", "llms", "gpu")
    _merge(store, llms, llm)
    chunk = add_document(store, "e", ["More LLMs on GPUs."], DocumentStatus.EMBEDDED)[0]
    both = add_document(store, "f", ["An LLM and two LLMs on GPUs."], DocumentStatus.EMBEDDED)[0]
    store.graph.add_entity_mentions(
        [
            EntityMention("llms", chunk, "LLMs", "technology", ""),
            EntityMention("gpu", chunk, "GPUs", "technology", ""),
            EntityMention("llm", both, "LLM", "technology", ""),
            EntityMention("llms", both, "LLMs", "technology", ""),
            EntityMention("gpu", both, "GPUs", "technology", ""),
        ]
    )
    store.graph.add_relation_mentions(
        [
            RelationMention("llms", "gpu", chunk, "runs_on", "LLMs use GPUs."),
            RelationMention("llm", "gpu", both, "x", ""),
        ]
    )
    _rebuild(store)
    assert store.graph.entities([llms]) == []  # the new mentions landed on the kept entity
    counts = store.denoise.split_alias("llms", str.lower)
    _rebuild(store)
    assert counts is not None and counts.entity_mentions == 3
    split = store.graph.entities([llms])[0]
    assert set(split.chunk_ids) >= {chunk, both}
    kept = store.graph.entities([llm])[0]
    assert chunk not in kept.chunk_ids and both in kept.chunk_ids
    pairs = {(r.source_id, r.target_id) for r in store.graph.relations()}
    assert tuple(sorted((llms, gpu))) in pairs and tuple(sorted((llm, gpu))) in pairs
    on_split = store.graph.relation_mentions([r.id for r in store.graph.relations_of([llms])])
    chunks = {m.chunk_id for ms in on_split.values() for m in ms}
    assert chunk in chunks and both not in chunks  # a passage naming both keeps its relation on the kept entity
    store.graph.add_entity_mentions([EntityMention("llms", chunk, "LLMs", "technology", "")])
    assert len(store.graph.entity_mentions([llms])[llms]) == 4  # the name is no alias any more


def test_splitting_a_name_that_is_no_alias_changes_nothing(store: Store) -> None:
    _graph(store)
    _rebuild(store)
    before = _state(store)
    assert store.denoise.split_alias("gpu", str.lower) is None
    assert _state(store) == before


def test_a_split_keeps_relations_dropped_on_purpose_dropped(store: Store) -> None:
    _graph(store)
    llm, llms, _gpu = _ids("llm", "llms", "gpu")
    _merge(store, llms, llm)
    loop = store.graph.relations_of([llm])
    store.denoise.drop_relations([r.id for r in loop], "run2")
    counts = store.denoise.split_alias("llms", str.lower)
    _rebuild(store)
    assert counts is not None and (counts.relation_mentions, counts.restored_loops) == (0, 1)
    assert [(r.source_id, r.target_id) for r in store.graph.relations_of([llms])] == [tuple(sorted((llm, llms)))]


def test_a_row_id_used_again_after_a_reindex_is_not_taken_for_the_merged_name(store: Store) -> None:
    """SQLite gives a new row the id of the highest deleted one: after the merged name's passage was
    extracted again, the kept entity's new mention can carry the id the snapshot recorded for the alias."""
    chunks = _graph(store)
    llm, llms, _gpu = _ids("llm", "llms", "gpu")
    _merge(store, llms, llm)
    store.graph.clear_chunk_mentions(chunks[1:])  # re-extraction of the alias's passage and the last one
    store.graph.add_entity_mentions([EntityMention("llm", chunks[2], "LLM", "technology", "")])
    _rebuild(store)
    store.denoise.split_alias("llms", str.lower)
    _rebuild(store)
    kept = store.graph.entities([llm])[0]
    assert chunks[2] in kept.chunk_ids  # the kept entity's own mention stays with it
