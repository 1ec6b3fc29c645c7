"""Broken model output: repaired without loss or re-asked; a reply that lost items (cut off, fields missing
or of the wrong kind) is never accepted as it is."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import ValidationError

from kgrag.graph.extract.glean import GleanPolicy
from kgrag.graph.extract.parse import ExtractionReply, parse_items
from kgrag.testing.extraction_responder import LOSSLESS, ExtractionResponder, malform

TYPES = ["person", "organization", "team", "concept"]
NO_GLEAN = GleanPolicy(enabled=False)


@pytest.fixture
def chunks(kit: Any) -> list[Any]:
    return kit.sample_chunks(limit=3)


@pytest.fixture
def clean(kit: Any, chunks: list[Any]) -> dict[str, Any]:
    _, extractions = kit.run_extraction(chunks, ExtractionResponder(), glean=NO_GLEAN)
    return kit.comparable(extractions)


@pytest.mark.parametrize("kind", LOSSLESS)
def test_repairable_replies_give_the_clean_result_without_a_reask(
    kit: Any, chunks: list[Any], clean: dict[str, Any], kind: str
) -> None:
    responder = ExtractionResponder(malformation=kind)
    extractor, extractions = kit.run_extraction(chunks, responder, glean=NO_GLEAN)
    assert kit.comparable(extractions) == clean
    assert responder.malformed[kind] == extractor.stats.units
    assert "extract-reask" not in responder.calls
    assert extractor.stats.dropped_items == 0


@pytest.mark.parametrize("kind", ["wrong_schema", "garbage"])
def test_unusable_replies_are_reasked_once_and_then_match(
    kit: Any, chunks: list[Any], clean: dict[str, Any], kind: str
) -> None:
    responder = ExtractionResponder(malformation=kind)
    extractor, extractions = kit.run_extraction(chunks, responder, glean=NO_GLEAN)
    assert kit.comparable(extractions) == clean
    assert responder.calls["extract-reask"] == extractor.stats.units
    assert extractor.stats.failed_units == 0


def _subset_of_clean(result: dict[str, Any], clean: dict[str, Any]) -> tuple[int, int]:
    kept = total = 0
    assert result.keys() == clean.keys()
    for chunk_id, (entities, relations, error) in result.items():
        assert error is None
        assert entities <= clean[chunk_id][0]
        assert relations <= clean[chunk_id][1]
        kept += len(entities) + len(relations)
        total += len(clean[chunk_id][0]) + len(clean[chunk_id][1])
    return kept, total


@pytest.mark.parametrize("kind", ["truncated", "missing_fields", "invalid_fields"])
def test_lossy_replies_are_reasked_and_then_match(
    kit: Any, chunks: list[Any], clean: dict[str, Any], kind: str
) -> None:
    """Closing a cut reply's brackets or dropping its bad items would lose data silently (#8)."""
    responder = ExtractionResponder(malformation=kind)
    extractor, extractions = kit.run_extraction(chunks, responder, glean=NO_GLEAN)
    assert kit.comparable(extractions) == clean
    assert responder.calls["extract-reask"] == extractor.stats.units
    assert extractor.stats.dropped_items == 0 and extractor.stats.failed_units == 0


def test_a_unit_that_stays_lossy_fails_and_is_counted(kit: Any, chunks: list[Any]) -> None:
    responder = ExtractionResponder(malformation="missing_fields", clean_reasks=False)
    extractor, extractions = kit.run_extraction(chunks, responder, glean=NO_GLEAN)
    assert extractor.stats.failed_units == extractor.stats.units > 0
    assert all(x.error and "item schema" in x.error for x in extractions)


def test_the_envelope_names_the_items_that_lost_fields() -> None:
    with pytest.raises(ValidationError, match=r"entities\[1\]: name: Field required"):
        ExtractionReply.model_validate({"entities": [{"name": "A"}, {"type": "team"}]})


def test_parse_items_validates_each_item_on_its_own() -> None:
    reply = ExtractionReply.model_construct(
        **{
            "entities": [
                {"name": "**Rui Carvalho**", "type": "Person", "description": "Leads  Platform."},
                {"name": "Kestrel", "type": "stream processor"},
                {"name": "", "type": "team"},
                {"type": "team"},
                {"name": 7},
                {"name": "x" * 200},
                {"name": "Shale", "description": ["not", "a", "string"]},
                "just a string",
                {"name": "rui carvalho", "type": "person", "description": "duplicate"},
                {"name": "Tern", "type": None, "description": None},
            ],
            "relations": [
                {
                    "source": "Rui Carvalho",
                    "target": "Kestrel",
                    "label": "leads",
                    "strength": "7",
                    "keywords": "roadmap, ownership",
                },
                {"source": "Kestrel", "target": "Shale", "strength": 15},
                {"source": "Kestrel", "target": "Shale", "strength": "high"},
                {"source": "Kestrel", "target": "kestrel"},
                {"source": "Kestrel"},
                {"source": "Tern", "target": "Kestrel", "keywords": ["bus"], "strength": 0},
                {"source": "Tern", "target": "Shale", "label": None, "keywords": None, "strength": None},
            ],
        }
    )
    items = parse_items(reply, TYPES)
    assert [(e.name, e.type, e.description) for e in items.entities] == [
        ("Rui Carvalho", "person", "Leads Platform."),
        ("Kestrel", "concept", ""),
        ("Tern", "concept", ""),
    ]
    assert [(r.source, r.target, r.label, r.keywords, r.weight) for r in items.relations] == [
        ("Rui Carvalho", "Kestrel", "leads", ("roadmap", "ownership"), 0.7),
        ("Kestrel", "Shale", "related to", (), 1.0),
        ("Tern", "Kestrel", "bus", ("bus",), 0.1),
        ("Tern", "Shale", "related to", (), 0.5),
    ]
    assert items.dropped == 6 + 3  # duplicates are merged, not counted as dropped; nulls take defaults


@pytest.mark.parametrize(
    "value", [{"nodes": []}, [], "text", {"entities": "none"}, {"entities": [], "links": [{"source": "a"}]}]
)
def test_the_envelope_rejects_the_wrong_shape_so_the_layer_reasks(value: Any) -> None:
    with pytest.raises(ValidationError):
        ExtractionReply.model_validate(value)


def test_the_envelope_accepts_partial_and_null_lists() -> None:
    relation = {"source": "a", "target": "b"}
    assert ExtractionReply.model_validate({"entities": None, "relations": [relation]}).entities == []
    assert ExtractionReply.model_validate({"relations": []}).entities == []


def test_relationships_are_read_as_relations() -> None:
    relation = {"source": "a", "target": "b"}
    reply = ExtractionReply.model_validate({"entities": [], "relationships": [relation]})
    assert reply.relations == [relation]
    assert ExtractionReply.model_validate({"entities": [], "relations": [], "notes": [{"x": 1}]}).relations == []
    assert ExtractionReply.model_validate({"entities": [], "keywords": ["a", "b"]}).relations == []


def test_every_malformation_is_really_broken() -> None:
    value = {
        "entities": [{"name": "A", "type": "t", "description": "it's"}],
        "relations": [
            {"source": "A", "target": "B", "label": "x", "description": "d", "keywords": ["k"], "strength": 5}
        ],
    }
    for kind in LOSSLESS:
        with pytest.raises(ValueError):
            json.loads(malform(value, kind))
    with pytest.raises(ValueError):
        malform(value, "no-such-kind")
