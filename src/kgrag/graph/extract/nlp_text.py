"""Preparing chunk text for spaCy: markdown-aware sentence segments with the markup removed.

spaCy's parser was trained on prose. Fed raw markdown it glues a heading, a table and the next
paragraph into one "sentence", tags ``#`` and ``|`` as words and links everything in the table to
everything else. The regex splitter used for chunking already knows markdown structure (headings,
bullets, table rows), so chunks are cut with it first; each segment loses its markup (heading hashes,
bullet marks, emphasis, backticks; table pipes become semicolons so cells stay separate clauses) and is
parsed as its own small document. Relations never cross a segment, which is what a sentence is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgrag.documents import split_sentences

_LINE_MARKER = re.compile(r"^\s*(?:#{1,6}|[-*+•]|\d{1,3}[.)]|>)\s+")
_EMPHASIS = re.compile(r"\*\*|__|`+|~~")
_TABLE_RULE = re.compile(r"^[\s|:\-+=]*$")
_SPACE = re.compile(r"\s+")
_HAS_LETTER = re.compile(r"[^\W\d_]")


@dataclass(frozen=True)
class Segment:
    """One cleaned sentence; ``table`` marks a table row, whose cells are not a sentence to parse
    for verbs (a "Team lead" cell is not the verb "lead")."""

    text: str
    table: bool = False


def clean_segment(text: str) -> Segment | None:
    """One sentence without markdown markup (None for a table rule or a segment without letters)."""
    if _TABLE_RULE.match(text):
        return None
    text = _LINE_MARKER.sub("", text)
    text = _EMPHASIS.sub("", text)
    table = text.lstrip().startswith("|") and text.count("|") >= 2
    if table:
        text = "; ".join(cell.strip() for cell in text.strip().strip("|").split("|") if cell.strip())
    text = _SPACE.sub(" ", text).strip()
    return Segment(text, table) if _HAS_LETTER.search(text) else None


def segments(text: str) -> list[Segment]:
    """The cleaned, non-empty sentence segments of a chunk, in order."""
    cleaned = (clean_segment(text[start:end]) for start, end in split_sentences(text))
    return [segment for segment in cleaned if segment is not None]
