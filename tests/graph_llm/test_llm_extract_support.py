"""Descriptions checked against the text: unsupported relations dropped, entity descriptions filled."""

from __future__ import annotations

from typing import Any

from kgrag.graph.extract.parse import ParsedItems
from kgrag.graph.extract.support import check_support, content_words
from kgrag.graph.types import ExtractedEntity, ExtractedRelation

TEXT = (
    "Velloran Tide, a ferry line based in Port Quassel, bought two electric boats from Ostrimar Yards. "
    "Captain Ilse Varnow said the boats halve fuel costs."
)


def _relation(source: str, target: str, description: str) -> ExtractedRelation:
    return ExtractedRelation(source, target, "linked", description)


def test_a_relation_the_text_does_not_state_is_dropped_and_counted() -> None:
    items = ParsedItems(
        [],
        [
            _relation("Velloran Tide", "Ostrimar Yards", "Velloran Tide bought electric boats from Ostrimar Yards."),
            _relation("Velloran Tide", "Ostrimar Yards", "Ostrimar Yards acquired Velloran Tide in a takeover."),
            _relation("Ilse Varnow", "Port Quassel", ""),
        ],
    )
    kept, counts = check_support(TEXT, items)
    assert kept.relations[0].description.startswith("Velloran Tide bought")
    assert counts.unsupported_relations == 1 and len(kept.relations) == 2
    filled = kept.relations[1].description  # no sentence holds both ends: the first holding either
    assert filled.startswith("Velloran Tide, a ferry line") and counts.descriptions_filled == 1


def test_a_relation_between_names_the_text_keeps_apart_has_no_evidence() -> None:
    """Ends named in one sentence, or in two neighbouring ones, have evidence; ends named only further
    apart do not, so the relation is dropped whatever words it borrows (a small model wrote "Metastatic
    cancer tends to develop slowly" from a sentence about esophageal cancers, three sentences on)."""
    text = (
        "Metastatic cancer has spread to other parts of the body. Most esophageal cancers start in cells "
        "that line the esophagus. Doctors grade each tumour. Esophageal cancers tend to develop slowly. "
        "Surgery removes the tumour."
    )
    items = ParsedItems(
        [],
        [
            _relation("Metastatic cancer", "esophageal cancers", "Metastatic cancer tends to develop slowly."),
            _relation("Metastatic cancer", "esophageal cancers", ""),
            _relation("Doctors", "Surgery", ""),
            _relation("esophageal cancers", "Surgery", "Surgery removes esophageal cancers that develop slowly."),
        ],
    )
    kept, counts = check_support(text, items)
    assert [(r.source, r.target) for r in kept.relations] == [
        ("Metastatic cancer", "esophageal cancers"),  # sentences 1 and 2 are neighbours
        ("esophageal cancers", "Surgery"),  # sentences 4 and 5
    ]
    assert kept.relations[0].description.startswith("Metastatic cancer has spread")  # filled from the pair
    assert counts.unsupported_relations == 2  # the borrowed words, and Doctors/Surgery two sentences apart


def test_empty_or_invented_entity_descriptions_come_from_the_text() -> None:
    items = ParsedItems(
        [
            ExtractedEntity("Ilse Varnow", "person", ""),
            ExtractedEntity("Port Quassel", "location", "A volcanic island famous for its opera house."),
            ExtractedEntity("Ostrimar Yards", "organization", "The yard that sold electric boats."),
        ],
        [],
    )
    kept, counts = check_support(TEXT, items)
    descriptions = [e.description for e in kept.entities]
    assert descriptions[0] == "Captain Ilse Varnow said the boats halve fuel costs."
    assert descriptions[1].startswith("Velloran Tide, a ferry line based in Port Quassel")
    assert descriptions[2] == "The yard that sold electric boats."  # a paraphrase of the text is kept
    assert (counts.descriptions_filled, counts.descriptions_replaced) == (1, 1)
    assert len(kept.entities) == 3  # an entity is never dropped for its description


def test_a_description_naming_what_the_text_never_mentions_is_not_kept() -> None:
    """Words shared with the text do not save a description that names someone the text does not: the
    relation is dropped, the entity's description replaced by its sentence, or cleared without one."""
    text = "Mr. Hall went to Washington and was appointed an aid in the Naval Observatory."
    invented = "Captain Ilse Varnow, an aid appointed at the Naval Observatory in Washington."
    items = ParsedItems(
        [
            ExtractedEntity("Naval Observatory", "organization", invented),
            ExtractedEntity("Hall household", "organization", invented),
            ExtractedEntity("Washington", "location", "The city where Mr. Hall was appointed."),
        ],
        [_relation("Mr. Hall", "Naval Observatory", invented)],
    )
    kept, counts = check_support(text, items)
    assert [e.description for e in kept.entities] == [text, "", "The city where Mr. Hall was appointed."]
    assert counts.descriptions_replaced == 2 and not kept.relations and counts.unsupported_relations == 1


