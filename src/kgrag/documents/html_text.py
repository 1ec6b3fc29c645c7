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

Parsing uses libxml2 through lxml (C, linear in the input). libxml2 stops building the tree at a nesting
depth of 2048 elements; a page nested that deeply (no real page is) would otherwise lose everything after
that point in silence, so it is refused with a message instead (:class:`TooDeep`). The tree is then
walked with an explicit stack, never recursion, so depth costs neither time nor Python stack.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from lxml import etree

MAX_DEPTH = 2048
"""libxml2's nesting limit with ``huge_tree`` (without it the limit is 256, too low for some real pages)."""

_DROPPED_TAGS = frozenset(
    {
        "script",
        "style",
        "noscript",
        "template",
        "head",
        "svg",
        "math",
        "canvas",
        "iframe",
        "object",
        "embed",
        "form",
        "button",
        "input",
        "select",
        "textarea",
        "nav",
        "footer",
        "dialog",
    }
)
# Dropped only when the page has no main-content element: there the page banner and sidebars are
# chrome; inside the main content a <header> holds the article's own title and an <aside> a side note.
_PAGE_ONLY_DROPPED = frozenset({"header", "aside"})
_CHROME_ROLES = frozenset(
    {"navigation", "banner", "contentinfo", "search", "complementary", "menu", "menubar", "toolbar", "dialog"}
)
# Class or id tokens that name page chrome in common generators (Sphinx, MkDocs, Read the Docs, blogs).
_CHROME_NAMES = frozenset(
    {
        "sphinxsidebar",
        "sphinxsidebarwrapper",
        "related",
        "footer",
        "headerlink",
        "navigation",
        "nav",
        "navbar",
        "breadcrumb",
        "breadcrumbs",
        "toc",
        "menu",
        "skip-link",
        "skiplink",
        "mobile-nav",
        "sourcelink",
        "searchbox",
        "search-box",
        "rst-versions",
        "wy-nav-side",
        "md-sidebar",
        "md-header",
        "md-footer",
        "prev-next-area",
        "cookie-banner",
        "cookie-notice",
        "widget-area",
    }
)
_PERMALINK_TEXTS = frozenset({"¶", "§", "#", "🔗", "¶#"})
_HEADINGS = {f"h{level}": level for level in range(1, 7)}
_BLOCKS = frozenset(
    {
        "p",
        "div",
        "ul",
        "ol",
        "dl",
        "dt",
        "dd",
        "table",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "section",
        "article",
        "main",
        "header",
        "blockquote",
        "figure",
        "figcaption",
        "address",
        "hr",
        "details",
        "summary",
        "caption",
        "body",
        "html",
    }
)
_CELLS = frozenset({"td", "th"})
_SPACES = re.compile(r"\s+")
_FENCE_RUN = re.compile(r"`{3,}")
_LINE_BREAK = "\x00"  # stands for <br> until a block is written; decoded text never holds NUL


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
    parser = etree.HTMLParser(huge_tree=True, remove_comments=True, remove_pis=True, no_network=True, encoding="utf-8")
    root = etree.fromstring(markup, parser)
    if any(error.type_name == "ERR_RESOURCE_LIMIT" for error in parser.error_log):
        raise TooDeep(f"elements are nested more than {MAX_DEPTH} deep")
    if root is None:
        return HtmlText("", "")
    page_title = _collapse(" ".join(root.xpath("//head/title//text()")))
    main = _main_content(root)
    dropped = _DROPPED_TAGS if main is not None else _DROPPED_TAGS | _PAGE_ONLY_DROPPED
    writer = _Writer()
    writer.walk(main if main is not None else _page(root), dropped)
    return HtmlText(_title(page_title, writer.first_h1), writer.text())


def _title(page_title: str, first_h1: str) -> str:
    """The ``<title>``, less a site suffix ("os — … — Python 3.11 documentation" becomes the page's own
    ``<h1>`` when the title starts with it); the ``<h1>`` when there is no ``<title>``."""
    if first_h1 and (not page_title or page_title.startswith(first_h1)):
        return first_h1
    return page_title


def _main_content(root: etree._Element) -> etree._Element | None:
    """The element holding the page's main content; None when the page marks none."""
    for query in (
        "//main",
        "//*[@role='main']",
        # Sphinx themes without role="main": div.body inside div.bodywrapper (a bare div.body is too
        # common elsewhere, e.g. the body of each comment under a blog post).
        "//div[contains(concat(' ', normalize-space(@class), ' '), ' bodywrapper ')]"
        "/div[contains(concat(' ', normalize-space(@class), ' '), ' body ')]",
        "//*[@id='content' or @id='main-content' or @id='main']",
    ):
        found = [element for element in root.xpath(query) if _has_text(element)]
        if found:
            return found[0]
    articles = root.xpath("//article")
    return articles[0] if len(articles) == 1 and _has_text(articles[0]) else None


