"""Contract tests of the denoise repository (every backend): mention-level merges, remembered aliases
and dropped relations, run logs, and snapshots that restore the graph tables byte for byte."""

from __future__ import annotations

import pytest
from tests.helpers import add_document

from kgrag.core.denoise_records import DenoiseRun, MergeEntry, RelationScore
from kgrag.core.graph_ids import entity_id_for_key, relation_id_for_pair
from kgrag.core.graph_records import EntityMention, RelationMention
from kgrag.core.records import DocumentStatus
from kgrag.graph.build.aggregate import recompute_stale
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.store import Store

GRAPH_TABLES = ("entities", "entity_mentions", "relations", "relation_mentions")


def _graph(store: Store) -> list[str]:
    """llm ×2 and llms are duplicates; both relate to gpu; llm—llms is a direct relation (a future loop)."""
    chunks = add_document(
        store, "d", ["LLM runs on a GPU.", "LLMs run on GPUs.", "Paris is big."], DocumentStatus.EMBEDDED
    )
    store.graph.add_entity_mentions(
        [
            EntityMention("llm", chunks[0], "LLM", "technology", "A model."),
            EntityMention("gpu", chunks[0], "GPU", "technology", "A chip."),
            EntityMention("llms", chunks[1], "LLMs", "technology", "Models."),
            EntityMention("gpu", chunks[1], "GPUs", "technology", ""),
            EntityMention("paris", chunks[2], "Paris", "location", "A city."),
        ]
    )
    store.graph.add_relation_mentions(
        [
            RelationMention("llm", "gpu", chunks[0], "runs_on", "LLM runs on GPU."),
            RelationMention("llms", "gpu", chunks[1], "runs_on", "LLMs run on GPUs.", weight=2.0),
            RelationMention("llm", "llms", chunks[1], "plural_of", ""),
        ]
    )
    recompute_stale(store, ExtractiveSummarizer(max_tokens=40))
    return chunks


def _ids(*keys: str) -> list[str]:
    return [entity_id_for_key(k) for k in keys]


def test_merge_repoints_mentions_and_relations_and_drops_self_loops(store: Store) -> None:
    _graph(store)
    llm, llms, gpu = _ids("llm", "llms", "gpu")
    counts = store.denoise.merge_entities({llms: llm}, "run1")
    recompute_stale(store, ExtractiveSummarizer(max_tokens=40))
    assert (counts.entity_mentions, counts.relations_moved, counts.self_loops) == (1, 1, 1)
    assert {e.key for e in store.graph.entities()} == {"llm", "gpu", "paris"}
    merged = store.graph.entities([llm])[0]
    assert len(merged.chunk_ids) == 2 and merged.name in {"LLM", "LLMs"}
    relations = store.graph.relations()
    assert [r.id for r in relations] == [relation_id_for_pair(llm, gpu)]
    assert relations[0].weight == 3.0  # weights summed
    mentions = store.graph.relation_mentions([relations[0].id])[relations[0].id]
    assert {(m.source_key, m.target_key) for m in mentions} == {("llm", "gpu")}  # direction kept


def test_merge_mapping_must_be_flat(store: Store) -> None:
    _graph(store)
    llm, llms, gpu = _ids("llm", "llms", "gpu")
    with pytest.raises(ValueError, match="flat"):
        store.denoise.merge_entities({llms: llm, llm: gpu}, "run1")


def test_aliases_map_new_mentions_to_the_canonical_entity(store: Store) -> None:
    _graph(store)
    llm, llms, _gpu = _ids("llm", "llms", "gpu")
    store.denoise.merge_entities({llms: llm}, "run1")
    assert store.denoise.aliases() == {"llms": llm}
    chunk = add_document(store, "e", ["More LLMs on GPUs."], DocumentStatus.EMBEDDED)[0]
    store.graph.add_entity_mentions([EntityMention("llms", chunk, "LLMs", "technology", "")])
    store.graph.add_relation_mentions(
        [RelationMention("llms", "gpu", chunk, "runs_on", ""), RelationMention("llms", "llm", chunk, "same", "")]
    )
    recompute_stale(store, ExtractiveSummarizer(max_tokens=40))
    assert entity_id_for_key("llms") not in {e.id for e in store.graph.entities()}
    assert chunk in store.graph.entities([llm])[0].chunk_ids
    assert len(store.graph.relations()) == 1  # the loop llms—llm was skipped


