"""Attribution: every item lands in the chunk(s) whose text supports it, through the full extractor too."""

from __future__ import annotations

from typing import Any

from kgrag.core.records import ChunkRecord
from kgrag.documents import TokenCounter
from kgrag.graph.extract.attribution import ChunkLocator, attribute, ground
from kgrag.graph.extract.parse import ParsedItems
from kgrag.graph.extract.units import build_units
from kgrag.graph.types import ExtractedEntity, ExtractedRelation
from kgrag.testing.extraction_responder import ExtractionResponder

COUNTER = TokenCounter.for_encoding("cl100k_base")


def _chunks(*texts: str) -> list[ChunkRecord]:
    out, offset = [], 0
    for i, text in enumerate(texts):
        out.append(ChunkRecord(f"d:{i}", "d", i, offset, offset + len(text), text, COUNTER.count(text), ""))
        offset += len(text) + 1
    return out


def _entity(name: str) -> ExtractedEntity:
    return ExtractedEntity(name, "concept", "")


def _relation(source: str, target: str) -> ExtractedRelation:
    return ExtractedRelation(source, target, "works with", "")


def test_locator_exact_then_words_then_fuzzy_else_nowhere() -> None:
    locator = ChunkLocator(
        [
            "Rui Carvalho leads the Platform team.",
            "Kestrel 4.2 shipped; KESTREL is fast.",
            "The team of Carvalho owns Shale.",
        ]
    )
    assert locator.locate("rui  carvalho") == (0,)  # case and spacing do not matter
    assert locator.locate("Kestrel") == (1,)
    assert locator.locate("Platform") == (0,)
    assert locator.locate("Plat") == ()  # a fragment of a word is not the word: ungrounded
    assert locator.locate("Mr. Rui Carvalho") == (0,)  # a title added: every longer word is in chunk 0
    assert locator.locate("Carvalho team") == (0, 2)  # both words in chunks 0 and 2
    assert locator.locate("Kestrels") == (1,)  # an inflection is a fuzzy match of the word
    assert locator.locate("Unknown Thing") == ()  # the text never names it
    assert locator.locate("Carvalho Rui Kestrel") == ()  # some words present is not enough


def test_a_fuzzy_match_spells_titles_and_initials_as_the_text_does() -> None:
    """The 0.5B model named "Mrs. Hall" in a text that names only "Mr. Hall" (her husband); a one-letter
    difference in a short word is another referent, while a longer word still tolerates an inflection."""
    locator = ChunkLocator(["Mr. Hall went to Washington.", "Velloran Tide bought boats."])
    assert locator.locate("Mrs. Hall") == ()
    assert locator.locate("Mr Hall") == (0,)
    assert locator.locate("Velloran Tides") == (1,)


def test_relations_go_where_both_ends_are_else_to_either() -> None:
    chunks = _chunks("Alice Smith met Bob Jones.", "Bob Jones founded Acme Corp.", "Acme Corp hired Carol.")
    unit = build_units(chunks, 1000, COUNTER)[0]
    items = ParsedItems(
        [_entity("Alice Smith"), _entity("Bob Jones"), _entity("Acme Corp")],
        [_relation("Alice Smith", "Bob Jones"), _relation("Alice Smith", "Acme Corp"), _relation("Carol", "Dave")],
    )
    attributed = attribute(unit, items)
    per_chunk = {x.chunk_id: x for x in attributed.extractions}
    assert [e.name for e in per_chunk["d:0"].entities] == ["Alice Smith", "Bob Jones"]
    assert [e.name for e in per_chunk["d:1"].entities] == ["Bob Jones", "Acme Corp"]
    assert [e.name for e in per_chunk["d:2"].entities] == ["Acme Corp"]
    assert [(r.source, r.target) for r in per_chunk["d:0"].relations] == [
        ("Alice Smith", "Bob Jones"),
        ("Alice Smith", "Acme Corp"),
    ]
    # Alice (chunk 0) and Acme (chunks 1, 2) never meet: the relation spans the boundary, goes to all three.
    assert ("Alice Smith", "Acme Corp") in [(r.source, r.target) for r in per_chunk["d:2"].relations]
    # Carol is in chunk 2, Dave nowhere: the relation is ungrounded, dropped and counted, never attributed.
    assert not [x.chunk_id for x in per_chunk.values() if any(r.target == "Dave" for r in x.relations)]
    assert (attributed.ungrounded_entities, attributed.ungrounded_relations) == (0, 1)


