"""MkDocs / Material syntax that is not Markdown, turned into Markdown before parsing.

Material for MkDocs writes admonitions (``!!! note "Title"``, collapsible ``???`` / ``???+``) and content
tabs (``=== "Python"``) as a marker line over a body indented by four spaces. A Markdown parser reads the
marker as a paragraph and the body as an indented code block, so the page would be indexed with ``!!!``
markers and its prose as code, and a fenced block inside a tab would lose its fences. Here the marker line
becomes its title (or tab label) on a line of its own and the body is dedented by one level, recursively,
so nested blocks and the code inside them come out as ordinary Markdown with their fences whole.

Also removed, as they are directives to the site generator and not text: attribute lists (``{ .annotate }``,
``{ #anchor }``), annotation markers in code comments (``# (1)!``), snippet includes (``--8<-- "file"``,
whose content lives in another file) and abbreviation definitions (``*[HTML]: …``). Lines inside fenced code
are left alone, except for the annotation markers.
"""

from __future__ import annotations

import re

_MARKER = re.compile(r"^(?P<indent>[ \t]*)(?P<kind>!!!|\?\?\?\+?|===\+?)[ \t]*(?P<rest>.*)$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_ATTR_LIST = re.compile(r"[ \t]*\{:?[ \t]*[.#:][^{}\n]*\}[ \t]*$")
_ANNOTATION = re.compile(r"[ \t]*(?:#|//|--|/\*)[ \t]*\(\d+\)!?[ \t]*(?:\*/)?[ \t]*$")
_SNIPPET = re.compile(r"^[ \t]*;?-{1,3}8<-{1,3}")
_ABBREVIATION = re.compile(r"^\*\[[^\]]+\]:")
_QUOTED = re.compile(r"""^(?P<type>[\w-]*)(?:[ \t]+[\w -]*?)?[ \t]*(?:"(?P<title>[^"]*)")?[ \t]*$""")
TAB = 4


def unwrap_mkdocs(text: str) -> str:
    """``text`` with MkDocs admonitions and tabs unwrapped and generator directives removed."""
    return "\n".join(_unwrap(text.split("\n"), depth=0))


def _width(line: str) -> int:
    """Indentation of ``line`` in columns, a tab counting as four."""
    stripped = line.lstrip(" \t")
    return len(line[: len(line) - len(stripped)].expandtabs(TAB))


def _dedent(line: str, columns: int) -> str:
    expanded = line.expandtabs(TAB)
    return expanded[min(columns, _width(expanded)) :]


def _unwrap(lines: list[str], depth: int) -> list[str]:
    out: list[str] = []
    fence = ""
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if fence:
            out.append(_strip_annotation(line))
            opened = _FENCE.match(line)
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        opened = _FENCE.match(line)
        if opened:
            fence = opened.group(1)
            out.append(line)
            continue
        marker = _MARKER.match(line) if depth < 32 else None
        if marker is None or not _is_block(marker):
            if not _SNIPPET.match(line) and not _ABBREVIATION.match(line):
                out.append(_ATTR_LIST.sub("", line))
            continue
        indent = _width(line)
        body: list[str] = []
        while i < len(lines) and (not lines[i].strip() or _width(lines[i]) >= indent + TAB):
            body.append(_dedent(lines[i], TAB))
            i += 1
        while body and not body[-1].strip():
            body.pop()
        title = _title(marker.group("kind"), marker.group("rest"))
        if title:
            out.extend([" " * indent + title, ""])
        out.extend(_unwrap(body, depth + 1))
        out.append("")
    return out


def _is_block(marker: re.Match[str]) -> bool:
    """A tab marker names its label in quotes, an admonition its type: ``=====`` under a heading is neither."""
    rest = marker.group("rest")
    if marker.group("kind").startswith("==="):
        return rest.startswith('"')
    return bool(re.match(r"[\w-]+", rest))


def _title(kind: str, rest: str) -> str:
    """What a marker line says: a tab's label, an admonition's title (its type, capitalised, when it has
    none; nothing for an explicit empty title ``""``)."""
    rest = _ATTR_LIST.sub("", rest).strip()
    if kind.startswith("==="):
        return rest.strip('"')
    parsed = _QUOTED.match(rest)
    if parsed is None:
        return rest
    if parsed.group("title") is not None:
        return parsed.group("title").strip()
    return parsed.group("type").replace("-", " ").capitalize()


def _strip_annotation(line: str) -> str:
    """A code line without a Material annotation marker comment (``# (1)!``)."""
    return _ANNOTATION.sub("", line)
