"""A Markdown page as the text a reader sees: prose without markup, headings and code kept as Markdown.

Indexed verbatim, Markdown puts its syntax into passages and answers: link targets, ``[text][ref]``
cross-references, emphasis stars, table rules, HTML comments. The page is parsed with markdown-it-py
(CommonMark, tables, strikethrough, footnotes and definition lists from mdit-py-plugins) after MkDocs
blocks are unwrapped (:mod:`kgrag.documents.mkdocs_blocks`) and Liquid/Jinja tags outside code are read as
the site renders them (:mod:`kgrag.documents.liquid`), and written back as plain paragraphs, with

* headings as ``#`` headings (the passage's section is the last heading before it),
* code blocks, fenced or indented, as fenced blocks with their content byte for byte (chunking keeps a
  fenced block whole),
* list items as ``- `` lines, table rows as cells joined by `` | ``,
* links as their text, images as their alt text, inline code without its backticks, raw HTML as its text,
  a raw HTML block with headings or block elements as the HTML loader writes them (headings as ``#``
  headings, each block its own paragraph: :func:`kgrag.documents.html_text.fragment_to_text`).

A reference-style link whose definition is elsewhere (MkDocs autorefs: ``[BaseModel][pydantic.BaseModel]``)
is left unresolved by any parser; it is written as its text too. The page's title is its first level-1
heading ("" when it has none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from kgrag.documents.code_blocks import fenced
from kgrag.documents.html_rules import BLOCKS, CELLS, HEADINGS
from kgrag.documents.mkdocs_blocks import unwrap_mkdocs

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

_UNRESOLVED_REFERENCE = re.compile(r"\[([^\[\]\n]+)\]\[[^\[\]\n]*\]")
_TAG = re.compile(r"<!--.*?-->|<[^>\n]*>", re.DOTALL)
_SPACES = re.compile(r"[ \t]+")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")
_CALLOUT = re.compile(r"\[![A-Za-z][\w-]*\][+-]?\s*(.*)\Z", re.DOTALL)
"""The first line of a callout (GitHub's ``> [!NOTE]``, Obsidian's ``> [!warning] Encoding``, ``[!tip]-`` folded):
its marker, then its title if it has one."""
_BLOCK_TAG = re.compile(rf"<(?:{'|'.join(sorted(BLOCKS | CELLS | set(HEADINGS) | {'li'}))})\b", re.I)
"""An opening tag the HTML loader writes as a block of its own (:mod:`kgrag.documents.html_rules`)."""


@dataclass(frozen=True)
class MarkdownPage:
    """The page's text as described above, and its first level-1 heading."""

    text: str
    h1: str


@cache
def _parser(indented_code: bool, inline: bool = True) -> MarkdownIt:
    """The page's parser; without ``inline``, its block rules alone (where code blocks lie is known without
    reading inline text)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.deflist import deflist_plugin
    from mdit_py_plugins.footnote import footnote_plugin

    md = MarkdownIt("commonmark").enable(["table", "strikethrough"]).use(footnote_plugin).use(deflist_plugin)
    md = md if inline else md.disable(["inline", "text_join", "footnote_tail"])
    return md if indented_code else md.disable("code")


def markdown_to_text(source: str, indented_code: bool = True) -> MarkdownPage:
    """``source`` (Markdown without front matter) as plain text with ``#`` headings and fenced code;
    ``indented_code=False`` reads indented lines as text, as MDX does (indentation there is JSX layout).
    Liquid and Jinja tags outside code are read as the page renders (:mod:`kgrag.documents.liquid`), once
    MkDocs blocks are unwrapped, so that the body of an admonition is not mistaken for indented code."""
    from kgrag.documents.liquid import without_liquid

    tokens = _parser(indented_code).parse(without_liquid(unwrap_mkdocs(source), indented_code))
    writer = _Writer()
    for token in tokens:
        writer.take(token)
    return MarkdownPage(writer.text(), writer.h1)


def code_line_ranges(source: str, indented_code: bool = True) -> list[tuple[int, int]]:
    """``(first, end)`` line numbers (from 0, ``end`` not included) of the code blocks, fenced or indented, that
    :func:`markdown_to_text` reads in ``source``, those inside lists and block quotes included: for rewriting
    a page's text outside its code before it is parsed."""
    tokens = _parser(indented_code, inline=False).parse(source)
    return [(token.map[0], token.map[1]) for token in tokens if token.type in ("fence", "code_block") and token.map]


