"""Descriptions that copy a worked example's wording with the text's own names must earn that wording."""

from __future__ import annotations

from typing import Any

from kgrag.graph.extract.example_shape import NAME, example_shapes, shape, shaped_like
from kgrag.graph.extract.parse import ParsedItems
from kgrag.graph.extract.support import check_support
from kgrag.graph.types import ExtractedEntity, ExtractedRelation
from kgrag.prompts import load_prompt

SHIPPED = example_shapes(tuple(load_prompt(name).example_reply for name in ("extract_graph", "glean_graph")))
# The sentence of the biography that names both (tests/fixtures/llm_replies/…-novel-4096-run2.jsonl).
RODMAN = (
    "In the summer of 1862, while his wife was visiting her people in Rodman, Mr. Hall went to Washington, "
    "passed an examination, and was appointed an Aid in the Naval Observatory. The Naval Observatory was "
    "much depleted."
)


def test_the_shapes_are_read_from_the_prompt_files() -> None:
    """The shipped example's "The port where Velloran Tide is based." is one shape; a prompt with another
    example brings its own shapes, so nothing about the shipped example is written in the code."""
    assert ("the", "port", "where", NAME, "is", "based") in SHIPPED
    assert (NAME, "is", "based", "in", NAME) in SHIPPED
    other = '{"entities": [{"name": "Mira Lund", "type": "person", "description": "A chemist who ran the Oslo lab."}]}'
    assert example_shapes((other,)) == (("a", "chemist", "who", "ran", "the", NAME, "lab"),)
    assert example_shapes(("not json",)) == () and example_shapes(("",)) == ()


def test_a_shape_masks_the_names_and_keeps_the_wording() -> None:
    described = shape("The port where Naval Observatory is located.", ["Rodman"])
    assert described.words == ("the", "port", "where", NAME, "is", "located")
    assert described.names == ("Naval Observatory",)
    assert shaped_like(described, SHIPPED)
    assert not shaped_like(shape("Mr. Hall's wife who visited her people in Rodman.", ["Mrs. Hall"]), SHIPPED)
    assert shape("A college in McGrawville, Cortland County.").names == ("McGrawville", "Cortland County")


def _rodman(description: str) -> ParsedItems:
    return ParsedItems([ExtractedEntity("Rodman", "location", description)], [])


def test_the_examples_wording_with_the_texts_names_is_replaced_by_the_sentence() -> None:
    """The 0.5B model's "Rodman: The port where Naval Observatory is located": both names are in one
    sentence and half its content words are names, so only the shape rule catches it."""
    copied = "The port where Naval Observatory is located."
    kept, _ = check_support(RODMAN, _rodman(copied))  # without the examples' shapes it passes
    assert kept.entities[0].description == copied
    kept, counts = check_support(RODMAN, _rodman(copied), SHIPPED)
    assert kept.entities[0].description.startswith("In the summer of 1862") and counts.descriptions_replaced == 1


def test_a_shaped_description_the_text_states_is_kept() -> None:
    text = "Rodman is the port where the Naval Observatory is located, on the lake shore."
    stated = "The port where Naval Observatory is located."
    kept, counts = check_support(text, _rodman(stated), SHIPPED)
    assert kept.entities[0].description == stated and counts.descriptions_replaced == 0


def test_a_shaped_relation_whose_ends_share_no_sentence_is_dropped() -> None:
    """Both relations copy "<name> is based in <name>". No sentence names the observatory and Washington
    together: words drawn from the sentences of either end keep it, the shape rule does not."""
    text = "The Naval Observatory was based in the capital. Mr. Hall was based in Washington for years."
    relations = [
        ExtractedRelation("Naval Observatory", "Washington", "based in", "Naval Observatory is based in Washington."),
        ExtractedRelation("Mr. Hall", "Washington", "based in", "Mr. Hall is based in Washington."),
    ]
    kept, counts = check_support(text, ParsedItems([], relations), SHIPPED)
    assert counts.unsupported_relations == 1
    assert [r.source for r in kept.relations] == ["Mr. Hall"]
    kept, counts = check_support(text, ParsedItems([], relations))
    assert counts.unsupported_relations == 0 and len(kept.relations) == 2


def _describing_rodman(description: str) -> Any:
    from kgrag.testing.extraction_responder import ExtractionResponder

    class Responder(ExtractionResponder):
        def _first_pass(self, text: str) -> dict[str, Any]:
            value = super()._first_pass(text)
            for entity in value["entities"]:
                if entity["name"] == "Rodman":
                    entity["description"] = description
            return value

    return Responder()


def test_the_extractor_checks_descriptions_against_the_examples_of_its_prompts(kit: Any) -> None:
    copied = "The port where Naval Observatory is located."
    chunks = kit.chunk_records(RODMAN, "hall")
    extractor, extractions = kit.run_extraction(chunks, _describing_rodman(copied))
    rodman = [e for x in extractions for e in x.entities if e.name == "Rodman"]
    assert rodman and rodman[0].description.startswith("In the summer of 1862")
    assert extractor.stats.descriptions_replaced >= 1
    client = kit.scripted_client(_describing_rodman(copied))
    client.use_examples(False)  # no example shown, none to copy: the description is judged by its words
    extractor = kit.make_extractor(client)
    rodman = [e for x in extractor.extract(chunks) for e in x.entities if e.name == "Rodman"]
    assert rodman[0].description == copied