def _page(root: etree._Element) -> etree._Element:
    """The ``<body>``, or the root of a fragment without one."""
    bodies = root.xpath("//body")
    return bodies[0] if bodies else root


def _has_text(element: etree._Element) -> bool:
    return any(piece.strip() for piece in element.itertext())


def _is_chrome(element: etree._Element, dropped: frozenset[str]) -> bool:
    """Whether ``element`` is navigation, a permalink, hidden, or otherwise not part of the content."""
    tag = element.tag
    if not isinstance(tag, str) or tag in dropped:
        return True
    attrib = element.attrib
    if attrib.get("role", "").lower() in _CHROME_ROLES or "hidden" in attrib:
        return True
    if attrib.get("aria-hidden", "").lower() == "true":
        return True
    names = attrib.get("class", "").lower().split()
    names.append(attrib.get("id", "").lower())
    if any(name in _CHROME_NAMES for name in names):
        return True
    return tag == "a" and _collapse("".join(element.itertext())) in _PERMALINK_TEXTS


def _collapse(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


@dataclass
class _Writer:
    """Turns a tree walk into blocks of text: inline text is gathered into the current line until a
    block element ends it."""

    blocks: list[str] = field(default_factory=list)
    line: list[str] = field(default_factory=list)
    prefix: str = ""
    first_h1: str = ""
    cells: int = 0

    def walk(self, top: etree._Element, dropped: frozenset[str]) -> None:
        """Visit ``top``'s subtree in document order with an explicit stack (depth costs no recursion)."""
        stack: list[tuple[etree._Element, bool]] = [(top, False)]
        while stack:
            element, closing = stack.pop()
            if not closing and element is top:
                self._open(element)
                stack.append((element, True))
                stack.extend((child, False) for child in reversed(element))
                continue
            if closing:
                self._close(element)
            elif _is_chrome(element, dropped):
                pass
            elif element.tag in _HEADINGS or element.tag == "pre":
                self._leaf_block(element, dropped)
            else:
                self._open(element)
                stack.append((element, True))
                stack.extend((child, False) for child in reversed(element))
                continue  # its tail follows its closing
            if element is not top:
                self._inline(element.tail)

    def text(self) -> str:
        self._flush()
        return "\n\n".join(self.blocks)

    def _open(self, element: etree._Element) -> None:
        tag = element.tag
        if self._breaks(tag):
            self._flush()
        if tag == "li":
            self.prefix = "- "
        elif tag in _CELLS:
            if self._has_line():
                self.line.append(" | ")
            self.cells += 1
        elif tag == "br":
            self.line.append(_LINE_BREAK)
        self._inline(element.text)

    def _close(self, element: etree._Element) -> None:
        if element.tag in _CELLS:
            self.cells -= 1
        elif self._breaks(element.tag):
            self._flush()
        elif element.tag in _BLOCKS:
            self.line.append(" ")  # a paragraph inside a table cell: keep the cell on one line

    def _breaks(self, tag: str) -> bool:
        """Whether ``tag`` starts a block of its own (blocks inside a table cell stay on the row's line)."""
        return (tag in _BLOCKS or tag == "li") and (self.cells == 0 or tag in ("tr", "table"))

    def _leaf_block(self, element: etree._Element, dropped: frozenset[str]) -> None:
        """A heading (one line, permalinks dropped) or a <pre> block (verbatim, fenced)."""
        self._flush()
        self.prefix = ""  # a list item holding only code: the bullet must not land on the next paragraph
        if element.tag == "pre":
            code = "".join(element.itertext()).strip("\n")
            if code.strip():
                longest = max((len(run) for run in _FENCE_RUN.findall(code)), default=2)
                fence = "`" * max(3, longest + 1)
                self.blocks.append(f"{fence}\n{code}\n{fence}")
            return
        words = _collapse(" ".join(_visible_text(element, dropped)))
        if words:
            level = _HEADINGS[element.tag]
            self.blocks.append(f"{'#' * level} {words}")
            if level == 1 and not self.first_h1:
                self.first_h1 = words

    def _inline(self, text: str | None) -> None:
        if text:
            self.line.append(text)

    def _has_line(self) -> bool:
        return any(piece.strip() for piece in self.line)

    def _flush(self) -> None:
        lines = (_collapse(part) for part in "".join(self.line).split(_LINE_BREAK))
        words = "\n".join(line for line in lines if line)
        self.line.clear()
        if words:
            self.blocks.append(self.prefix + words)
            self.prefix = ""


def _visible_text(top: etree._Element, dropped: frozenset[str]) -> Iterator[str]:
    """Text of ``top``'s subtree without chrome (a heading's "¶" permalink), in document order."""
    stack: list[tuple[etree._Element, bool]] = [(top, False)]
    while stack:
        element, is_tail = stack.pop()
        if is_tail:
            if element.tail:
                yield element.tail
            continue
        if element is not top:
            stack.append((element, True))
            if _is_chrome(element, dropped):
                continue
        if element.text:
            yield element.text
        stack.extend((child, False) for child in reversed(element))
