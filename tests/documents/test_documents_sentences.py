"""Regex sentence splitting: abbreviations, decimals and markdown structure."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kgrag.documents.sentences import split_sentences


def _sentences(text: str) -> list[str]:
    return [text[start:end] for start, end in split_sentences(text)]


def test_basic_punctuation() -> None:
    assert _sentences("One. Two! Three? Four") == ["One.", "Two!", "Three?", "Four"]


def test_abbreviations_and_initials_do_not_end_sentences() -> None:
    text = "Dr. Smith met Prof. Jones, e.g. at noon. J. R. R. Tolkien wrote it i.e. later. See Fig. 3 here."
    assert _sentences(text) == [
        "Dr. Smith met Prof. Jones, e.g. at noon.",
        "J. R. R. Tolkien wrote it i.e. later.",
        "See Fig. 3 here.",
    ]


def test_decimals_and_lowercase_continuations() -> None:
    assert _sentences("The dose is 4.2 mg. Take approx. three doses. Then stop.") == [
        "The dose is 4.2 mg.",
        "Take approx. three doses.",
        "Then stop.",
    ]


def test_quotes_and_brackets_stay_with_their_sentence() -> None:
    assert _sentences('He said "Stop." Then (quietly.) She left...  OK?') == [
        'He said "Stop."',
        "Then (quietly.)",
        "She left...",
        "OK?",
    ]


def test_markdown_structure_separates_sentences() -> None:
    text = (
        "# Heading without period\nBody text runs\non two lines\n\n- first bullet\n- second bullet\n"
        "1. numbered item\n2. next item\n> a quote\n\nlast paragraph"
    )
    assert _sentences(text) == [
        "# Heading without period",
        "Body text runs\non two lines",
        "- first bullet",
        "- second bullet",
        "1. numbered item",
        "2. next item",
        "> a quote",
        "last paragraph",
    ]


def test_whitespace_only_and_empty() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\t\n ") == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab .!?\n#-1\t\"')e.g")), max_size=300) | st.text(max_size=200))
def test_spans_are_trimmed_ordered_and_cover_all_non_whitespace(text: str) -> None:
    spans = split_sentences(text)
    covered = set()
    previous_end = 0
    for start, end in spans:
        assert previous_end <= start < end <= len(text)
        assert text[start:end] == text[start:end].strip()
        assert text[previous_end:start].strip() == ""
        covered.update(range(start, end))
        previous_end = end
    assert text[previous_end:].strip() == ""
    assert all(i in covered for i, char in enumerate(text) if not char.isspace())


def test_one_megabyte_splits_as_its_paragraphs_do() -> None:
    """A megabyte splits into exactly the sentences of its repeated paragraph, shifted (speed is measured
    by bench/bench_sentences.py, not asserted here: a loaded machine must not fail a correct splitter)."""
    paragraph = (
        "Basal cell carcinoma (BCC) is common, e.g. on the face. About 3.6 million cases occur. "
        'Dr. Lee said: "Use sunscreen!" Is it curable? Yes.\n\n'
        "## Treatment\n- surgery\n- radiation\n\n"
    )
    repeats = 1_000_000 // len(paragraph)
    one = split_sentences(paragraph)
    assert len(one) == 8
    spans = split_sentences(paragraph * repeats)
    assert spans == [
        (start + i * len(paragraph), end + i * len(paragraph)) for i in range(repeats) for start, end in one
    ]
