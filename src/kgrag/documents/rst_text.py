"""A reStructuredText page as plain text with ``#`` headings and fenced code, parsed by docutils.

Indexed verbatim, rST puts ``.. note::``, ``:class:`~pkg.Name```, ``::`` and heading underlines into
passages. The page is parsed into a docutils tree (no file inclusion, no raw passthrough: a page must
not read other files) and written back as the reader sees it: section titles as ``#`` headings by depth,
paragraphs, ``- `` list items, field lists as ``name: value``, admonitions under their name, literal
blocks as fenced code, tables as rows of cells joined by `` | ``.

Sphinx's roles and directives are unknown to plain docutils, which keeps their source in the tree as an
error: a role is written as its text (``:class:`Response <requests.Response>``` → ``Response``,
``:func:`~requests.get``` → ``get``); a version note as its sentence (``.. versionadded:: 2.3`` →
"New in version 2.3."), a code directive docutils could not parse (a Sphinx option such as ``:caption:``)
as fenced code, a description directive (``.. function:: get(url)``) as its signature followed by
its content, parsed as rST again; directives that pull text from elsewhere (``autoclass``, ``toctree``,
``literalinclude``, ``module``) add nothing, nor does a table of contents (``.. contents::``, whose
caption would otherwise read as a section heading). The title is the first top-level section's title.
"""

from __future__ import annotations

import io
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgrag.documents.code_blocks import fenced

if TYPE_CHECKING:
    from docutils import nodes

_ROLE = re.compile(r"^:(?:[\w.+-]+:)*[\w.+-]+:`(?P<body>.*)`$", re.DOTALL)
_INLINE_ROLE = re.compile(r":(?:[\w.+-]+:)*[\w.+-]+:`[^`]+`")
_DIRECTIVE = re.compile(r"^\.\. (?P<name>[\w:.+-]+)::[ \t]*(?P<args>[^\n]*)\n?(?P<body>.*)$", re.DOTALL)
_OPTIONS = re.compile(r"\A(?:[ \t]+:[\w-]+:[^\n]*(?:\n|\Z))+")  # a directive's options, before its content
VERSION_NOTES = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
SILENT = frozenset(
    "toctree module currentmodule automodule autoclass autofunction automethod autoattribute autodata "
    "autoexception literalinclude include index highlight tabularcolumns only ifconfig sectionauthor "
    "codeauthor moduleauthor testsetup testcleanup raw".split()
)
DOCUMENTED = frozenset(name for name in SILENT if name.startswith("auto"))
"""autodoc directives: the docstring they pull in is not in the page, but what the page writes under one
(``.. autodata:: TEMPLATE_PATH`` then "Global search path for templates.") is, after the name it documents."""
CODE_DIRECTIVES = frozenset("code-block sourcecode code doctest testcode testoutput ipython".split())
"""Directives whose body is code: written as a fenced block when docutils did not parse them itself (a
Sphinx option such as ``:caption:`` or ``:emphasize-lines:``, or a Sphinx-only name), never parsed as rST,
where each comment line ("# Build the container") would read as a heading."""
MAX_NESTING = 8
SETTINGS = {
    "report_level": 5,
    "halt_level": 5,
    "warning_stream": None,  # replaced per call by a buffer
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "_disable_config": True,
    "doctitle_xform": False,
    "syntax_highlight": "none",
    "input_encoding": "unicode",
}


_SUBSTITUTION_DEFINITION = re.compile(r"^\.\. \|(?P<name>[^|\n]+)\|[ \t]+[\w:.+-]+::(?P<body>[^\n]*)$", re.MULTILINE)
_SUBSTITUTION_REFERENCE = re.compile(r"\|(?P<name>[^|\s](?:[^|\n]*[^|\s])?)\|")


def with_nested_substitutions(source: str) -> str:
    """``source`` with a blank definition for each substitution that another substitution's definition
    uses but the page never defines (Sphinx sites define such ones, ``|br|`` for a line break, in their
    configuration). docutils cannot resolve an undefined one nested in a definition and stops with an
    error; a blank stands in for what the site's configuration would have put there."""
    defined = {_normal(m.group("name")) for m in _SUBSTITUTION_DEFINITION.finditer(source)}
    nested = {
        _normal(ref.group("name"))
        for definition in _SUBSTITUTION_DEFINITION.finditer(source)
        for ref in _SUBSTITUTION_REFERENCE.finditer(definition.group("body"))
    }
    missing = sorted(nested - defined)
    if not missing:
        return source
    return source + "\n\n" + "\n".join(f".. |{name}| unicode:: U+0020" for name in missing) + "\n"