def test_an_invented_entity_is_dropped_and_counted_not_spread_over_the_unit() -> None:
    chunks = _chunks("Alice Smith met Bob Jones.", "Bob Jones founded Acme Corp.")
    unit = build_units(chunks, 1000, COUNTER)[0]
    items = ParsedItems(
        [_entity("Alice Smith"), _entity("Velloran Tide"), _entity("Acme Corp")],
        [_relation("Velloran Tide", "Acme Corp"), _relation("Bob Jones", "Acme Corp")],
    )
    attributed = attribute(unit, items)
    stored = {e.name for x in attributed.extractions for e in x.entities}
    assert stored == {"Alice Smith", "Acme Corp"}
    assert (attributed.ungrounded_entities, attributed.ungrounded_relations) == (1, 1)
    kept, entities, relations = ground(unit, items)
    assert [e.name for e in kept.entities] == ["Alice Smith", "Acme Corp"] and (entities, relations) == (1, 1)
    # with grounding off (names a model must transliterate) the item is kept for every chunk of the unit
    loose = attribute(unit, items, grounding=False)
    assert all("Velloran Tide" in {e.name for e in x.entities} for x in loose.extractions)


def test_every_chunk_lists_its_own_items_on_the_sample_corpus(kit: Any) -> None:
    chunks = kit.sample_chunks(limit=6)
    _, extractions = kit.run_extraction(chunks, ExtractionResponder())
    assert [x.chunk_id for x in extractions] == [c.id for c in chunks]
    by_id = {c.id: c for c in chunks}
    for extraction in extractions:
        text = " ".join(by_id[extraction.chunk_id].text.split()).casefold()
        assert extraction.error is None
        assert extraction.entities, extraction.chunk_id
        for entity in extraction.entities:
            assert entity.name.casefold() in text  # the responder copies names, so matches are exact
        for relation in extraction.relations:
            assert relation.source.casefold() in text or relation.target.casefold() in text


def test_an_entity_in_the_overlap_belongs_to_both_chunks(kit: Any) -> None:
    text = "Rui Carvalho leads Platform. " * 3 + "Aisha Okafor wrote Shale. " * 6 + "Tiago Nunes runs Tern. " * 6
    chunks = kit.chunk_records(text, "overlap", size=40, overlap=12)
    _, extractions = kit.run_extraction(chunks, ExtractionResponder())
    holders = [x.chunk_id for x in extractions if any(e.name == "Aisha Okafor" for e in x.entities)]
    texts = {c.id: c.text for c in chunks}
    assert holders == [cid for cid, t in texts.items() if "Aisha Okafor" in t]
    assert len(holders) >= 2


class _Inventing(ExtractionResponder):
    """The realistic responder, plus one entity its text never names."""

    def reply(self, messages: Any) -> str:
        import json

        text = super().reply(messages)
        try:
            data = json.loads(text)
        except ValueError:
            return text
        if isinstance(data, dict) and "entities" in data:
            data["entities"].append({"name": "Zephyrine Quorum", "type": "organization", "description": "x"})
        return json.dumps(data)


def test_the_extractor_settings_for_grounding_reach_attribution(kit: Any) -> None:
    chunks = kit.sample_chunks(limit=3)
    strict, grounded = kit.run_extraction(chunks, _Inventing())
    assert strict.stats.ungrounded_entities > 0
    assert not any(e.name == "Zephyrine Quorum" for x in grounded for e in x.entities)
    loose, kept = kit.run_extraction(chunks, _Inventing(), grounding=False)
    assert loose.stats.ungrounded_entities == 0
    assert any(e.name == "Zephyrine Quorum" for x in kept for e in x.entities)  # kept, as the setting says
