"""A passage's units of text as question generation reads them: its lines, with soft-wrapped lines joined.

Books and plain-text or Markdown sources are often hard-wrapped at a fixed width, so one sentence spans
two or more lines. Read line by line, each piece would be parsed as a sentence of its own. A line
therefore continues the unit before it when neither is blank, a heading, a table row, a code fence or a
line inside one, indented code, a rule line (``---``, ``===``), a line opening with markup the generator
skips (``<``, ``!``), or a line that reads as code (opening with a comment marker ``//``, ``/*`` or ``;``,
or with a closing brace, or ending with a brace), as in a chunk cut from the middle of a code block; a
list item starts a unit of its own, and the lines that continue it (indented or
not) join it. Lines that are not joined stay units of their own, as they were.

A chunk can begin inside a fenced code block: when its first fence line is a bare closing fence and the
chunk's fences do not pair up, the lines before that fence are taken as code. A unit keeps its first
line's leading whitespace, so the checks that look at indentation or a list marker still see them; joined
lines are separated by one space.
"""

from __future__ import annotations

import re

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
    lines = text.splitlines()
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
