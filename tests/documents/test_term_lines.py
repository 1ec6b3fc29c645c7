"""A definition list's term is told apart from the definition below it (loaders write them as one block),
while hard-wrapped prose, whatever its width, stays one unit for the extractor and question generation."""

from __future__ import annotations

import textwrap

import pytest

from kgrag.documents.term_lines import is_term_line, separate_terms
from kgrag.evaluation.qgen.paragraphs import paragraphs
from kgrag.graph.extract.nlp_text import segments

GLOSSARY = (
    "ACID\nAtomicity, Consistency, Isolation, and Durability.\n\n"
    "Aggregate function (routine)\nA function that combines multiple input values.\n\n"
    "PGDATABASE\nPGHOST\nPGPORT\nDefault connection parameters.\n\n"
    "-q\n--quiet\nPrint nothing."
)
PROSE = (
    "The lighthouse at Skarvik Point was built of granite quarried near Tromsø. Its keeper, Ingrid Solheim, "
    "logged the passing of the steamer Nordstjernen every Thursday for thirty years."
)


@pytest.mark.parametrize(
    ("line", "term"),
    [
        ("ACID", True),
        ("timeout : float", True),
        ("--week N, -w N", True),
        ("Aggregate function (routine)", True),
        ("Default connection parameters.", False),
        ("Example:", False),
        ("The lighthouse at Skarvik", False),
        ("## Environment", False),
        ("- a list item", False),
        ("a line of prose that has far too many words to be a term", False),
    ],
)
def test_term_lines(line: str, term: bool) -> None:
    assert is_term_line(line) is term


def test_each_term_is_a_unit_of_its_own() -> None:
    assert paragraphs(GLOSSARY) == [
        "ACID",
        "Atomicity, Consistency, Isolation, and Durability.",
        "Aggregate function (routine)",
        "A function that combines multiple input values.",
        "PGDATABASE",
        "PGHOST",
        "PGPORT",
        "Default connection parameters.",
        "-q",
        "--quiet",
        "Print nothing.",
    ]
    texts = [s.text for s in segments(GLOSSARY)]
    assert "ACID" in texts and not any(t.startswith(("ACID Atomicity", "PGPORT Default")) for t in texts)


@pytest.mark.parametrize("width", range(15, 80, 5))
def test_hard_wrapped_prose_is_left_as_it_is(width: int) -> None:
    wrapped = textwrap.fill(PROSE, width)
    assert separate_terms(wrapped) == wrapped
    assert paragraphs(wrapped) == [PROSE]


def test_a_short_last_line_or_a_lone_line_is_not_split_off() -> None:
    assert separate_terms("Chapter 2\n\nA paragraph that ends\nhere") == "Chapter 2\n\nA paragraph that ends\nhere"
    assert separate_terms("The patient was given five milligrams of\nwarfarin daily") == (
        "The patient was given five milligrams of\nwarfarin daily"
    )
