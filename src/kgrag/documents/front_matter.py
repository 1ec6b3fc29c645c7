"""Markdown front matter: the YAML (``---``) or TOML (``+++``) block static-site generators put at the top,
or the ``Key: value`` lines Pelican and MultiMarkdown read there.

Front matter is metadata (layout, tags, dates), not prose: indexed as text it puts ``layout: post`` into
the first chunk of every page. The block is recognised only when it opens on the first line, closes on a
line of its own and parses as a mapping — a Markdown file that merely starts with a ``---`` rule keeps
its text. A string ``title`` in it becomes the document's title. The opening ``---`` may name the block's
language, as Eleventy and gray-matter read it: ``---yaml``, ``---toml``, ``---json`` (parsed as such) and
``---js`` (a JavaScript object or module, not parsed: its text is left out all the same, and a ``title``
written as a string literal near the left margin titles the page). Metadata lines are recognised only when
the first one is ``Title: …`` and every line up to the first blank one is ``Key: value`` (one word before
the colon): a page that opens with a sentence such as "Note: …" keeps it.

A page whose front matter redirects readers elsewhere (``redirect_to:``, ``redirect:``) and that has no text
of its own is a redirect stub, not a page (:func:`is_redirect_stub`).
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from kgrag.documents.yaml_text import text_dates_loader

MAX_FRONT_MATTER_CHARS = 64 * 1024
"""A longer block is not front matter but text that happens to start with a rule; parsing stays cheap."""

_OPENING = re.compile(r"\A(---|\+\+\+)[ \t]*([A-Za-z]*)[ \t]*\n")
_YAML_CLOSE = re.compile(r"^(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.MULTILINE)
_METADATA_LINES = re.compile(r"\A[Tt]itle:[ \t]*([^\n]*)\n(?:[A-Za-z][\w-]*:[^\n]*\n)*[ \t]*(?:\n|\Z)")
"""Pelican's and MultiMarkdown's metadata: ``Title: …`` first, ``Key: value`` lines, a blank line."""
_JS_TITLE = re.compile(
    r"""^[ \t]{0,2}(?:\{[ \t]*|(?:const|let|var)[ \t]+)?["']?title["']?[ \t]*[:=][ \t]*(["'`])(.*?)\1""", re.MULTILINE
)
"""A top-level ``title: "…"`` property (or ``const title = "…"``) of a ``---js`` block."""
REDIRECT_KEYS = frozenset({"redirect_to", "redirect", "redirect_url", "redirectto", "redirecturl"})
"""Front-matter keys (lower-cased) that send a page's readers elsewhere: jekyll-redirect-from's ``redirect_to``
and the ``redirect``/``redirect_url`` keys themes and Eleventy sites read the same way."""

Fields = Mapping[object, object]


@dataclass(frozen=True)
class FrontMatter:
    """The text after the front matter, the front matter's title ("" when it has none) and its fields (empty
    for metadata lines and for a ``---js`` block, which is not parsed)."""

    body: str
    title: str
    fields: Fields = field(default_factory=dict)


def split_front_matter(text: str) -> FrontMatter:
    """``text`` without a leading front-matter block or metadata lines, and their ``title``.

    Text without (valid) front matter comes back unchanged with an empty title.
    """
    head = text[: MAX_FRONT_MATTER_CHARS + 8]
    opening = _OPENING.match(head)
    if opening is not None:
        return _fenced(text, head, opening)
    lines = _METADATA_LINES.match(head)
    if lines is not None:
        return FrontMatter(text[lines.end() :].lstrip("\n"), " ".join(lines.group(1).split()))
    return FrontMatter(text, "")


def is_redirect_stub(front: FrontMatter) -> bool:
    """Whether the page is front matter that redirects (:data:`REDIRECT_KEYS`, a non-empty value) and no text:
    a site generator turns it into a redirect, not a page."""
    if front.body.strip():
        return False
    keys = {str(key).lower(): value for key, value in front.fields.items()}
    return any(keys.get(key) for key in REDIRECT_KEYS)


def _fenced(text: str, head: str, opening: re.Match[str]) -> FrontMatter:
    """A ``---``/``+++`` block, by the language its opening line names (module docstring)."""
    fence, language = opening.group(1), opening.group(2).lower()
    parse = _PARSERS.get((fence, language))
    if parse is None:
        return FrontMatter(text, "")
    closing = _YAML_CLOSE if parse is _parse_yaml else re.compile(rf"^{re.escape(fence)}[ \t]*(?:\n|\Z)", re.M)
    close = closing.search(head, opening.end())
    if close is None:
        return FrontMatter(text, "")
    block = head[opening.end() : close.start()]
    fields = parse(block)
    if fields is None:
        return FrontMatter(text, "")
    title = fields.get("title") if language not in ("js", "javascript") else _js_title(block)
    clean = " ".join(title.split()) if isinstance(title, str) else ""
    return FrontMatter(text[close.end() :].lstrip("\n"), clean, fields)


def _parse_yaml(block: str) -> dict[object, object] | None:
    import yaml  # imported here: most files have no front matter, and queries never read one

    try:
        fields = yaml.load(block, Loader=text_dates_loader()) if block.strip() else {}  # a SafeLoader
    except (yaml.YAMLError, RecursionError):  # not YAML, or nested deeper than the composer recurses
        return None
    return fields if isinstance(fields, dict) else None


def _parse_toml(block: str) -> dict[object, object] | None:
    try:
        fields: dict[object, object] = {key: value for key, value in tomllib.loads(block).items()}
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    return fields


def _parse_json(block: str) -> dict[object, object] | None:
    try:
        fields = json.loads(block) if block.strip() else {}
    except (ValueError, RecursionError):
        return None
    return fields if isinstance(fields, dict) else None


def _parse_js(block: str) -> dict[object, object] | None:
    """A ``---js`` block is JavaScript, which is not run: it has no fields to read."""
    return {}


def _js_title(block: str) -> str:
    match = _JS_TITLE.search(block)
    return match.group(2) if match else ""


_PARSERS: dict[tuple[str, str], Callable[[str], dict[object, object] | None]] = {
    ("---", ""): _parse_yaml,
    ("---", "yaml"): _parse_yaml,
    ("---", "yml"): _parse_yaml,
    ("---", "toml"): _parse_toml,
    ("---", "json"): _parse_json,
    ("---", "js"): _parse_js,
    ("---", "javascript"): _parse_js,
    ("+++", ""): _parse_toml,
}