class _Writer:
    """Writes block tokens out as paragraphs; list nesting indents items by two spaces; a definition list's
    term on the line above its definition's first paragraph (one block: a chunk never parts them)."""

    def __init__(self) -> None:
        self.blocks: list[str] = []
        self.h1 = ""
        self.lists: list[int] = []  # per open list: the next item number, 0 for bullets
        self.item_prefix = ""
        self.heading = 0
        self.row: list[str] | None = None
        self.quotes = 0  # open block quotes: a callout is one
        self.term = False  # a definition list's term was just written: its definition's paragraph joins it

    def text(self) -> str:
        return "\n\n".join(block for block in self.blocks if block.strip())

    def take(self, token: Token) -> None:
        kind = token.type
        if kind.endswith("list_open") or kind.endswith("list_close") or kind == "list_item_open":
            self._list(token)
        elif kind == "heading_open":
            self.heading = int(token.tag[1:])
        elif kind in ("blockquote_open", "blockquote_close"):
            self.quotes += 1 if kind == "blockquote_open" else -1
        elif kind == "tr_open":
            self.row = []
        elif kind == "tr_close" and self.row is not None:
            self.blocks.append(" | ".join(self.row))
            self.row = None
        elif kind == "inline":
            self._inline(token)
        elif kind in ("fence", "code_block"):
            self._code(token)
        elif kind == "html_block":
            self._html(token.content)
        self._track_term(kind)

    def _track_term(self, kind: str) -> None:
        """After a term (``dt_close``) only the paragraph that opens its definition joins it."""
        if kind == "dt_close":
            self.term = True
        elif kind.endswith("_open") and kind not in ("dd_open", "paragraph_open"):
            self.term = False

    def _html(self, markup: str) -> None:
        """A raw HTML block: its headings and block elements as the HTML loader writes them
        (:func:`kgrag.documents.html_text.fragment_to_text`), so layout ``<div>``s do not run into one line;
        markup that is not a whole fragment (an opening ``<details>`` whose Markdown body follows) keeps
        its text."""
        from kgrag.documents.html_text import fragment_to_text

        written = fragment_to_text(markup) if _BLOCK_TAG.search(markup) else ""
        if not written:
            self._paragraph(_TAG.sub(" ", markup))
            return
        for block in written.split("\n\n"):
            if block.strip():
                self.blocks.append(self.item_prefix + block)
                self.item_prefix = ""

    def _list(self, token: Token) -> None:
        if token.type == "list_item_open":
            self.item_prefix = self._marker()
        elif token.type == "ordered_list_open":
            start = token.attrGet("start")
            self.lists.append(int(start) if isinstance(start, int | str) and str(start).isdigit() else 1)
        elif token.type == "bullet_list_open":
            self.lists.append(0)
        elif token.type in ("bullet_list_close", "ordered_list_close"):
            self.lists.pop()

    def _marker(self) -> str:
        indent = "  " * (len(self.lists) - 1)
        if not self.lists or self.lists[-1] == 0:
            return indent + "- "
        number = self.lists[-1]
        self.lists[-1] += 1
        return f"{indent}{number}. "

    def _inline(self, token: Token) -> None:
        children = token.children or []
        if self.quotes and self.row is None and not self.heading and children and children[0].content.startswith("[!"):
            children = self._callout(children)
        text = inline_text(children)
        if self.row is not None:
            self.row.append(text)
        elif self.heading:
            if self.heading == 1 and not self.h1 and text:
                self.h1 = text
            self.blocks.append(f"{'#' * self.heading} {text}")
            self.heading = 0
        else:
            self._paragraph(text)

    def _paragraph(self, text: str) -> None:
        text = " ".join(text.split(" \n")).strip()
        if text and self.term and self.blocks:  # a definition on the line after its term, one block
            self.blocks[-1] += "\n" + text
            self.term = False
        elif text:
            self.blocks.append(self.item_prefix + text)
            self.item_prefix = ""

    def _callout(self, children: list[Token]) -> list[Token]:
        """A callout's first line (:data:`_CALLOUT`) written as its title alone, and the inline tokens of its
        body; ``children`` as they are when the paragraph opens with no callout marker."""
        end = next((i for i, c in enumerate(children) if c.type in ("softbreak", "hardbreak")), len(children))
        callout = _CALLOUT.match(inline_text(children[:end]))
        if callout is None:
            return children
        self._paragraph(callout.group(1))
        return children[end + 1 :]

    def _code(self, token: Token) -> None:
        self.term = False
        if self.item_prefix.strip():
            self.blocks.append(self.item_prefix.rstrip())
            self.item_prefix = ""
        language = token.info.strip().split(" ", 1)[0].split("{", 1)[0]  # not ``{hl_lines="4"}`` and the like
        self.blocks.append(fenced(token.content, language))


