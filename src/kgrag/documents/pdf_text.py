"""A PDF's page texts as prose: running headers, footers, page numbers and dot-leader lines removed,
words hyphenated at a line's end joined again.

Each page of a report or paper repeats its header ("Annual Report 2023 — Confidential") and footer
("Page 3 of 12"). Left in, they split sentences that run across pages and fill every chunk with the
same words. A line counts as running when, with its numbers masked, it is among the first or last
:data:`EDGE_LINES` lines of at least half of the pages (and of two pages at least), or of two pages at
least when it opens or ends with a number: a book's header names the chapter and the page ("Chapter 5:
Arrays and matrices 22"), so it changes with every chapter. A page-number line ("7", "- 7 -", "Page 7 of
12", "vii") at a page's edge goes too. Body text is never touched.

A table of contents or a back-of-book index is navigation: its entries ("2.8 Citing R . . . . . . 12")
would crowd the passages that hold the text out of the top results, so a line ending in a dot leader and
a page number is left out (:func:`without_leaders`). Typeset text breaks words at a line's end with a
hyphen ("compo-" above "nents"); :func:`dehyphenate` joins them, keeping the hyphen when the document
writes the word with one elsewhere ("Unix-alikes"). A line opening with ``#`` in a PDF is a comment in
a code example, never a heading: :func:`code_comments_indented` indents it four spaces, so it is read as
code rather than as a Markdown heading the passages after it would fall under. The headings a PDF has
are its outline's (its bookmarks): :func:`outline_by_page` reads them, and :func:`mark_headings` makes the
line of the page that an entry points to and names ("2.1 Variations on read.table") a Markdown heading of
the entry's depth, so passages carry their section like those of every other format. A book numbers its
front matter apart ("i", "ii", then "1" where the first chapter starts); :func:`page_labels` reads the
labels the PDF gives its pages, so that a citation names the page as printed.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from typing import Any

EDGE_LINES = 3
"""How many lines at the top and bottom of a page may hold a running header or footer."""

_NUMBER = re.compile(r"\d+")
_NUMBERED = re.compile(r"^#\s|\s#$")  # a masked key opening or ending with a number (a page number)
_PAGE_REF = r"(?:\d{1,4}|[ivxlcdm]{1,7})"
_DOT_LEADER = re.compile(rf"(?:\.\s?){{5,}}\s*{_PAGE_REF}(?:\s*[,–-]\s*{_PAGE_REF})*\s*$", re.IGNORECASE)
_LINE_END_HYPHEN = re.compile(r"\b([^\W\d_]+)-\n([^\W\d_A-Z]+)\b([ \t]?)")
_HYPHENATED = re.compile(r"\b[^\W\d_]+-[^\W\d_]+\b")
_COMMENT_LINE = re.compile(r"^#", re.MULTILINE)
_SPACES = re.compile(r"\s+")
PAGE_NUMBER = re.compile(
    r"(?:(?:page|p\.|seite)\s*)?[-–—]?\s*(?:\d{1,4}|(?=[ivx])x{0,3}(?:ix|iv|v?i{0,3}))\s*[-–—]?"
    r"(?:\s*(?:of|/)\s*\d{1,4})?",
    re.IGNORECASE,
)
"""A page-number line: "7", "- 7 -", "Page 7 of 12", "vii"."""


def strip_running_lines(pages: list[str]) -> list[str]:
    """``pages`` with running headers, footers and edge page numbers removed (one string per page)."""
    split = [page.split("\n") for page in pages]
    if len(split) < 2:
        return pages
    edge_keys = [{index: _key(lines[index]) for index in _edge_indices(lines)} for lines in split]
    seen = Counter(key for keys in edge_keys for key in set(keys.values()) if key)
    needed = max(2, (len(split) + 1) // 2)
    running = {key for key, count in seen.items() if count >= (2 if _NUMBERED.search(key) else needed)}
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
        if index not in edge_keys or (edge_keys[index] not in running and not PAGE_NUMBER.fullmatch(line.strip()))
    ]


def without_leaders(page: str) -> str:
    """``page`` without its table-of-contents and index lines: those ending in a dot leader and a page
    number or numbers ("1.1 The R environment ........ 2", "abline . . . . . . 66, 70")."""
    return "\n".join(line for line in page.split("\n") if not _DOT_LEADER.search(line))


def dehyphenate(text: str) -> str:
    """Words broken at a line's end with a hyphen joined again ("compo-" + "nents" → "components", then
    the line break); the hyphen stays when the document writes the word with one on a line elsewhere."""

    written = {word.lower() for word in _HYPHENATED.findall(text)}  # on one line: a break's hyphen is not

    def join(match: re.Match[str]) -> str:
        first, second, space = match.group(1), match.group(2), match.group(3)
        word = f"{first}-{second}" if f"{first}-{second}".lower() in written else first + second
        return word + ("\n" if space else "")

    return _LINE_END_HYPHEN.sub(join, text)


def code_comments_indented(text: str) -> str:
    """Lines opening with ``#`` indented four spaces: a comment in a code example, not a heading."""
    return _COMMENT_LINE.sub("    #", text)


MAX_OUTLINE_DEPTH = 6


def outline_by_page(reader: Any) -> dict[int, list[tuple[int, str]]]:
    """A pypdf reader's outline as (heading level, title) per page index, in outline order; empty when
    the PDF has none or it cannot be read (a heading less is no reason to refuse the file)."""
    found: dict[int, list[tuple[int, str]]] = defaultdict(list)

    def walk(entries: list[Any], level: int) -> None:
        for entry in entries:
            if isinstance(entry, list):
                walk(entry, min(level + 1, MAX_OUTLINE_DEPTH))
                continue
            title = " ".join(str(getattr(entry, "title", "") or "").split())
            page = reader.get_destination_page_number(entry)
            if title and page is not None and page >= 0:
                found[page].append((level, title))

    try:
        walk(list(reader.outline), 1)
    except Exception:  # a damaged outline: pypdf raises many types; the text is still good
        return {}
    return dict(found)


def page_labels(reader: Any) -> list[str]:
    """The label each page of a pypdf reader's PDF prints ("i", "ii", "1", "2", …), one per page; empty
    when the labels are the page numbers themselves or cannot be read (a citation then gives the number)."""
    try:
        labels = [str(label) for label in reader.page_labels]
    except Exception:  # a damaged /PageLabels tree: pypdf raises many types; the numbers still serve
        return []
    if len(labels) != len(reader.pages) or labels == [str(number) for number in range(1, len(labels) + 1)]:
        return []
    return labels


_SECTION_NUMBER = re.compile(r"^(?:[A-Z]|\d+)(?:\.\d+)*\.?\s+")


def mark_headings(page: str, headings: list[tuple[int, str]]) -> str:
    """``page`` with the first line naming each outline entry (the title alone or after a section number,
    "2.1 Variations on read.table") written as a Markdown heading of the entry's level."""
    lines = page.split("\n")
    start = 0
    for level, title in headings:
        wanted = title.lower()
        for index in range(start, len(lines)):
            text = " ".join(lines[index].split())
            if text.lower() == wanted or _SECTION_NUMBER.sub("", text, count=1).lower() == wanted:
                lines[index] = f"{'#' * level} {text}"
                start = index + 1
                break
    return "\n".join(lines)
