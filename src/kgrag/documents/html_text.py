"""The main content of an HTML page as Markdown-like text: headings, paragraphs, lists and verbatim code.

A documentation or web page is mostly chrome: navigation bars, sidebars with the site's table of
contents, "¶" permalinks after every heading, footers. Indexed as text, that chrome fills chunks with
the same words on every page and becomes graph entities ("Navigation", "Show Source"). This module
keeps what a reader reads:

* the **main content** element — ``<main>``, ``role="main"``, Sphinx's ``div.bodywrapper > div.body``,
  an element with id ``content``/``main``, or a single ``<article>`` — or the whole ``<body>`` when a
  page has none;
* minus **chrome** inside it: ``nav``/``footer``/forms (and ``header``/``aside`` on a page without a
  main-content element), ARIA landmarks such as ``role="navigation"``, hidden elements, elements whose
  class or id names navigation (``sphinxsidebar``, ``breadcrumb``, ``toc``…) and permalink anchors
  (``a.headerlink``, or a link whose whole text is "¶", "§", "#" or "🔗");
* **headings** as Markdown heading lines (``## Title``), so sentence splitting and chunking see sections;
* ``<pre>`` blocks **verbatim**, indentation included, inside Markdown code fences, which the chunker
  never cuts (:mod:`kgrag.documents.code_blocks`);
* list items as ``- `` lines, table rows as cells separated by `` | ``.

libxml2 (through lxml) reads the page twice as a stream of parser events, and no tree is built: the
first pass finds the main content element and the ``<title>``, the second
(:mod:`kgrag.documents.html_writer`) writes that element's text. Both are linear in the input, and
memory holds the page's bytes and the text, not a tree several times their size. Nesting is bounded:
libxml2 scans the open elements for every end tag that matches none of them, so a hostile page of
unclosed tags and stray end tags would cost time quadratic in its size; a page nested deeper than
:data:`MAX_DEPTH` (no real page is) is refused with a message instead (:class:`TooDeep`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from lxml import etree

from kgrag.documents.html_rules import DROPPED_TAGS, PAGE_ONLY_DROPPED, collapse
from kgrag.documents.html_writer import Writer

MAX_DEPTH = 512
"""Deepest nesting read, far deeper than real pages nest. libxml2 scans the open elements for each end tag
that closes none of them, so the worst page costs time proportional to its size times this bound."""

# Main-content rules, most specific first; the first rule with an element holding text wins.
_MAIN, _ROLE_MAIN, _SPHINX_BODY, _CONTENT_ID, _ARTICLE = range(5)
_CONTENT_IDS = frozenset({"content", "main-content", "main"})


class TooDeep(ValueError):
    """The page nests elements deeper than :data:`MAX_DEPTH`, where the parser stops reading."""


@dataclass(frozen=True)
class HtmlText:
    """A page's main content as text, and its title ("" when it has none)."""

    title: str
    text: str


def html_to_text(markup: bytes) -> HtmlText:
    """Main content of the UTF-8 page ``markup`` as Markdown-like text (see the module docstring).

    Raises :class:`TooDeep` for pages nested deeper than :data:`MAX_DEPTH`; lxml's own errors propagate.
    """
    locator = _Locator()
    etree.fromstring(markup, _parser(locator))  # raises TooDeep, stopping the parser at once
    main = locator.main()
    top = main if main is not None else locator.body or 1  # no <body>: the whole document
    lead = locator.manual_header(main)
    tops = frozenset({top} if lead is None else {lead, top})
    writer = Writer(tops, DROPPED_TAGS if main is not None else DROPPED_TAGS | PAGE_ONLY_DROPPED)
    text = etree.fromstring(markup, _parser(writer))
    return HtmlText(_title(collapse(" ".join(locator.title)), writer.first_h1), text or "")


def fragment_to_text(markup: str) -> str:
    """An HTML fragment (a raw HTML block of a Markdown page) as the same Markdown-like text as a page's
    main content: headings as ``#`` lines and each block element its own paragraph, so that a landing page
    of ``<div>`` cards reads as headings and short paragraphs rather than one run-on line ("Works With Your
    Stack WSGI and ASGI frameworks … Django Flask FastAPI"). Chrome inside it (``nav``, forms, scripts) is
    left out; a fragment with no element (only text, or a comment) is written as its text."""
    if not markup.strip():
        return ""
    data = markup.encode("utf-8")
    try:
        text = etree.fromstring(data, _parser(Writer(1, DROPPED_TAGS)))
    except (etree.LxmlError, TooDeep):
        return ""
    return text or ""