class _Superscript:
    """Text inside ``<sup>…</sup>``: a footnote's own number opening its line is left out ("<sup>3</sup>MKV
    containers …" reads "MKV containers …"), and so is a superscript that links within the page (a footnote
    reference written by hand, ``<sup>[14](#f14)</sup>``); a superscript after other text is marked with "^"
    ("10^6", "Firefox^3"), so that it is never glued to the word beside it."""

    def __init__(self) -> None:
        self.state = ""  # "drop" or "mark" inside a superscript, "" outside it or once it is marked

    def tag(self, html: str, before: list[str]) -> None:
        lower = html.lower()
        if lower.startswith("<sup"):
            self.state = "mark" if "".join(before).strip() else "drop"
        elif lower.startswith("</sup"):
            self.state = ""

    def link(self, token: Token) -> None:
        """A link opening inside the superscript: one to an anchor of the page makes it a footnote reference."""
        href = token.attrGet("href")
        if self.state == "mark" and isinstance(href, str) and href.startswith("#"):
            self.state = "drop"

    def text(self, text: str) -> str:
        if self.state == "drop":
            return ""
        if self.state == "mark":
            self.state = ""
            return "^" + text
        return text


def markdown_line_text(source: str) -> str:
    """One line of Markdown as a reader sees it, as :func:`markdown_to_text` writes it inside a paragraph:
    links as their text, no emphasis marks, code without backticks. For text copied from a page's Markdown
    source and compared with the indexed page (an evaluation question's evidence)."""
    tokens = _parser(True).parseInline(source)
    return inline_text(tokens[0].children or []) if tokens else source


def inline_text(children: list[Token]) -> str:
    """The reader's text of an inline run: link text, image alt text, code without backticks.

    Code spans stand in as placeholders while unresolved references are rewritten, so that
    ``[`Model`][pkg.Model]`` becomes ``Model`` but ``a[0][1]`` inside code stays as it is."""
    prose: list[str] = []
    code: list[str] = []
    sup = _Superscript()
    for child in children:
        kind = child.type
        if kind == "code_inline":
            prose.append(f"\x00{len(code)}\x00")
            code.append(child.content)
        elif kind == "text":
            prose.append(sup.text(child.content.replace("\x00", "")))
        elif kind == "image":
            prose.append(inline_text(child.children or []) or child.content)
        elif kind == "link_open":
            sup.link(child)
        elif kind == "softbreak":
            prose.append(" ")
        elif kind == "hardbreak":
            prose.append("\n")
        elif kind == "html_inline":
            sup.tag(child.content, prose)
            prose.append(" " if child.content.startswith("<br") else "")
    text = _UNRESOLVED_REFERENCE.sub(r"\1", "".join(prose))
    text = _PLACEHOLDER.sub(lambda m: code[int(m.group(1))], text)
    return _SPACES.sub(" ", text).strip()
