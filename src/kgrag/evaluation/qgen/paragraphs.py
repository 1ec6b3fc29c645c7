"""A passage's units of text as question generation reads them: its lines, with soft-wrapped lines joined.

Books and plain-text or Markdown sources are often hard-wrapped at a fixed width, so one sentence spans
two or more lines. Read line by line, each piece would be parsed as a sentence of its own. A line
therefore continues the unit before it when neither is blank, a heading, a table row, a code fence or a
line inside one, indented code, a rule line (``---``, ``===``), a line opening with markup the generator
skips (``<``, ``!``), or a line that reads as code (opening with a comment marker ``//``, ``/*`` or ``;``,
or with a closing brace, or ending with a brace), as in a chunk cut from the middle of a code block; a
list item starts a unit of its own, and the lines that continue it (indented or
not) join it. Lines that are not joined stay units of their own, as they were. A definition list's term
(:mod:`kgrag.documents.term_lines`) is a unit of its own, not the start of its definition's.

A chunk can begin inside a fenced code block: when its first fence line is a bare closing fence and the
chunk's fences do not pair up, the lines before that fence are taken as code. A chunk cut from the middle of
a code block longer than a chunk holds no fence at all; :func:`prose_texts` finds the blocks on the whole
document's text and blanks them out of every chunk before its units are read. A unit keeps its first
line's leading whitespace, so the checks that look at indentation or a list marker still see them; joined
lines are separated by one space.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

from kgrag.documents.code_blocks import code_block_spans
from kgrag.documents.headings import covered_text
from kgrag.documents.term_lines import separate_terms
from kgrag.evaluation.qgen.located import Chunk

LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
ALONE = ("#", "|", "```", "~~~", "<", "!")
"""A line opening (after its indentation) with one of these stands alone: a heading, a table row, a code
fence, HTML, an image."""
_FENCE = ("```", "~~~")
_RULE = re.compile(r"^\s*(?:[-=*_~]\s*){3,}$")
_CODE_INDENT = ("    ", "\t")
_CODE_LINE = re.compile(r"^(?://|/\*|;|\})|[{}]$")


def _alone(line: str) -> bool:
    """Whether a stripped line can neither continue the unit before it nor be continued."""
    return line.startswith(ALONE) or line.endswith("|") or bool(_RULE.match(line) or _CODE_LINE.search(line))


def _starts_fenced(lines: list[str]) -> bool:
    """Whether a chunk begins inside a fenced code block (module docstring)."""
    fences = [line.strip() for line in lines if line.strip().startswith(_FENCE)]
    return len(fences) % 2 == 1 and fences[0] in _FENCE


def paragraphs(text: str) -> list[str]:
    """The units of ``text`` (module docstring), in order, blank lines left out."""
    lines = separate_terms(text).splitlines()
    units: list[str] = []
    open_unit = listed = False  # whether the last unit may take the next line; whether it is a list item
    fenced = _starts_fenced(lines)
    for raw in lines:
        line = raw.strip()
        fence = line.startswith(_FENCE)
        fenced ^= fence
        if not line or fenced or fence or _alone(line):
            if line:
                units.append(raw.rstrip())
            open_unit = listed = False
            continue
        item = bool(LIST_ITEM.match(raw))
        code = raw.startswith(_CODE_INDENT) and not item
        if open_unit and not item and (listed or not code):
            units[-1] += " " + line
            continue
        units.append(raw.rstrip())
        open_unit, listed = not code, item
    return units


def prose_texts(chunks: Iterable[Chunk]) -> dict[str, str]:
    """Each chunk's text (by chunk id) with the fenced code blocks of its document blanked out, fences
    included (every character but the line breaks a space), so that no line of code, however far from its
    fences, is read as prose. The blocks are found on the text the document's chunks cover
    (:func:`kgrag.documents.headings.covered_text`); a chunk outside every block is returned as it is."""
    by_doc: dict[str, list[Chunk]] = defaultdict(list)
    for chunk in chunks:
        by_doc[chunk.doc_id].append(chunk)
    texts: dict[str, str] = {}
    for parts in by_doc.values():
        first, whole = covered_text((c.start, c.text) for c in parts)
        spans = [(first + a, first + b) for a, b in code_block_spans(whole)]
        for chunk in parts:
            texts[chunk.chunk_id] = _blanked(chunk.text, chunk.start, spans)
    return texts


def _blanked(text: str, start: int, spans: list[tuple[int, int]]) -> str:
    """``text`` (starting at ``start`` of its document) with the parts inside ``spans`` blanked."""
    end, pieces, at = start + len(text), [], 0
    for a, b in spans:
        if b <= start or a >= end:
            continue
        lo, hi = max(a - start, 0), min(b - start, len(text))
        pieces += [text[at:lo], re.sub(r"[^\n]", " ", text[lo:hi])]
        at = hi
    return "".join(pieces) + text[at:] if pieces else text