def _normal(name: str) -> str:
    """A substitution name as docutils compares them: case and runs of whitespace ignored."""
    return " ".join(name.lower().split())


@dataclass(frozen=True)
class RstPage:
    """The page's text as described above, and its first top-level section title."""

    text: str
    title: str


def rst_to_text(source: str, depth: int = 0) -> RstPage:
    """``source`` (reStructuredText) as plain text; ``depth`` counts directive bodies parsed again."""
    from docutils.core import publish_doctree

    source = with_nested_substitutions(source)
    doctree = publish_doctree(source, settings_overrides={**SETTINGS, "warning_stream": io.StringIO()})
    writer = _Writer(depth)
    writer.children(doctree, level=1)
    return RstPage("\n\n".join(b for b in writer.blocks if b.strip()), writer.title)


class _Writer:
    def __init__(self, depth: int) -> None:
        self.blocks: list[str] = []
        self.title = ""
        self.depth = depth
        self.lead = ""  # an empty version note, put before the next paragraph it dates

    def children(self, node: nodes.Element, level: int, prefix: str = "") -> None:
        for child in node.children:
            self.block(child, level, prefix)

    def block(self, node: nodes.Node, level: int, prefix: str = "") -> None:
        from docutils import nodes

        if isinstance(node, nodes.section):
            self.children(node, level + 1)
        elif isinstance(node, nodes.title):
            self._title(node, level)
        elif isinstance(node, nodes.paragraph | nodes.term | nodes.line | nodes.attribution):
            self.blocks.append(prefix + self.lead + inline_text(node))
            self.lead = ""
        elif isinstance(node, nodes.literal_block | nodes.doctest_block):
            self._code(node)
        elif isinstance(node, nodes.comment | nodes.target | nodes.substitution_definition | nodes.raw):
            return
        elif isinstance(node, nodes.topic) and "contents" in node.get("classes", []):
            return  # a table of contents (``.. contents:: List of hooks``): no section, its entries repeat the headings
        elif isinstance(node, nodes.Element):
            self._element(node, level, prefix)

    def _element(self, node: nodes.Element, level: int, prefix: str) -> None:
        from docutils import nodes

        if isinstance(node, nodes.list_item):
            self._item(node, level, prefix or "- ")
        elif isinstance(node, nodes.definition_list_item | nodes.option_list_item):
            self._term_item(node, level)
        elif isinstance(node, nodes.field):
            name = inline_text(node.children[0])
            self.children(node.children[1], level, f"{name}: ")
        elif isinstance(node, nodes.Admonition):
            self._admonition(node, level)
        elif isinstance(node, nodes.row):
            self.blocks.append(" | ".join(_cell_text(entry) for entry in node.children))
        elif isinstance(node, nodes.rubric):
            self.blocks.append(f"{'#' * max(1, min(level, 6))} {inline_text(node)}")
        elif isinstance(node, nodes.system_message):
            self._unknown(node)
        else:
            self.children(node, level, prefix)

    def _title(self, node: nodes.Element, level: int) -> None:
        heading = inline_text(node)
        if level == 2 and not self.title:
            self.title = heading
        self.blocks.append(f"{'#' * max(1, min(level - 1, 6))} {heading}")

    def _item(self, node: nodes.Element, level: int, prefix: str) -> None:
        for n, child in enumerate(node.children):
            self.block(child, level, prefix if n == 0 else "")

    def _term_item(self, node: nodes.Element, level: int) -> None:
        """A definition or option list item: its term (``term : classifier``, or the options with their
        arguments, ``-q, --quiet``) on the line above its first paragraph, one block, so a chunk never
        parts an option from what it does; the rest of its definition after it."""
        from docutils import nodes

        if isinstance(node, nodes.option_list_item):  # its own options only, not a list nested in its description
            groups = [c for c in node.children if isinstance(c, nodes.option_group)]
            term = ", ".join(_option_text(o) for group in groups for o in group.children)
        else:
            term = " : ".join(inline_text(c) for c in node.children if isinstance(c, nodes.term | nodes.classifier))
        body = next((c for c in node.children if isinstance(c, nodes.definition | nodes.description)), None)
        rest = list(body.children) if body is not None else []
        if rest and isinstance(rest[0], nodes.paragraph):
            self.blocks.append(f"{term}\n{inline_text(rest.pop(0))}")
        elif term:
            self.blocks.append(term)
        for child in rest:
            self.block(child, level)

    def _admonition(self, node: nodes.Element, level: int) -> None:
        from docutils import nodes

        titles = [c for c in node.children if isinstance(c, nodes.title)]
        name = inline_text(titles[0]) if titles else node.tagname.replace("_", " ").capitalize()
        body = [c for c in node.children if not isinstance(c, nodes.title)]
        self.blocks.append(f"{name}:")
        for child in body:
            self.block(child, level)

    def _code(self, node: nodes.Element) -> None:
        self.blocks.append(fenced(node.astext(), next((c for c in node.get("classes", []) if c != "code"), "")))

    def _unknown(self, node: nodes.Element) -> None:
        """A Sphinx directive docutils does not know, written from its source kept in the error."""
        from docutils import nodes

        sources = [c.astext() for c in node.children if isinstance(c, nodes.literal_block)]
        said = next((c.astext() for c in node.children if isinstance(c, nodes.paragraph)), "")
        if sources and said.startswith("Malformed table"):
            self.blocks.extend(malformed_table_rows(sources[0]))
            return
        match = _DIRECTIVE.match(sources[0]) if sources else None
        if match is None:
            return
        name = match.group("name").rsplit(":", 1)[-1]
        args, body = match.group("args").strip(), _dedent(_OPTIONS.sub("", match.group("body")))
        if name in SILENT and not (name in DOCUMENTED and body.strip()):
            return
        if name in CODE_DIRECTIVES:
            self.blocks.append(fenced(body, args.split(" ", 1)[0] if name != "doctest" else "pycon"))
            return
        if name in VERSION_NOTES:
            if body:
                self.blocks.append(f"{VERSION_NOTES[name]} {args}: {_flat(body, self.depth)}")
            else:
                self.lead = f"{VERSION_NOTES[name]} {args}: "
            return
        if args:
            self.blocks.append(args)
        if body.strip() and self.depth < MAX_NESTING:
            self.blocks.append(rst_to_text(body, self.depth + 1).text)


