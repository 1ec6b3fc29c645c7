"""The Markdown heading lines of a document's text, found outside fenced code.

The loaders write every format's headings as Markdown heading lines (``#`` to ``######``), and code
blocks as fenced blocks, where a shell or Python comment (``# install the tool``) looks like a heading.
A heading is therefore a line of up to three spaces' indentation, one to six ``#`` and a space, outside
a fence; an optional closing run of ``#`` after a space is not part of its text ("C#" keeps its ``#``).

A chunk may start inside a code block or below the heading it belongs to, so headings are found on the
document's text, rebuilt from its chunks (:func:`covered_text`: they cover it exactly, overlapping).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(\S.*?)(?:[ \t]+#+)?[ \t]*$")
_FENCE = re.compile(r"^ {0,3}(?:```|~~~)")


@dataclass(frozen=True)
class HeadingLine:
    """One heading line: where its line starts, its level (1 for ``#``) and its text."""

    offset: int
    level: int
    text: str


def heading_lines(text: str, start: int = 0) -> list[HeadingLine]:
    """Every heading line of ``text`` outside fenced code, in order; offsets count from ``start``."""
    found: list[HeadingLine] = []
    fenced, offset = False, start
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced and (match := _HEADING.match(line.rstrip("\r\n"))):
            found.append(HeadingLine(offset, len(match.group(1)), match.group(2)))
        offset += len(line)
    return found


def covered_text(parts: Iterable[tuple[int, str]]) -> tuple[int, str]:
    """The text that chunks given as (start offset in their document, text) cover, overlapping, and the
    offset it starts at (the first chunk's), so ``start + i`` in the text is the document's offset. A gap
    between chunks (the blank lines a chunk neither starts nor ends with) is line breaks, so the lines
    around it stay apart."""
    ordered = sorted(parts)
    if not ordered:
        return 0, ""
    first = covered = ordered[0][0]
    pieces: list[str] = []
    for start, text in ordered:
        if start > covered:
            pieces.append("\n" * (start - covered))
        pieces.append(text[max(0, covered - start) :])
        covered = max(covered, start + len(text))
    return first, "".join(pieces)
