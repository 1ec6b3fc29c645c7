"""Soft-wrapped lines are read as one paragraph: a sentence hard-wrapped over several lines gives the same
question as the same sentence on one line, while headings, list items, table rows and code keep their own
lines. The end-to-end test parses with the real spaCy pipeline."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from kgrag.config import KgragConfig
from kgrag.evaluation.qgen.cloze import Passage, prose_lines
from kgrag.evaluation.qgen.known_item import known_item_questions
from kgrag.evaluation.qgen.paragraphs import paragraphs
from kgrag.evaluation.qgen.quality import prose_share
from kgrag.graph.extract.nlp import SpacyExtractor
from kgrag.graph.extract.settings import nlp_settings

_LIGHTHOUSE = (
    "The lighthouse at Skarvik Point was built of granite quarried near Tromsø. Its keeper, Ingrid Solheim, "
    "logged the passing of the steamer Nordstjernen every Thursday for thirty years. In the winter of 1911 "
    "the Skarvik lamp was converted from paraffin to acetylene by engineers from Bergen."
)
_OTHERS = [
    "The ferry from Bergen to Skarvik Point carries post, timber and passengers twice a week in summer.",
    "Fishermen in the fjord land cod and herring, which are salted and dried on racks along the shore.",
    "A small school by the harbour teaches the children of the keepers and the fishing families.",
    "The steamer Nordstjernen was later sold to a shipping company in Trondheim and renamed.",
]


def test_a_wrapped_paragraph_is_one_unit() -> None:
    wrapped = textwrap.fill(_LIGHTHOUSE, 40)
    assert wrapped.count("\n") >= 5
    assert paragraphs(wrapped) == [_LIGHTHOUSE]
    assert list(prose_lines(wrapped)) == list(prose_lines(_LIGHTHOUSE))
    assert prose_share(wrapped) == prose_share(_LIGHTHOUSE) == 1.0


def test_headings_list_items_tables_and_code_are_not_joined_to_the_next_line() -> None:
    text = (
        "# Skarvik Point\n"
        "The keeper logged each ship\n"
        "that passed the point.\n"
        "- a list item that wraps\n"
        "  onto a second line\n"
        "- the next item\n"
        "| a | b |\n"
        "| 1 | 2 |\n"
        "```\n"
        "lamp = acetylene\n"
        "keeper = solheim\n"
        "```\n"
        "    indented code\n"
        "    more code\n"
        "Closing words\n"
        "---\n"
        "After the rule."
    )
    assert paragraphs(text) == [
        "# Skarvik Point",
        "The keeper logged each ship that passed the point.",
        "- a list item that wraps onto a second line",
        "- the next item",
        "| a | b |",
        "| 1 | 2 |",
        "```",
        "lamp = acetylene",
        "keeper = solheim",
        "```",
        "    indented code",
        "    more code",
        "Closing words",
        "---",
        "After the rule.",
    ]


def test_a_chunk_that_begins_inside_a_code_block_keeps_the_code_lines_apart() -> None:
    text = "  // the lamp's fuel\n  fuel = acetylene\n```\n\nThe keeper lit the lamp\nat dusk."
    assert paragraphs(text) == ["  // the lamp's fuel", "  fuel = acetylene", "```", "The keeper lit the lamp at dusk."]


@pytest.fixture(scope="module")
def nlp() -> Any:
    own = nlp_settings(KgragConfig())
    return SpacyExtractor(own.spacy_model, allow_torch=own.spacy_torch).nlp


def _questions(nlp: Any, first: str) -> list[tuple[str, str, tuple[str, ...]]]:
    passages = [Passage("c0", "d0", first)] + [Passage(f"c{i}", f"d{i}", t) for i, t in enumerate(_OTHERS, 1)]
    result = known_item_questions(passages, nlp, ("known-item",), 10, seed=0, min_quality=0.0)
    return sorted((q.question, q.answer, tuple(q.evidence)) for q in result.items)


def test_a_wrapped_paragraph_gives_the_same_questions_as_the_unwrapped_one(nlp: Any) -> None:
    unwrapped = _questions(nlp, _LIGHTHOUSE)
    assert unwrapped  # the paragraph yields questions at all
    for width in (38, 60):
        assert _questions(nlp, textwrap.fill(_LIGHTHOUSE, width)) == unwrapped


def _code_page() -> str:
    """A page of prose around a JSON example longer than a chunk, with sentences inside one of its strings."""
    pad = ",\n".join(f'  "setting_{i}": {i}' for i in range(30))
    hint = f'  "hint": "Read this first. {_LIGHTHOUSE} End of hint."'
    example = f"{{\n{pad},\n{hint},\n{pad.replace('setting', 'option')}\n}}"
    return f"{' '.join(_OTHERS[:2])}\n\n```json\n{example}\n```\n\n{' '.join(_OTHERS[2:])}\n"


def test_no_line_of_a_code_block_is_read_as_prose_even_in_a_chunk_holding_no_fence(nlp: Any) -> None:
    from kgrag.documents.chunking import chunk_text
    from kgrag.documents.tokens import TokenCounter
    from kgrag.evaluation.qgen.paragraphs import prose_texts

    page = _code_page()
    chunks = chunk_text(page, TokenCounter.for_encoding(), 60, 8)
    passages = [Passage(f"d0#{c.ord:05d}", "d0", c.text, c.char_start) for c in chunks]
    inside = [p for p in passages if "```" not in p.text and "Tromsø" in p.text]
    assert inside  # a chunk cut from the middle of the block: no fence to tell it by
    assert any("Tromsø" in line for p in inside for line in prose_lines(p.text))  # read alone: prose
    texts = prose_texts(passages)
    lines = [line for p in passages for line in prose_lines(texts[p.chunk_id])]
    in_code = ("Tromsø", "Solheim", "acetylene", "setting_")  # words only the JSON example holds
    assert not any(word in line for line in lines for word in in_code)
    assert any("ferry from Bergen" in line for line in lines) and any("small school" in line for line in lines)
    result = known_item_questions(passages, nlp, ("known-item",), 10, seed=0, min_quality=0.0)
    assert result.items and not any(word in " ".join(q.evidence) for q in result.items for word in in_code)
