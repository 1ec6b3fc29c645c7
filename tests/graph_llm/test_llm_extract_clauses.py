"""A sentence copied as an entity name is refused; real names, however long, are not."""

from __future__ import annotations

from typing import Any

import pytest

from kgrag.graph.extract.clauses import MAX_NAME_WORDS, clause_reason, refuse_clauses
from kgrag.graph.extract.parse import ParsedItems
from kgrag.graph.types import ExtractedEntity, ExtractedRelation

# Stored as entities by the 0.5B model (tests/fixtures/llm_replies): grounded, because the text holds them.
CLAUSES = [
    "I wish I could go right on to you",
    "You feel so troubled about you",
    "You will write to me, won’t you",
    "I had better take your time and visit at your leisure now",
    "Things will be more settled in a couple of weeks",
    "The ball is in his chest and probably lodged near his lungs",
    "Not everyone with FL needs treatment right away",
    "It may kill him, but I think not.... Observing Mars every other night",
    "Mr. Hall went home. Then the war began",
    "Will you come?",
]

NAMES = [
    "New York Central College",
    "Naval Observatory",
    "Horace Greeley",
    "Mr. Hall",
    "Mrs. Prof. Barker",
    "J. R. R. Tolkien",
    "Dr. Martin Luther King Jr.",
    "U.S. Army",
    "US Army",
    "Type 2 diabetes mellitus",
    "Type I diabetes",
    "World War I",
    "complex I deficiency",
    "Bacillus Calmette-Guérin",
    "non-small cell lung cancer",
    "adenocarcinoma, not otherwise specified",
    "The Lord of the Rings",
    "Our Lady of Lourdes",
    "My Fair Lady",
    "Me Too movement",
    "World Health Organization",
    "International Consensus Classification of Myeloid Neoplasms and Acute Leukemias",
    "IT department",
    "He Jiankui",
    "living will",
    "trash can",
    "Yahoo!",
    "Ph.D. program",
    "Grade 3A follicular lymphoma",
]


@pytest.mark.parametrize("name", CLAUSES)
def test_a_sentence_is_not_a_name(name: str) -> None:
    assert clause_reason(name) is not None


@pytest.mark.parametrize("name", NAMES)
def test_a_real_name_is_kept(name: str) -> None:
    assert clause_reason(name) is None


def test_the_reason_names_the_rule() -> None:
    assert clause_reason("You feel so troubled about you") == "a first- or second-person pronoun"
    assert clause_reason("Things will be more settled") == "a finite verb"
    assert clause_reason("It may kill him") == "a third-person pronoun"
    assert clause_reason("It may kill the king") == "a subject and its verb"
    assert clause_reason("Mr. Hall went home. Then the war began") == "a sentence break"
    assert clause_reason(" ".join(["Word"] * (MAX_NAME_WORDS + 1))) == f"more than {MAX_NAME_WORDS} words"


def test_refused_entities_take_their_relations_with_them() -> None:
    clause = "I wish I could go right on to you"
    items = ParsedItems(
        [ExtractedEntity(clause, "concept", ""), ExtractedEntity("Jasper", "person", "A step-brother.")],
        [
            ExtractedRelation(clause, "Jasper", "do well", "The person who is doing well"),
            ExtractedRelation("Jasper", "You feel so troubled about you", "feels", ""),  # an end no entity lists
            ExtractedRelation("Jasper", "Constant", "brother of", "Jasper and Constant were step-brothers."),
        ],
        dropped=1,
    )
    kept, entities, relations = refuse_clauses(items)
    assert [e.name for e in kept.entities] == ["Jasper"] and entities == 1
    assert [r.target for r in kept.relations] == ["Constant"] and relations == 2
    assert kept.dropped == 1


LETTER = (
    "Jasper Woodward wrote from Washington in March. I wish I could go right on to you. "
    "Capt. Fox is doing well, and Jasper Woodward led his company at Bull Run."
)


def _with_a_clause() -> Any:
    """The extraction responder with one more entity (a sentence of the text, word for word) and a
    relation to it: what the 0.5B model did with a letter."""
    from kgrag.testing.extraction_responder import ExtractionResponder

    class Clause(ExtractionResponder):
        def _first_pass(self, text: str) -> dict[str, Any]:
            value = super()._first_pass(text)
            clause = "I wish I could go right on to you"
            if clause in text:
                value["entities"].append({"name": clause, "type": "concept", "description": "A wish."})
                value["relations"].append(
                    {"source": clause, "target": "Jasper Woodward", "label": "wishes", "description": "A wish."}
                )
            return value

    return Clause()


def test_the_extractor_drops_and_counts_clause_names_like_ungrounded_ones(kit: Any) -> None:
    import io

    from rich.console import Console

    from kgrag.cli.index_command import print_index_report
    from kgrag.core.stages import EXTRACT
    from kgrag.indexing.report import IndexReport
    from kgrag.indexing.stages.extract import ExtractReport, account_llm

    extractor, extractions = kit.run_extraction(kit.chunk_records(LETTER, "letter"), _with_a_clause())
    stored = {e.name for x in extractions for e in x.entities}
    assert "Jasper Woodward" in stored and not any("wish" in name for name in stored)
    assert not any("wish" in r.source for x in extractions for r in x.relations)
    assert (extractor.stats.clause_entities, extractor.stats.clause_relations) == (1, 1)
    report = IndexReport()
    report.stage(EXTRACT, ExtractReport).chunks_extracted = 1
    account_llm(report, extractor)
    assert report.to_dict()["stages"][EXTRACT]["clause_entities"] == 1
    sink = io.StringIO()
    print_index_report(Console(file=sink, width=400), report)
    assert "clauses as names dropped: 1 entities, 1 relations" in sink.getvalue()


def test_without_grounding_nothing_is_refused(kit: Any) -> None:
    """Grounding off is for text whose names are translated: the English word rules do not apply."""
    extractor, extractions = kit.run_extraction(kit.chunk_records(LETTER, "letter"), _with_a_clause(), grounding=False)
    assert extractor.stats.clause_entities == 0
    assert any("wish" in e.name for x in extractions for e in x.entities)