def _parser(target: object) -> etree.HTMLParser:
    return etree.HTMLParser(
        target=target, huge_tree=True, remove_comments=True, remove_pis=True, no_network=True, encoding="utf-8"
    )


def _title(page_title: str, first_h1: str) -> str:
    """The ``<title>``, less a site suffix ("os — … — Python 3.11 documentation" becomes the page's own
    ``<h1>`` when the title starts with it); the ``<h1>`` when there is no ``<title>``."""
    if first_h1 and (not page_title or page_title.startswith(first_h1)):
        return first_h1
    return page_title


class _Locator:
    """First pass: the start-tag ordinal of the main content element, of the ``<body>``, and the title.

    An element holds text when text arrives while it is open. Only candidates (elements some rule could
    pick) are tracked, and marking stops at the first candidate already marked (those below it on the
    stack enclose it and were marked with it), so each event costs constant time on average.
    """

    def __init__(self) -> None:
        self.title: list[str] = []
        self.body: int | None = None
        self._count = 0
        self._open: list[tuple[str, bool]] = []  # (tag, is a Sphinx bodywrapper) per open element
        self._candidates: list[list[int]] = []  # [ordinal, rule, holds text] per open candidate
        self._closes_candidate: list[bool] = []  # per open element: whether it is a candidate
        self._found: dict[int, int] = {}  # rule -> smallest ordinal of an element holding text
        self._articles = 0
        self._in_title = False
        self._titles_seen = 0
        self._header: int | None = None  # ordinal of the first <div id="header">
        self._header_level = -1  # how many elements enclose it while it is open; -1 once it closed
        self._header_section = False  # whether a section heading (<h2>) opened inside it

    def start(self, tag: str, attrib: Mapping[str, str]) -> None:
        self._count += 1
        if len(self._open) >= MAX_DEPTH:
            raise TooDeep(f"elements are nested more than {MAX_DEPTH} deep")
        if tag == "body" and self.body is None:
            self.body = self._count
        classes = attrib.get("class", "").split()
        rule = self._rule(tag, attrib, classes)
        self._note_header(tag, attrib)
        self._open.append((tag, tag == "div" and "bodywrapper" in classes))
        self._closes_candidate.append(rule is not None)
        if rule is not None:
            self._candidates.append([self._count, rule, 0])
        if tag == "article":
            self._articles += 1
        if tag == "title":
            self._titles_seen += 1
            self._in_title = self._titles_seen == 1

    def data(self, text: str) -> None:
        if self._in_title:
            self.title.append(text)
        if text.strip():
            for candidate in reversed(self._candidates):
                if candidate[2]:
                    break
                candidate[2] = 1

    def end(self, tag: str) -> None:
        if not self._open:
            return
        self._open.pop()
        if len(self._open) == self._header_level:
            self._header_level = -1
        if tag == "title":
            self._in_title = False
        if self._closes_candidate.pop():
            ordinal, rule, holds_text = self._candidates.pop()
            if holds_text:
                self._found[rule] = min(self._found.get(rule, ordinal), ordinal)

    def close(self) -> None:
        return None

    def main(self) -> int | None:
        """Ordinal of the main content element, or None when the page marks none."""
        for rule in (_MAIN, _ROLE_MAIN, _SPHINX_BODY, _CONTENT_ID):
            if rule in self._found:
                return self._found[rule]
        return self._found.get(_ARTICLE) if self._articles == 1 else None

    def manual_header(self, main: int | None) -> int | None:
        """Ordinal of an AsciiDoc manual page's ``<div id="header">`` to write before the main content:
        beside the title it holds the NAME section ("git-worktree - Manage multiple working trees"), the
        page's one-line summary, while the ``<div id="content">`` after it holds the rest."""
        content = self._found.get(_CONTENT_ID)
        if main is None or main != content or self._header is None or not self._header_section:
            return None
        return self._header if self._header < main else None

    def _note_header(self, tag: str, attrib: Mapping[str, str]) -> None:
        if tag == "div" and self._header is None and attrib.get("id", "").lower() == "header":
            self._header, self._header_level = self._count, len(self._open)
        elif tag == "h2" and self._header_level >= 0:
            self._header_section = True

    def _rule(self, tag: str, attrib: Mapping[str, str], classes: list[str]) -> int | None:
        if tag == "main":
            return _MAIN
        if attrib.get("role", "").lower() == "main":
            return _ROLE_MAIN
        if tag == "div" and "body" in classes and self._open and self._open[-1][1]:
            return _SPHINX_BODY
        if attrib.get("id", "").lower() in _CONTENT_IDS:
            return _CONTENT_ID
        return _ARTICLE if tag == "article" else None
