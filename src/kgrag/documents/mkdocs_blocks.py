"""MkDocs / Material syntax that is not Markdown, turned into Markdown before parsing.

Material for MkDocs writes admonitions (``!!! note "Title"``, collapsible ``???`` / ``???+``) and content
tabs (``=== "Python"``) as a marker line over a body indented by four spaces. A Markdown parser reads the
marker as a paragraph and the body as an indented code block, so the page would be indexed with ``!!!``
markers and its prose as code, and a fenced block inside a tab would lose its fences. Here the marker line
becomes its title (or tab label) on a line of its own and the body is dedented by one level, recursively,
so nested blocks and the code inside them come out as ordinary Markdown with their fences whole.

PyMdown's generic blocks (``/// version-added | v2.11`` … ``///``, ``/// details | Summary``) are unwrapped the
same way; a version note leads its first sentence ("Added in v2.11: Named type aliases are …"), so the
version and the fact it dates stay in one sentence.

Also removed, as they are directives to the site generator and not text: attribute lists (``{ .annotate }``,
``{ #anchor }``), annotation markers in code comments (``# (1)!``), snippet includes (``--8<-- "file"``,
whose content lives in another file) and abbreviation definitions (``*[HTML]: …``). Lines inside fenced code
are left alone, except for the annotation markers. Macro calls (``{{ conversion_table }}``) are Jinja, left
out with Liquid's tags once the blocks are unwrapped (:mod:`kgrag.documents.liquid`).
"""

from __future__ import annotations

import re

_MARKER = re.compile(r"^(?P<indent>[ \t]*)(?P<kind>!!!|\?\?\?\+?|===\+?)[ \t]*(?P<rest>.*)$")
_BLOCK = re.compile(r"^(?P<slashes>/{3,})[ \t]*(?P<type>[\w-]+)[ \t]*(?:\|[ \t]*(?P<title>.*?))?[ \t]*$")
_VERSION_BLOCKS = {"version-added": "Added in", "version-changed": "Changed in", "deprecated": "Deprecated in"}
_PLAIN = re.compile(r"^[ \t]{0,3}[\w\[(\"']")  # a line of prose (not a heading, fence, list, table or block)
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
        block = _BLOCK.match(line) if depth < 32 else None
        if block is not None:
            i = _generic_block(lines, i, block, depth, out)
            continue
        marker = _MARKER.match(line) if depth < 32 else None
        if marker is not None and _is_block(marker):
            i = _indented_block(lines, i, marker, depth, out)
        elif not (_SNIPPET.match(line) or _ABBREVIATION.match(line)):
            out.append(_ATTR_LIST.sub("", line))
    return out


def _indented_block(lines: list[str], i: int, marker: re.Match[str], depth: int, out: list[str]) -> int:
    """An admonition or tab whose marker is the line before ``i``: its title, then its body dedented one
    level; returns the first line after the body."""
    indent = _width(marker.group(0))
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
    return i


def _generic_block(lines: list[str], i: int, block: re.Match[str], depth: int, out: list[str]) -> int:
    """A PyMdown block (``/// version-added | v2.11`` … ``///``) from line ``i`` on, written to ``out`` as its
    lead-in (a version note joins its first sentence) and its body; returns the line after its close."""
    closing = re.compile(rf"^{block.group('slashes')}[ \t]*$")
    body: list[str] = []
    while i < len(lines) and not closing.match(lines[i]):
        body.append(lines[i])
        i += 1
    kind, title = block.group("type"), (block.group("title") or "").strip()
    text = _unwrap(body, depth + 1)
    lead = _version_lead(kind, title)
    if lead and not any(line.strip() for line in body):  # an empty note dates the paragraph after it
        following = next((j for j in range(i + 1, len(lines)) if lines[j].strip()), None)
        if following is not None and _PLAIN.match(lines[following]):
            lines[following] = f"{lead}: {lines[following].lstrip()}"
            return i + 1
    if lead:
        text = [f"{lead}:", *text]
    elif kind not in ("html", "caption", "attr") and (title or kind):
        text = [title or kind.replace("-", " ").capitalize(), "", *text]
    out.extend(["", *text, ""])
    return i + 1


def _version_lead(kind: str, title: str) -> str:
    """ "Added in v2.11" for ``/// version-added | v2.11``; "" for a block that is not a version note."""
    if kind == "deprecated-removed" and title:
        versions = title.split()
        return f"Deprecated in {versions[0]}" + (f", removed in {versions[1]}" if len(versions) > 1 else "")
    if kind in _VERSION_BLOCKS:
        return f"{_VERSION_BLOCKS[kind]} {title}".strip()
    return ""


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
