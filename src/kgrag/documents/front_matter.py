"""Markdown front matter: the YAML (``---``) or TOML (``+++``) block static-site generators put at the top,
or the ``Key: value`` lines Pelican and MultiMarkdown read there.

Front matter is metadata (layout, tags, dates), not prose: indexed as text it puts ``layout: post`` into
the first chunk of every page. The block is recognised only when it opens on the first line, closes on a
line of its own and parses as a mapping — a Markdown file that merely starts with a ``---`` rule keeps
its text. A string ``title`` in it becomes the document's title. Metadata lines are recognised only when
the first one is ``Title: …`` and every line up to the first blank one is ``Key: value`` (one word before
the colon): a page that opens with a sentence such as "Note: …" keeps it.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass

from kgrag.documents.yaml_text import text_dates_loader

MAX_FRONT_MATTER_CHARS = 64 * 1024
"""A longer block is not front matter but text that happens to start with a rule; parsing stays cheap."""

_YAML = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_TOML = re.compile(r"\A\+\+\+[ \t]*\n(.*?\n)?\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)
_METADATA_LINES = re.compile(r"\A[Tt]itle:[ \t]*([^\n]*)\n(?:[A-Za-z][\w-]*:[^\n]*\n)*[ \t]*(?:\n|\Z)")
"""Pelican's and MultiMarkdown's metadata: ``Title: …`` first, ``Key: value`` lines, a blank line."""


@dataclass(frozen=True)
class FrontMatter:
    """The text after the front matter, and the front matter's title ("" when it has none)."""

    body: str
    title: str


def split_front_matter(text: str) -> FrontMatter:
    """``text`` without a leading YAML/TOML front-matter block or metadata lines, and their ``title``.

    Text without (valid) front matter comes back unchanged with an empty title.
    """
    head = text[: MAX_FRONT_MATTER_CHARS + 8]
    for pattern, parse in ((_YAML, _parse_yaml), (_TOML, _parse_toml)):
        match = pattern.match(head)
        if match is None:
            continue
        fields = parse(match.group(1) or "")
        if fields is None:
            return FrontMatter(text, "")
        title = fields.get("title")
        clean = " ".join(title.split()) if isinstance(title, str) else ""
        return FrontMatter(text[match.end() :].lstrip("\n"), clean)
    lines = _METADATA_LINES.match(head)
    if lines is not None:
        return FrontMatter(text[lines.end() :].lstrip("\n"), " ".join(lines.group(1).split()))
    return FrontMatter(text, "")


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
