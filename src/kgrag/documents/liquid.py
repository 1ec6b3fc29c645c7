"""Liquid (Jekyll, Eleventy) and Jinja/Nunjucks template syntax in a Markdown page, read as the rendered page.

Jekyll and Eleventy run a Markdown page through a template engine before Markdown reads it: ``{% … %}`` tags
and ``{{ … }}`` outputs are markup a reader never sees. Indexed as written they fill passages with
``{% include … %}``, and a link whose target is a tag (``[guide]({% link guide.md %})``) is no link to a
Markdown parser, so its whole markup stays. Outside code the page is read as the engine renders it, as far
as that can be known without the site's data:

* ``{% comment %}…{% endcomment %}`` (and Jinja's ``{# … #}``) is left out with its content;
* ``{% raw %}`` and ``{% endraw %}`` are left out, and what lies between them is kept as written;
* a tag or output inside a link target, a link reference definition or an HTML tag
  (``href="{% link … %}"``) is left out, so that the link reads as its text, as every other link does;
* a tag whose one argument is a quoted string that reads as words (``{% slack_channel "people-ops" %}``,
  ``{% trans "Save" %}``) is that string: a custom tag with one such argument shows it in some form. A
  built-in tag, and a tag whose name says it points somewhere (``include``, ``link``, ``page``, ``image``,
  ``icon``…), is left out: its argument is a path or a name, not prose;
* every other tag is left out; the text between block tags (``{% if %}``…``{% endif %}``, ``{% alert %}``)
  stays, since the page shows some of it and which part cannot be known;
* ``{{ … }}`` outputs (Hugo's ``{{< … >}}`` shortcodes too) are left out: their value comes from the site's
  data, and the name of the variable (``site.description``) is not what the reader sees.

Code is never touched: fenced and indented code blocks (where the Markdown parser finds them), code spans
and HTML ``<pre>``/``<code>`` elements keep their tags, because pages that document templates show them
there. A tag alone on its line leaves an empty line, as the engine leaves it. A ``comment`` or ``raw``
that the page never closes is read as a tag of its own, so that a typo does not hide the rest of the page.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

_CONSTRUCT = re.compile(
    r"\{%-?\s*+(?P<name>[A-Za-z_][\w-]*+)?(?P<args>(?:(?!\{%|%\}).){0,2000}?)-?%\}"
    r"|\{\{(?:(?!\{\{|\}\}).){0,2000}?\}\}"
    r"|\{#[\s-](?:(?!\{#|#\}).){0,2000}?#\}",
    re.DOTALL,
)
"""A tag (its name and arguments), an output, or a Jinja comment, at most 2,000 characters long. None holds
another of its kind's opening, so each is looked for up to the next one at most; the spaces and the name
after ``{%`` are taken whole (possessive), so a failed match is not tried again with a shorter name."""
_MARKERS = ("{%", "{{", "{#")
_BACKTICKS = re.compile(r"`+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")
_HTML_CODE_OPEN = re.compile(r"<(pre|code)\b", re.IGNORECASE)
_HTML_CODE_CLOSE = re.compile(r"</(pre|code)\s*>", re.IGNORECASE)
_HELD = re.compile(r"\x00(\d+)\x00")
_TARGET = re.compile(r"(?:\]\([ \t]*<?|^[ \t]{0,3}\[[^\]\n]+\]:[ \t]*<?)[^\s()<>]*\Z|<[A-Za-z][^<>]*\Z", re.M)
"""The text written so far ends inside a link target, a reference definition's target, or an HTML tag."""
_ONE_STRING = re.compile(r"""\s*(["'])([^"'\n]*)\1\s*""")
_WORDS = re.compile(r"[^\W\d_][\w '’&,!?-]{0,79}")
"""A string that reads as words: no path, file name, URL or key (no ``/``, ``.``, ``:``, ``#``, ``=``)."""
_BUILT_IN = frozenset(
    "assign block break call capture case continue cycle decrement echo elif else elsif extends filter for from "
    "highlight if ifchanged import increment layout liquid load macro post_url section set tablerow unless "
    "when with".split()
)
_POINTER = re.compile(
    r"include|render|link|url|path|page|asset|image|img|icon|file|download|embed|import|layout|partial|video|"
    r"youtube|svg|bundle|script|style|css|template",
    re.IGNORECASE,
)
"""Tag names that say the tag stands for a resource (a file, a page, a picture), not for words."""
_TAIL = 300  # characters of written text kept to tell a link target or HTML tag from prose


def without_liquid(source: str, indented_code: bool = True) -> str:
    """``source`` (a Markdown page without front matter) as its template engine renders it, as far as that is
    known (module docstring); ``indented_code`` as :func:`kgrag.documents.markdown_text.markdown_to_text`
    reads indented lines."""
    if not any(marker in source for marker in _MARKERS):
        return source
    from kgrag.documents.markdown_text import code_line_ranges

    lines = source.split("\n")
    code = [False] * len(lines)
    for start, end in code_line_ranges(source, indented_code):
        code[start:end] = [True] * (min(end, len(lines)) - start)
    reader = _Reader(closed=_closed_blocks(source))
    start = 0
    for index in range(1, len(lines) + 1):
        if index == len(lines) or code[index] != code[start]:
            segment = "\n".join(lines[start:index])
            if code[start]:
                reader.code(segment)
            else:
                reader.prose(segment)
            start = index
    return "\n".join(reader.segments)


def _closed_blocks(source: str) -> frozenset[str]:
    """Of ``comment`` and ``raw``, those the page closes somewhere (an unclosed one is read as a plain tag)."""
    return frozenset(n for n in ("comment", "raw") if re.search(rf"\{{%-?\s*end{n}\s*-?%\}}", source))


@dataclass
class _Reader:
    """Reads the page's segments in order; a comment or raw block may run across code blocks."""

    closed: frozenset[str]
    segments: list[str] = field(default_factory=list)
    mode: str = ""  # "comment" or "raw" inside such a block
    written: list[str] = field(default_factory=list)  # the current prose segment's output
    tail: str = ""

    def code(self, text: str) -> None:
        """A code block: left out inside a comment, else kept as written."""
        self.segments.append("" if self.mode == "comment" else text)
        self.tail = ""

    def prose(self, text: str) -> None:
        """Text outside code blocks, its code spans and ``<pre>``/``<code>`` elements held out of reach."""
        held: list[str] = []
        pieces: list[str] = []
        end = 0
        for start, stop in _code_spans(text):
            pieces += [text[end:start], f"\x00{len(held)}\x00"]
            held.append(text[start:stop])
            end = stop
        text = "".join(pieces) + text[end:]
        self.written = []
        position = 0
        for match in _CONSTRUCT.finditer(text):
            position = self._construct(text, position, match)
        if self.mode != "comment":
            self._write(text[position:])
        self.segments.append(_HELD.sub(lambda m: held[int(m.group(1))], "".join(self.written)))

    def _construct(self, text: str, position: int, match: re.Match[str]) -> int:
        """Writes the text before ``match`` and what the construct renders as; returns where reading goes on."""
        name = (match.group("name") or "").lower() if match.group(0).startswith("{%") else ""
        if self.mode:
            if name != "end" + self.mode:
                return position  # inside a comment or raw block: nothing is read as a tag
            if self.mode == "raw":
                self._write(text[position : match.start()])
            self.mode = ""
            return match.end()
        self._write(text[position : match.start()])
        if name in self.closed:
            self.mode = name
        else:
            self._write(self._rendered(match, name))
        return match.end()

    def _rendered(self, match: re.Match[str], name: str) -> str:
        """What a tag outside comments renders as: its one quoted argument when that reads as words and the tag
        stands in prose (not in a link target or an HTML tag), else ""."""
        if not name or name in _BUILT_IN or _POINTER.search(name):
            return ""
        string = _ONE_STRING.fullmatch(match.group("args"))
        if string is None or not _WORDS.fullmatch(string.group(2).strip()) or _TARGET.search(self.tail):
            return ""
        return string.group(2).strip()

    def _write(self, text: str) -> None:
        if text:
            self.written.append(text)
            self.tail = (self.tail + text)[-_TAIL:]


def _code_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of the code spans and HTML ``<pre>``/``<code>`` elements of ``text``, in order, none inside
    another: a run of backticks closes at the next run as long in the same paragraph (an unmatched run is
    text), an element at the next closing tag of its name. Found by pairing positions, never by scanning on
    from each opening, so a page of unmatched backticks or tags costs no more than its length."""
    spans = sorted(_backtick_spans(text) + _element_spans(text))
    kept: list[tuple[int, int]] = []
    for start, end in spans:
        if not kept or start >= kept[-1][1]:
            kept.append((start, end))
    return kept


def _backtick_spans(text: str) -> list[tuple[int, int]]:
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    blanks = [m.start() for m in _BLANK_LINE.finditer(text)]
    by_length: dict[int, list[int]] = {}
    for index, (start, end) in enumerate(runs):
        by_length.setdefault(end - start, []).append(index)
    spans: list[tuple[int, int]] = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        same = by_length[end - start]
        later = bisect_right(same, index)
        blank = bisect_right(blanks, start)
        paragraph_end = blanks[blank] if blank < len(blanks) else len(text)
        if later < len(same) and runs[same[later]][0] < paragraph_end:
            spans.append((start, runs[same[later]][1]))
            index = same[later] + 1
        else:
            index += 1
    return spans


def _element_spans(text: str) -> list[tuple[int, int]]:
    closings: dict[str, list[tuple[int, int]]] = {}
    for match in _HTML_CODE_CLOSE.finditer(text):
        closings.setdefault(match.group(1).lower(), []).append((match.start(), match.end()))
    spans: list[tuple[int, int]] = []
    for match in _HTML_CODE_OPEN.finditer(text):
        if spans and match.start() < spans[-1][1]:
            continue
        closing = closings.get(match.group(1).lower(), [])
        later = bisect_right(closing, (match.end(), -1))
        if later < len(closing):
            spans.append((match.start(), closing[later][1]))
    return spans
