"""MDX (Docusaurus, Astro Starlight, Nextra) and Quarto pages as the Markdown their readers see.

Both dialects are Markdown with extra syntax a Markdown parser would index as text:

* **MDX** adds ESM ``import``/``export`` statements, JSX components (``<Tabs>``, ``<TabItem label="npm">``,
  ``<Card title="…" />``), ``{…}`` expressions and ``{/* … */}`` comments; indentation inside a component is
  layout, not an indented code block. Statements, comments and expressions are left out; a component's tags
  are left out and its children kept (their text is the page's).
* **Quarto** adds fenced divs (``::: {.callout-note}`` … ``:::``), shortcodes (``{{< include … >}}``,
  ``{{< video … >}}``) and Pandoc attributes after headings, links and spans (``## Setup {#sec-setup}``,
  ``[text]{.smallcaps}``). Fence lines, shortcodes and attributes are left out; a div's content is kept.
  Docusaurus admonitions (``:::tip Title`` … ``:::``) are fenced divs too, so MDX pages drop their fence lines
  the same way, and so do Markdown pages (:func:`without_div_fences`: VitePress and Starlight write the same
  containers in ``.md`` files).

Fenced code blocks are kept byte for byte in both (a Quarto cell ```` ```{python} ```` is a fenced block).
The result is then read as Markdown (:func:`kgrag.documents.markdown_text.markdown_to_text`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")  # MDX indents fences inside components
_DIV_FENCE = re.compile(r"^[ \t]*:{3,}(?:[ \t]*[^\s:].*)?$")  # indented inside MDX components too
_ESM = re.compile(r"^(?:import|export)\b")
_COMPONENT_TAG = re.compile(r"</?[A-Z][\w.]*(?:\s[^<>]*?)?/?>|<>|</>", re.DOTALL)
"""A JSX component's opening, closing or self-closing tag (names start with a capital; ``<>`` fragments):
HTML tags (lower case) are left to the Markdown parser."""
_MDX_COMMENT = re.compile(r"\{/\*.*?\*/\}", re.DOTALL)
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
_SHORTCODE = re.compile(r"\{\{<.*?>\}\}", re.DOTALL)
_HEADING_ATTRIBUTES = re.compile(r"^( {0,3}#{1,6}[ \t].*?)[ \t]*\{[^{}]*\}[ \t]*$")
_SPAN_ATTRIBUTES = re.compile(r"\[([^\[\]\n]+)\]\{[^{}\n]*\}")
_LINK_ATTRIBUTES = re.compile(r"(\]\([^()\n]*\))\{[^{}\n]*\}")


def _chunks(source: str) -> Iterator[tuple[bool, str]]:
    """The source cut into runs of lines outside fenced code (``False``) and fenced blocks (``True``), each
    with its line ends; an unclosed fence runs to the end, as CommonMark reads it."""
    run: list[str] = []
    fence = ""
    for line in source.splitlines(keepends=True):
        match = _FENCE.match(line)
        if not fence and match:
            if run:
                yield False, "".join(run)
            run, fence = [line], match.group(1)
        elif fence and line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
            run.append(line)
            yield True, "".join(run)
            run, fence = [], ""
        else:
            run.append(line)
    if run:
        yield bool(fence), "".join(run)


def _outside_code(source: str, rewrite: Callable[[str], str]) -> str:
    return "".join(text if code else rewrite(text) for code, text in _chunks(source))


def _without_div_fences(text: str) -> str:
    return "".join("\n" if _DIV_FENCE.match(line) else line for line in text.splitlines(keepends=True))


def _without_esm(text: str) -> str:
    """Leaves out ``import``/``export`` statements that start a line, up to where their brackets close."""
    kept: list[str] = []
    depth, in_statement = 0, False
    for line in text.splitlines(keepends=True):
        if not in_statement and _ESM.match(line):
            in_statement, depth = True, 0
        if in_statement:
            depth += line.count("{") + line.count("(") + line.count("[")
            depth -= line.count("}") + line.count(")") + line.count("]")
            if depth <= 0 and not line.rstrip().endswith((",", "=", "=>")):
                in_statement = False
            kept.append("\n")
            continue
        kept.append(line)
    return "".join(kept)


def _protected(text: str, rewrite: Callable[[str], str]) -> str:
    """``rewrite`` applied to ``text`` with inline code spans kept out of its reach."""
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(match.group(0))
        return f"\x00{len(spans) - 1}\x00"

    held = rewrite(_INLINE_CODE.sub(hold, text))
    return re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], held)


def _without_expressions(text: str) -> str:
    """Leaves out ``{…}`` expressions (balanced braces on one line); MDX text cannot hold a bare brace."""
    previous = None
    while previous != text:
        previous, text = text, re.sub(r"\{[^{}\n]*\}", "", text)
    return text


def _without_components(text: str) -> str:
    """Leaves out JSX component tags; a line that held nothing but tags becomes a blank line, so the children
    around it stay paragraphs of their own."""
    marked = _COMPONENT_TAG.sub(lambda m: "\x01" + "\n" * m.group(0).count("\n"), text)
    lines = []
    for line in marked.splitlines(keepends=True):
        bare = line.replace("\x01", "")
        lines.append("\n" if "\x01" in line and not bare.strip() else bare)
    return "".join(lines)


def without_div_fences(source: str) -> str:
    """``source`` (Markdown) without the fence lines of containers outside code blocks: VitePress's ``::: tip``,
    Docusaurus's and Starlight's ``:::note`` and ``:::caution[Title]``, Pandoc's ``::: {.class}``; their content is
    kept."""
    return _outside_code(source, _without_div_fences)


def mdx_to_markdown(source: str) -> str:
    """``source`` (an MDX page without front matter) as Markdown (module docstring)."""

    def rewrite(text: str) -> str:
        text = _MDX_COMMENT.sub("", _without_esm(text))
        text = _protected(text, lambda t: _without_expressions(_without_components(t)))
        return _without_div_fences(text)

    return _outside_code(source, rewrite)


def quarto_to_markdown(source: str) -> str:
    """``source`` (a Quarto page without front matter) as Markdown (module docstring)."""

    def rewrite(text: str) -> str:
        text = _without_div_fences(_SHORTCODE.sub("", text))
        lines = [_HEADING_ATTRIBUTES.sub(r"\1", line) for line in text.split("\n")]
        text = "\n".join(lines)
        return _protected(text, lambda t: _LINK_ATTRIBUTES.sub(r"\1", _SPAN_ATTRIBUTES.sub(r"\1", t)))

    return _outside_code(source, rewrite)