def test_a_copied_clause_given_another_subject_is_not_kept() -> None:
    """The 0.5B model's relation "Naval Observatory went to Washington, passed an examination …" copies a
    sentence whose subject is Mr. Hall: every word is the text's, the statement is not."""
    text = "In 1862 Mr. Hall went to Washington, passed an examination, and joined the Naval Observatory."
    swapped = "Naval Observatory went to Washington, passed an examination, and joined the Naval Observatory."
    true = "Mr. Hall went to Washington, passed an examination, and joined the Naval Observatory."
    items = ParsedItems(
        [],
        [_relation("Naval Observatory", "Washington", swapped), _relation("Mr. Hall", "Washington", true)],
    )
    kept, counts = check_support(text, items)
    assert [r.description for r in kept.relations] == [true] and counts.unsupported_relations == 1


def test_content_words_compare_inflections() -> None:
    assert content_words("the boats halved costs") == content_words("boat halve cost")


def _rewriting(items: str, description: str) -> Any:
    """The extraction responder with every first-pass item of ``items`` ("entities" or "relations") given
    ``description``: a model that invents relations, or one that leaves descriptions empty."""
    from kgrag.testing.extraction_responder import ExtractionResponder

    class Rewriting(ExtractionResponder):
        def _first_pass(self, text: str) -> dict[str, Any]:
            value = super()._first_pass(text)
            for item in value[items]:
                item["description"] = description
            return value

    return Rewriting()


def test_the_extractor_counts_unsupported_relations(kit: Any) -> None:

    inventing = _rewriting("relations", "They merged into one interplanetary shipping conglomerate yesterday.")
    extractor, extractions = kit.run_extraction(kit.sample_chunks(limit=2), inventing)
    assert extractor.stats.unsupported_relations > 0
    assert not any(x.relations for x in extractions)
    assert any(x.entities for x in extractions)


def test_types_a_small_model_writes_are_read_against_the_list() -> None:
    from kgrag.graph.extract.parse import normalise_type, render_types, typed_reply

    allowed = ["person", "organization", "location", "concept"]
    assert normalise_type("Person", allowed) == "person"
    assert normalise_type("- organization", allowed) == "organization"
    assert normalise_type("city", allowed) == "location" and normalise_type("company", allowed) == "organization"
    assert normalise_type("the person", allowed) == "person"
    copied = "one of person, organization, location, else concept"  # the prompt's wording, copied whole
    assert normalise_type(copied, allowed) == "concept"
    assert "\n" in render_types(allowed) and ", " not in render_types(allowed)
    schema = typed_reply(("person", "location")).model_json_schema()
    assert schema["properties"]["entities"]["items"]["properties"]["type"]["enum"] == ["person", "location", "concept"]


def test_descriptions_taken_from_the_text_are_counted_in_the_index_report(kit: Any) -> None:
    """Small models leave many descriptions empty: the run's report and index line say how many the text
    filled, as they say how many relations were unsupported."""
    import io

    from rich.console import Console

    from kgrag.cli.index_command import print_index_report
    from kgrag.core.stages import EXTRACT
    from kgrag.indexing.report import IndexReport
    from kgrag.indexing.stages.extract import ExtractReport, account_llm

    extractor, _ = kit.run_extraction(kit.sample_chunks(limit=2), _rewriting("entities", ""))
    report = IndexReport()
    report.stage(EXTRACT, ExtractReport).chunks_extracted = 2
    account_llm(report, extractor)
    own = report.stage(EXTRACT, ExtractReport)
    assert own.descriptions_filled == extractor.stats.descriptions_filled > 0
    assert report.to_dict()["stages"][EXTRACT]["descriptions_filled"] == own.descriptions_filled
    sink = io.StringIO()
    print_index_report(Console(file=sink, width=400), report)
    assert f"descriptions taken from the text: {own.descriptions_filled} empty" in sink.getvalue()


def test_a_description_is_never_taken_from_a_heading_line() -> None:
    """A 0.5B model's entities on a code-review guide got "# Navigating a CL in review" as description:
    the heading was the first line naming them."""
    text = "# Navigating a CL in review\n\nA CL that is hard to review should be split. Send comments early."
    items = ParsedItems(
        [ExtractedEntity("CL", "concept", ""), ExtractedEntity("Navigating a CL in review", "concept", "")], []
    )
    kept, counts = check_support(text, items)
    assert kept.entities[0].description == "A CL that is hard to review should be split."
    assert kept.entities[1].description == "" and counts.descriptions_filled == 1


def test_a_name_keeps_no_markdown_of_the_line_it_was_copied_with() -> None:
    from kgrag.graph.extract.parse import clean_name

    assert clean_name("## Emergencies") == "Emergencies"
    assert clean_name("> **Small CLs**") == "Small CLs"
    assert clean_name("- Code health") == "Code health"
    assert clean_name("# of users") == "# of users" and clean_name("1. FC Köln") == "1. FC Köln"
    assert (
        clean_name("C#") == "C#" and clean_name("#hashtag") == "#hashtag" and clean_name("2024 budget") == "2024 budget"
    )