def _option_text(option: nodes.Element) -> str:
    """``--week N`` (or ``--week=N``): an option's string and argument as written."""
    return "".join(child.astext() for child in option.children)


def _flat(body: str, depth: int) -> str:
    """A short directive body (a version note's sentence) as one paragraph of text."""
    if depth >= MAX_NESTING:
        return " ".join(body.split())
    return " ".join(rst_to_text(body, depth + 1).text.split())


def _dedent(text: str) -> str:
    lines = text.split("\n")
    widths = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(widths, default=0)
    return "\n".join(line[cut:] for line in lines).strip("\n")


def inline_text(node: nodes.Node) -> str:
    """The reader's text of an inline run: an unknown (Sphinx) role as its text, a reference as its text, a
    footnote or citation reference as nothing (the note itself is kept where the page puts it)."""
    from docutils import nodes

    if isinstance(node, nodes.problematic):
        return role_text(node.astext())
    if isinstance(node, nodes.system_message):
        return ""  # docutils' complaint about a Sphinx role in a table cell, not the page's text
    if isinstance(node, nodes.Text):
        return str(node)
    if isinstance(node, nodes.Element):
        parts: list[str] = []
        for child in node.children:
            if isinstance(child, nodes.footnote_reference | nodes.citation_reference):
                parts[-1:] = [part.rstrip() for part in parts[-1:]]  # "Cannon [#]_." reads "Cannon."
                continue
            parts.append(inline_text(child))
        return " ".join("".join(parts).split())
    return ""


def malformed_table_rows(source: str) -> list[str]:
    """A table docutils could not parse (a cell running into the column margin), as Sphinx shows it: its
    source. Written as rows of cells joined by `` | `` like a parsed table, rule lines left out, roles as
    their text: a grid table's cells are between ``|``, a simple table's between runs of two spaces."""
    rows = []
    for line in source.splitlines():
        if not line.strip() or not line.strip(" =-+|:"):
            continue
        body = line.strip()
        cells = body.strip("|").split("|") if body.startswith("|") else re.split(r" {2,}", body)
        text = " | ".join(_INLINE_ROLE.sub(lambda m: role_text(m.group()), c.strip()) for c in cells if c.strip())
        rows.append(text)
    return rows


def _cell_text(entry: nodes.Element) -> str:
    """A table cell's paragraphs on one line."""
    return " ".join(text for text in (inline_text(child) for child in entry.children) if text)


def role_text(source: str) -> str:
    """``:role:`text <target>``` → ``text``; ``:role:`~a.b.name``` → ``name``; anything else unchanged."""
    match = _ROLE.match(source.strip())
    if match is None:
        return source
    body = match.group("body")
    explicit = re.match(r"^(?P<text>.+?)\s*<[^<>]+>$", body, re.DOTALL)
    if explicit:
        return explicit.group("text")
    body = body.lstrip("!")
    return body.rsplit(".", 1)[-1] if body.startswith("~") else body
