"""Merging extractions: identity, type votes, display names, descriptions and their summaries,
relation aggregation, failed chunks, and the summarisers themselves."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from tests.graph.graph_fakes import ChunkFactory

from kgrag.core.errors import BudgetExceededError
from kgrag.graph.build.aggregate import display_name, vote
from kgrag.graph.build.merge import merge_extractions, to_mentions
from kgrag.graph.build.summarize import CallableSummarizer, ExtractiveSummarizer
from kgrag.graph.types import ChunkExtraction, ExtractedEntity, ExtractedRelation
from kgrag.store import Store


def E(name: str, type_: str = "concept", desc: str = "") -> ExtractedEntity:
    return ExtractedEntity(name, type_, desc)


def R(
    a: str, b: str, label: str = "related_to", desc: str = "", keywords: Sequence[str] = (), weight: float = 1.0
) -> ExtractedRelation:
    return ExtractedRelation(a, b, label, desc, tuple(keywords), weight)


def test_display_name_and_type_votes() -> None:
    assert display_name(["Kestrel", "kestrel", "Kestrel", "KESTREL"]) == "Kestrel"
    assert display_name(["Tern 2", "Tern two"]) == "Tern two"  # tie → longest
    assert vote(["person", "organization", "person"], "concept") == "person"
    assert vote(["concept", "person"], "concept") == "person"  # tie → specific over the fallback
    assert vote(["product", "location"], "concept") == "location"  # tie → alphabetical, deterministic
    assert vote([], "concept") == "concept"


def test_merge_accumulates_entities_across_chunks(
    store: Store, add_doc: ChunkFactory, summarizer: ExtractiveSummarizer
) -> None:
    c1, c2, c3 = add_doc("d1", ["a", "b", "c"])
    stats = merge_extractions(
        store,
        [
            ChunkExtraction(c1, [E("Rui Carvalho", "person", "Rui leads the Platform team."), E("Platform team")]),
            ChunkExtraction(c2, [E("rui carvalho", "organization", "Rui joined in 2019.")]),
            ChunkExtraction(c3, [E("Rui Carvalho", "person", "Rui leads the Platform team.")]),
        ],
        "t",
        summarizer,
    )
    assert (stats.chunks, stats.entity_mentions) == (3, 4)
    rui = store.graph.entity_by_key("rui carvalho")
    assert rui is not None
    assert (rui.name, rui.type) == ("Rui Carvalho", "person")
    assert rui.description == "Rui leads the Platform team.\nRui joined in 2019."  # distinct, in chunk order
    assert rui.chunk_ids == (c1, c2, c3)
    assert store.graph.stale_entity_ids() == [] and store.graph.stale_relation_ids() == []


def test_relation_aggregation_and_endpoint_entities(
    store: Store, add_doc: ChunkFactory, summarizer: ExtractiveSummarizer
) -> None:
    c1, c2, c3 = add_doc("d1", ["a", "b", "c"])
    merge_extractions(
        store,
        [
            ChunkExtraction(
                c1, [E("Rui", "person", "Rui.")], [R("Rui", "Platform", "lead", "Rui leads.", ["leadership"], 2)]
            ),
            ChunkExtraction(c2, [], [R("Platform", "Rui", "led_by", "Led by Rui.", ["Leadership", "team"], 1.5)]),
            ChunkExtraction(c3, [], [R("Rui", "Platform", "lead", "", ["management"], 1)]),
        ],
        "t",
        summarizer,
    )
    (relation,) = store.graph.relations()
    assert relation.label == "lead"  # majority
    assert relation.weight == pytest.approx(4.5)
    assert relation.keywords == ("leadership", "team", "management")  # union, case-insensitive, first seen
    assert relation.description == "Rui leads.\nLed by Rui."
    assert relation.chunk_ids == (c1, c2, c3)
    platform = store.graph.entity_by_key("platform")
    assert platform is not None and platform.type == "concept" and platform.description == ""
    assert platform.chunk_ids == (c1, c2, c3)  # endpoint-only mentions are provenance too


def test_label_ties_prefer_a_specific_label(
    store: Store, add_doc: ChunkFactory, summarizer: ExtractiveSummarizer
) -> None:
    c1, c2 = add_doc("d1", ["a", "b"])
    merge_extractions(
        store,
        [ChunkExtraction(c1, [], [R("A1", "B1")]), ChunkExtraction(c2, [], [R("A1", "B1", "own")])],
        "t",
        summarizer,
    )
    assert store.graph.relations()[0].label == "own"


def test_unusable_items_are_dropped() -> None:
    extraction = ChunkExtraction("c", [E("!!!"), E("Kestrel")], [R("Kestrel", "kestrel"), R("", "Shale")])
    entities, relations, dropped = to_mentions(extraction)
    assert [m.entity_key for m in entities] == ["kestrel"]
    assert relations == [] and dropped == 3


def test_long_descriptions_are_summarised_and_short_ones_are_not(store: Store, add_doc: ChunkFactory) -> None:
    texts = [f"Kestrel ingests sensor telemetry in batch {i} for the Platform team." for i in range(12)]
    chunk_ids = add_doc("d1", [str(i) for i in range(12)])
    summarizer = ExtractiveSummarizer(max_tokens=40)
    batch = [ChunkExtraction(c, [E("Kestrel", "product", t)]) for c, t in zip(chunk_ids, texts, strict=True)]
    merge_extractions(store, batch, "t", summarizer)
    kestrel = store.graph.entity_by_key("kestrel")
    assert kestrel is not None
    assert summarizer.counter.count(kestrel.description) <= 40
    assert 0 < len(kestrel.description.split(". ")) < 12
    assert all(sentence in " ".join(texts) for sentence in kestrel.description.split(" Kestrel"))
    merge_extractions(
        store, [ChunkExtraction(chunk_ids[0], [E("Shale", "product", "Shale stores data.")])], "t", summarizer
    )
    shale = store.graph.entity_by_key("shale")
    assert shale is not None and shale.description == "Shale stores data."


def test_failed_chunk_writes_no_mentions_and_is_retried(
    store: Store, add_doc: ChunkFactory, summarizer: ExtractiveSummarizer
) -> None:
    c1, c2 = add_doc("d1", ["a", "b"])
    stats = merge_extractions(
        store, [ChunkExtraction(c1, [E("Kestrel")]), ChunkExtraction(c2, error="429 forever")], "t", summarizer
    )
    assert (stats.chunks, stats.failed) == (1, 1)
    assert store.graph.chunks_needing_extraction("t") == [c2]
    assert store.graph.counts()["entity_mentions"] == 1
    merge_extractions(store, [ChunkExtraction(c2, [E("Shale")])], "t", summarizer)
    assert store.graph.chunks_needing_extraction("t") == []
    assert store.graph.counts()["entities"] == 2


def test_re_extracting_a_chunk_replaces_its_mentions(
    store: Store, add_doc: ChunkFactory, summarizer: ExtractiveSummarizer
) -> None:
    (c1,) = add_doc("d1", ["a"])
    merge_extractions(store, [ChunkExtraction(c1, [E("Kestrel")], [R("Kestrel", "Shale")])], "v1", summarizer)
    merge_extractions(store, [ChunkExtraction(c1, [E("Kestrel"), E("Heron")])], "v2", summarizer)
    assert sorted(e.key for e in store.graph.entities()) == ["heron", "kestrel"]  # shale is gone with its mention
    assert store.graph.relations() == []
    assert store.graph.counts()["entity_mentions"] == 2


def test_merge_skips_chunks_deleted_during_extraction(
    store: Store, add_doc: ChunkFactory, summarizer: ExtractiveSummarizer
) -> None:
    (c1,) = add_doc("d1", ["a"])
    store.documents.delete("d1")
    stats = merge_extractions(store, [ChunkExtraction(c1, [E("Kestrel")])], "t", summarizer)
    assert stats.chunks == 0 and store.graph.counts()["entities"] == 0


def test_extractive_summary_prefers_central_sentences_and_is_deterministic() -> None:
    summarizer = ExtractiveSummarizer(max_tokens=25)
    descriptions = [
        "Kestrel is the stream-processing platform.",
        "Kestrel ingests sensor telemetry from Osprey.",
        "The weather was nice.",
        "Kestrel ingests telemetry and runs the stream-processing platform.",
    ]
    first = summarizer.summarize("Kestrel", descriptions)
    assert first == summarizer.summarize("Kestrel", descriptions)
    assert "weather" not in first and summarizer.counter.count(first) <= 25
    tiny = ExtractiveSummarizer(max_tokens=5)
    assert tiny.summarize("x", ["one two three four five six seven eight nine"]).endswith("…")
    assert summarizer.summarize("x", []) == ""


def test_callable_summarizer_falls_back_but_not_on_budget() -> None:
    def broken(name: str, descriptions: Sequence[str]) -> str:
        raise RuntimeError("model down")

    fallback = CallableSummarizer(broken, max_tokens=30)
    assert fallback.summarize("Kestrel", ["Kestrel ingests data."]) == "Kestrel ingests data."
    assert fallback.failures == 1
    assert CallableSummarizer(lambda n, d: "Short summary.", max_tokens=30).summarize("K", ["x"]) == "Short summary."

    def over_budget(name: str, descriptions: Sequence[str]) -> str:
        raise BudgetExceededError("cap reached")

    with pytest.raises(BudgetExceededError):
        CallableSummarizer(over_budget).summarize("K", ["x"])