def test_chained_merges_follow_the_newest_canonical(store: Store) -> None:
    _graph(store)
    llm, llms, gpu = _ids("llm", "llms", "gpu")
    store.denoise.merge_entities({llms: llm}, "run1")
    store.denoise.merge_entities({llm: gpu}, "run2")
    assert store.denoise.aliases() == {"llm": gpu, "llms": gpu}


def test_dropped_relations_stay_dropped_on_re_extraction(store: Store) -> None:
    chunks = _graph(store)
    rid = relation_id_for_pair(*_ids("llm", "gpu"))
    assert store.denoise.drop_relations([rid], "run1") == 1
    store.graph.add_relation_mentions([RelationMention("llm", "gpu", chunks[0], "runs_on", "")])
    assert rid not in {r.id for r in store.graph.relations()}


def _dump(store: Store) -> dict[str, list[tuple[object, ...]]]:
    db = store.db  # type: ignore[attr-defined]
    return {t: [tuple(r) for r in db.query(f"SELECT rowid, * FROM {t} ORDER BY rowid")] for t in GRAPH_TABLES}


def test_restore_gives_back_byte_identical_tables(store: Store) -> None:
    if not hasattr(store, "db"):
        pytest.skip("row dump needs SQL access; the fingerprint check below covers other backends")
    _graph(store)
    before, fingerprint = _dump(store), store.denoise.fingerprint()
    llm, llms, gpu = _ids("llm", "llms", "gpu")
    store.denoise.snapshot("run1")
    store.denoise.merge_entities({llms: llm}, "run1")
    store.denoise.drop_relations([relation_id_for_pair(llm, gpu)], "run1")
    recompute_stale(store, ExtractiveSummarizer(max_tokens=40))
    assert store.denoise.fingerprint() != fingerprint
    store.denoise.restore("run1")
    assert _dump(store) == before
    assert store.denoise.fingerprint() == fingerprint
    assert store.denoise.aliases() == {}


def test_restore_inside_a_failed_transaction_changes_nothing(store: Store) -> None:
    _graph(store)
    fingerprint = store.denoise.fingerprint()
    llm, llms, _ = _ids("llm", "llms", "gpu")
    with pytest.raises(RuntimeError), store.transaction():
        store.denoise.snapshot("run1")
        store.denoise.merge_entities({llms: llm}, "run1")
        raise RuntimeError("crash mid-apply")
    assert store.denoise.fingerprint() == fingerprint


def test_runs_and_logs_round_trip(store: Store) -> None:
    store.denoise.save_run(DenoiseRun("r1", "2026-01-01", "applying", ""))
    store.denoise.save_run(DenoiseRun("r1", "2026-01-01", "applied", "f", {"counts": {"resolve": {"groups": 1}}}))
    assert store.denoise.runs() == [
        DenoiseRun("r1", "2026-01-01", "applied", "f", {"counts": {"resolve": {"groups": 1}}})
    ]
    entry = MergeEntry("r1", "c", "LLM", "a", "llms", "LLMs", 0.9, "merge", "ego")
    score = RelationScore("r1", "rel", "A", "B", "x", 0.1, "weak", "llm", True)
    store.denoise.log_merges([entry])
    store.denoise.log_scores([score])
    assert store.denoise.merges("r1") == [entry]
    assert store.denoise.scores("r1") == [score]
    assert store.denoise.scored_relation_ids("llm") == {"rel"}
    store.denoise.delete_logs("r1")
    assert store.denoise.merges("r1") == [] and store.denoise.scores() == []
