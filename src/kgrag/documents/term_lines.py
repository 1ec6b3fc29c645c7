"""A definition list's terms, told apart from the definition written on the line below them.

The loaders write a definition list's term on the line above its definition, in one block (HTML
``<dt>``/``<dd>``, reStructuredText definition and option lists, Markdown definition lists), so that a
chunk boundary never parts them. A reader that takes the block as one sentence, though, glues the term
to the definition's first words: a parser makes "ACID Atomicity" of "ACID" above "Atomicity,
Consistency, …", and a question built from "PGPORT" above "Default connection parameters." asks about
"PGPORT Default connection parameters". :func:`separate_terms` puts a blank line after each term, so
that such readers see the term and the definition as two units.

A term line is short (at most :data:`TERM_LINE_CHARS` characters and :data:`TERM_LINE_WORDS` words),
does not end the way a sentence or a clause does (``.``, ``,``, ``;``, ``:``, ``!``, ``?``, ``…``, a
dash), does not open the way a sentence does ("The", "A", "This", "If" …), and opens a block that goes
on below it (several terms in a row, as in "-q" above "--quiet", are all terms), unless the line below
reads as the rest of its sentence (it opens lower-case after a lower-case last word). Only the opening
lines of a block count: the short last line of a hard-wrapped paragraph ends the block, and a short line
in the middle of one follows a line that does not qualify, so wrapped prose is left as it is.
"""

from __future__ import annotations

import re

TERM_LINE_CHARS = 40
"""Longest line read as a term; a hard-wrapped paragraph's first line is longer."""
TERM_LINE_WORDS = 6
"""Most words a term line holds ("Aggregate function (routine)", "--week N, -w N"); a wrapped line has more."""
_CLAUSE_END = re.compile(r"[.,;:!?…\-–—]$")
_SENTENCE_OPENERS = frozenset(
    {"The", "A", "An", "This", "That", "These", "Those", "It", "In", "On", "For", "If", "When"}
)
"""First words of a sentence, which a term does not open with."""
_MARKUP_START = ("#", "|", "```", "~~~", "<", "!", ">", "- ", "* ", "+ ")


def is_term_line(line: str) -> bool:
    """Whether ``line`` reads as a definition list's term (module docstring), wherever it stands."""
    text = line.strip()
    words = text.split()
    if not 0 < len(text) <= TERM_LINE_CHARS or len(words) > TERM_LINE_WORDS or words[0] in _SENTENCE_OPENERS:
        return False
    return not _CLAUSE_END.search(text) and not text.startswith(_MARKUP_START)


def _runs_on(line: str, following: str) -> bool:
    """Whether ``following`` reads as the rest of ``line``'s sentence: it opens lower-case after a line
    ending in a lower-case word ("The lighthouse at Skarvik Point was" above "built of granite")."""
    words = line.split()
    last = words[-1] if words else ""
    head = following.lstrip()[:1]
    return last.isalpha() and last.islower() and head.isalpha() and head.islower()


def separate_terms(text: str) -> str:
    """``text`` with a blank line after every term line that opens a block and has text below it."""
    lines = text.split("\n")
    out: list[str] = []
    opening = True  # the lines so far in this block are all terms (or there are none yet)
    for i, line in enumerate(lines):
        out.append(line)
        if not line.strip():
            opening = True
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        opening = opening and is_term_line(line) and not _runs_on(line, following)
        if opening and following.strip():
            out.append("")
    return "\n".join(out)
