"""Which HTML elements are page chrome, which are blocks, and which are headings: the rules the HTML
loader's passes share (:mod:`kgrag.documents.html_text`, :mod:`kgrag.documents.html_writer`)."""

from __future__ import annotations

import re
from collections.abc import Mapping

DROPPED_TAGS = frozenset(
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
PAGE_ONLY_DROPPED = frozenset({"header", "aside"})
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
        "viewcode-link",  # Sphinx's "[source]" beside a signature
        "viewcode-back",  # and "[docs]" on the source page
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
        "navheader",  # DocBook XSL's Prev | Up | Home | Next tables above and below every page
        "navfooter",
        "docnav",  # Publican's navigation list, and the "Download the ebook" banner above it
        "banner",
    }
)
ADMONITIONS = frozenset({"note", "warning", "tip", "caution", "important", "attention", "danger", "hint"})
"""Class names of a boxed note (DocBook's ``div.note``): a heading inside one is its label ("Note"), not a
section of the page."""
PERMALINK_TEXTS = frozenset({"¶", "§", "#", "🔗", "¶#"})
HEADINGS = {f"h{level}": level for level in range(1, 7)}
BLOCKS = frozenset(
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
CELLS = frozenset({"td", "th"})
_SPACES = re.compile(r"\s+")


def is_chrome(tag: str, attrib: Mapping[str, str], dropped: frozenset[str]) -> bool:
    """Whether an element is navigation, hidden, or otherwise not part of the content (permalink anchors
    are known only by their text, so the writer drops those at their end)."""
    if tag in dropped:
        return True
    if attrib.get("role", "").lower() in _CHROME_ROLES or "hidden" in attrib:
        return True
    if attrib.get("aria-hidden", "").lower() == "true":
        return True
    names = attrib.get("class", "").lower().split()
    names.append(attrib.get("id", "").lower())
    return any(name in _CHROME_NAMES for name in names)


def collapse(text: str) -> str:
    """``text`` with each run of whitespace made one space, trimmed."""
    return _SPACES.sub(" ", text).strip()
