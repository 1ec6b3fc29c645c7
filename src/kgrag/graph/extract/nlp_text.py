"""Preparing chunk text for spaCy: markdown-aware sentence segments with the markup removed.

spaCy's parser was trained on prose. Fed raw markdown it glues a heading, a table and the next
paragraph into one "sentence", tags ``#`` and ``|`` as words and links everything in the table to
everything else. The regex splitter used for chunking already knows markdown structure (headings,
bullets, table rows), so chunks are cut with it first; each segment loses its markup (heading hashes,
bullet marks, emphasis, backticks; table pipes become semicolons so cells stay separate clauses) and is
parsed as its own small document. Relations never cross a segment, which is what a sentence is. A
definition list's term, which the loaders write on the line above its definition, is a segment of its own,
so that "ACID" above "Atomicity, Consistency, …" does not become the entity "ACID Atomicity".

Code is not prose: fenced code blocks (also one cut open by a chunk boundary) and interactive-session
lines (``>>>``, ``...``) are left out before splitting, so that a parser trained on prose does not turn
``parser.add_argument('--sum'`` into an entity. The chunk keeps them; only the extractor skips them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kgrag.documents import split_sentences
from kgrag.documents.term_lines import separate_terms

_LINE_MARKER = re.compile(r"^\s*(?:#{1,6}|[-*+•]|\d{1,3}[.)]|>)\s+")
_EMPHASIS = re.compile(r"\*\*|__|`+|~~")
_TABLE_RULE = re.compile(r"^[\s|:\-+=]*$")
_SPACE = re.compile(r"\s+")
_HAS_LETTER = re.compile(r"[^\W\d_]")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SESSION_LINE = re.compile(r"^\s*(?:>>>|\.\.\.)(?:\s|$)")
_CELL_BREAK = " | "


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
    table = (text.lstrip().startswith("|") and text.count("|") >= 2) or _CELL_BREAK in text
    if table:
        text = "; ".join(cell.strip() for cell in text.strip().strip("|").split("|") if cell.strip())
    text = _SPACE.sub(" ", text).strip()
    return Segment(text, table) if _HAS_LETTER.search(text) else None


def prose(text: str) -> str:
    """The chunk without its code: fenced blocks and interactive-session lines become blank lines (so
    the paragraphs around them stay apart). A chunk may start inside a block cut by the chunk boundary:
    the lines before its first fence are that block's tail when they look like code (a session line,
    or every line indented four spaces or a tab); a last fence without its pair opens a block that runs
    to the end of the chunk."""
    lines = text.split("\n")
    fences = [i for i, line in enumerate(lines) if _FENCE.match(line)]
    inside = bool(fences) and _code_tail(lines[: fences[0]])
    for i, line in enumerate(lines):
        if _FENCE.match(line):
            inside = not inside
            lines[i] = ""
        elif inside or _SESSION_LINE.match(line):
            lines[i] = ""
    return "\n".join(lines)


def _code_tail(before: list[str]) -> bool:
    """Whether the lines before a chunk's first fence are the end of a code block."""
    filled = [line for line in before if line.strip()]
    if not filled:
        return False
    return any(_SESSION_LINE.match(line) for line in filled) or all(line.startswith(("    ", "\t")) for line in filled)


def segments(text: str) -> list[Segment]:
    """The cleaned, non-empty sentence segments of a chunk's prose, in order; a definition list's term is a
    segment of its own (:func:`kgrag.documents.term_lines.separate_terms`)."""
    text = separate_terms(prose(text))
    cleaned = (clean_segment(text[start:end]) for start, end in split_sentences(text))
    return [segment for segment in cleaned if segment is not None]
