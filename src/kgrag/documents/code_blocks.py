"""Where fenced code blocks (Markdown ````` ``` ````` / ``~~~``) lie in a text, so chunking never cuts one.

Sentence splitting would cut code at every ``. `` and blank line, and a chunk boundary inside a block
leaves two halves that neither run nor read. The HTML loader writes ``<pre>`` blocks as such fences too,
so this covers Markdown files and web pages alike. A fence opens on a line of at least three backticks or
tildes (indented at most three spaces) and closes on a line of the same character, at least as long; an
opening fence that never closes is not a code block (a stray ````` ``` ````` in prose must not swallow
the rest of the document), nor is a line that underlines the line above it (a reStructuredText heading
such as ``Examples`` over ``~~~~~~~~``).
"""

from __future__ import annotations

import re

_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})([^\n]*)$", re.MULTILINE)
_BACKTICK_FENCE = re.compile(r"^ {0,3}`{3,}", re.MULTILINE)


def fenced(content: str, language: str = "") -> str:
    """``content`` written as a fenced code block with its info string ``language``: the fence is longer
    than any backtick fence line inside it, so the block closes where it should."""
    content = content if content.endswith("\n") else content + "\n"
    longest = max((len(m.group(0)) for m in _BACKTICK_FENCE.finditer(content)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{content}{fence}"


def code_block_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each closed fenced block, fences included, in order; one linear pass."""
    spans: list[tuple[int, int]] = []
    opening: re.Match[str] | None = None
    for match in _FENCE_LINE.finditer(text):
        fence, rest = match.group(1), match.group(2)
        if opening is None:
            if not (fence[0] == "`" and "`" in rest) and not _underlines(text, match):
                opening = match
        elif fence[0] == opening.group(1)[0] and len(fence) >= len(opening.group(1)) and not rest.strip():
            spans.append((opening.start(), match.end()))
            opening = None
    return spans


def _underlines(text: str, match: re.Match[str]) -> bool:
    """Whether the fence line is a heading underline (reStructuredText ``Title`` over ``~~~~~``): no info
    string, right after a non-blank line no longer than it."""
    if match.group(2).strip() or match.start() == 0:
        return False
    previous = text[text.rfind("\n", 0, match.start() - 1) + 1 : match.start() - 1].strip()
    return bool(previous) and len(match.group(1)) >= len(previous)
