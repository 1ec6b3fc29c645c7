"""Running headers, footers and page numbers removed from a PDF's page texts.

Each page of a report or paper repeats its header ("Annual Report 2023 — Confidential") and footer
("Page 3 of 12"). Left in, they split sentences that run across pages and fill every chunk with the
same words. A line counts as running when, with its numbers masked, it is among the first or last
:data:`EDGE_LINES` lines of at least half of the pages (and of two pages at least); a page-number line
("7", "- 7 -", "Page 7 of 12", "vii") at a page's edge goes too. Body text is never touched.
"""

from __future__ import annotations

import re
from collections import Counter

EDGE_LINES = 3
"""How many lines at the top and bottom of a page may hold a running header or footer."""

_NUMBER = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_PAGE_NUMBER = re.compile(
    r"(?:(?:page|p\.|seite)\s*)?[-–—]?\s*(?:\d{1,4}|(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3}))\s*[-–—]?"
    r"(?:\s*(?:of|/)\s*\d{1,4})?",
    re.IGNORECASE,
)


def strip_running_lines(pages: list[str]) -> list[str]:
    """``pages`` with running headers, footers and edge page numbers removed (one string per page)."""
    split = [page.split("\n") for page in pages]
    if len(split) < 2:
        return pages
    edge_keys = [{index: _key(lines[index]) for index in _edge_indices(lines)} for lines in split]
    seen = Counter(key for keys in edge_keys for key in set(keys.values()) if key)
    needed = max(2, (len(split) + 1) // 2)
    running = {key for key, count in seen.items() if count >= needed}
    return ["\n".join(_clean(lines, keys, running)) for lines, keys in zip(split, edge_keys, strict=True)]


def _edge_indices(lines: list[str]) -> list[int]:
    """Indices of the first and last :data:`EDGE_LINES` non-blank lines (one index twice on a short page)."""
    content = [index for index, line in enumerate(lines) if line.strip()]
    return content[:EDGE_LINES] + content[-EDGE_LINES:]


def _key(line: str) -> str:
    """The line with numbers masked and spacing and case normalised, so "Page 3" and "Page 4" match."""
    return _NUMBER.sub("#", _SPACES.sub(" ", line).strip().lower())


def _clean(lines: list[str], edge_keys: dict[int, str], running: set[str]) -> list[str]:
    """``lines`` minus running lines and page numbers among the edge lines (``edge_keys``: index to key)."""
    return [
        line
        for index, line in enumerate(lines)
        if index not in edge_keys or (edge_keys[index] not in running and not _PAGE_NUMBER.fullmatch(line.strip()))
    ]
