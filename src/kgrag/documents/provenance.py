"""Where a passage comes from: its file (or record), the document's title, and the section and page
around it when the document says.

A chunk is an exact slice of its document's text (``char_start``/``char_end``), so the section is the
last markdown heading at or before the chunk's start, found in the chunk itself or the chunks before it,
outside fenced code (:mod:`kgrag.documents.headings`: a ``# comment`` in a code block is no section; a
passage that runs into later sections lists those too), and the page follows from the page start
offsets a loader recorded in the document's metadata (:data:`PAGE_STARTS`, comma-separated character
offsets, e.g. PDFs). A page is cited as printed when the loader recorded the pages' labels
(:data:`PAGE_LABELS`: a manual's front matter "i", "ii", then "1" where the first chapter starts), which is
how a reader finds it in the printed book and in a PDF viewer; its number in the file stays alongside.
Nothing here reads a file again.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePath

from typing_extensions import TypedDict

from kgrag.core.records import ChunkRecord, DocumentRecord
from kgrag.documents.headings import HeadingLine, covered_text, heading_lines

PAGE_STARTS = "page_starts"
"""Document metadata key: character offsets where pages 1, 2, ... start, comma-separated."""
PAGE_LABELS = "page_labels"
"""Document metadata key: the label each page prints ("i", "ii", "1", ...), one per page of the file in its
order, empty pages included, as a JSON list; only where the labels are not the page numbers."""


class SourceDict(TypedDict):
    """A :class:`SourceRef` as JSON (``span`` and ``sections`` as lists)."""

    chunk_id: str
    doc_id: str
    source: str
    title: str
    section: str | None
    page: int | None
    page_label: str | None
    span: list[int] | None
    sections: list[str]


@dataclass(frozen=True)
class SourceRef:
    """The provenance of one chunk as a reader wants it: file or record, title, section, page."""

    chunk_id: str
    doc_id: str
    source: str
    title: str
    section: str | None = None
    page: int | None = None
    """The page's number in the file, 1 for the first."""
    span: tuple[int, int] | None = None
    sections: tuple[str, ...] = ()
    """Every section the passage touches, in order: ``section`` and the headings inside the passage."""
    page_label: str | None = None
    """The page as printed ("iii", "12"), :func:`page_label`; where None, :attr:`shown_page` gives the number."""

    def to_dict(self) -> SourceDict:
        return SourceDict(
            chunk_id=self.chunk_id,
            doc_id=self.doc_id,
            source=self.source,
            title=self.title,
            section=self.section,
            page=self.page,
            page_label=self.shown_page,
            span=list(self.span) if self.span else None,
            sections=list(self.sections),
        )

    def label(self, cwd: Path | None = None) -> str:
        """One line for a terminal: ``docs/a.md · "Title" · § Section · p. 3`` (path relative to ``cwd``
        when the file lies under it); a passage running into later sections names them after a "+"
        (``§ Install + Upgrade``: sections side by side, not one inside the other)."""
        parts = [display_source(self.source, cwd)]
        if self.title and self.title != Path(self.source.partition("#")[0]).stem:
            parts.append(f'"{self.title}"')
        shown = [s for s in (self.sections or ((self.section,) if self.section else ())) if s != self.title]
        if shown:
            parts.append("§ " + " + ".join(shown[:4]) + (" + …" if len(shown) > 4 else ""))
        if self.shown_page is not None:
            parts.append(f"p. {self.shown_page}")
        return " · ".join(parts)

    @property
    def shown_page(self) -> str | None:
        """The page as a citation names it: its printed label, else its number; None when unknown."""
        return self.page_label or (str(self.page) if self.page is not None else None)


def display_source(source: str, cwd: Path | None = None) -> str:
    """``source`` relative to ``cwd`` (default: the current directory) when it lies below it, else as stored."""
    path, sep, record = source.partition("#")
    base = str(cwd or Path.cwd())
    try:
        relative = os.path.relpath(path, base)
    except ValueError:  # another drive (Windows)
        return source
    if relative.startswith(os.pardir) or os.path.isabs(relative):
        return source
    return relative + sep + record


def _lines_through(chunk: ChunkRecord, chunks: Sequence[ChunkRecord]) -> list[HeadingLine]:
    """The heading lines of the document's chunks up to ``chunk`` (rebuilt as one text, so fences pair)."""
    start, text = covered_text((c.char_start, c.text) for c in chunks if c.ord <= chunk.ord)
    return heading_lines(text, start)


def _last_at_start(chunk: ChunkRecord, lines: Sequence[HeadingLine]) -> str | None:
    found = [line for line in lines if line.offset <= chunk.char_start]
    return found[-1].text.strip() if found else None


def _inside(chunk: ChunkRecord, lines: Sequence[HeadingLine]) -> list[str]:
    return [line.text.strip() for line in lines if chunk.char_start < line.offset < chunk.char_end]


def section_of(target: ChunkRecord, chunks: Sequence[ChunkRecord]) -> str | None:
    """The last markdown heading starting at or before ``target``'s first character; ``chunks`` are the
    document's chunks (any order; only those up to ``target`` are read)."""
    return _last_at_start(target, _lines_through(target, chunks))


def authored_title(title: str, source: str) -> str:
    """A document's title when its author gave it one; "" when the loaders titled it by its file's name
    (or, for a record of a JSON file, ``source`` ending ``#KEY``, by the file's name and the record's key)."""
    path, _, key = source.replace("\\", "/").partition("#")
    name = PurePath(path)
    given = " ".join(title.split())
    return "" if given in (name.stem, name.name, f"{name.stem} #{key}") else given


_CHANGELOG_NAME = re.compile(
    r"^(?:(?:changes?|changelog|news|history|whatsnew|what-?s-?new|release-?notes|relnotes)(?:[-_ ]?v?\d[\w.-]*)?"
    r"|release[-_ ]?v?\d[\w.-]*)$",
    re.I,
)
_CHANGELOG_TITLE = re.compile(
    r"^(?:(?:[A-Z]|\d+)(?:\.\d+)*\.?\s+)?"  # a section number ("E.14.")
    r"(?:(?:release|version)\s+v?\d+(?:[.-]\d+)*(?:\s+release\s+notes)?|release\s+notes\b.*|change\s?log\b.*"
    r"|what'?s\s+new\b.*|changes\s+in\s+(?:version\s+)?v?\d.*)$",
    re.I,
)
_CHANGELOG_FOLDER = frozenset({"changes", "changelog", "changelogs", "whatsnew", "release-notes", "releasenotes"})
_RELEASES_FOLDER = frozenset({"releases", "release", "versions"})
_VERSION_STEM = re.compile(r"^v?\d+(?:[._-]\d+)+[\w.-]*$", re.I)


def changelog_source(source: str) -> bool:
    """Whether a document is a changelog or release notes by its path: a file named ``CHANGES``,
    ``CHANGELOG``, ``NEWS``, ``HISTORY``, ``whatsnew``, ``release-notes``, alone or with a version
    (``changelog-2.3.rst``, ``whatsnew-4.0.rst``), a file named ``release`` with a version
    (``release-15-7.html``), or any file whose own folder is named so
    (``changes/7.1.rst``, ``whatsnew/version9.rst``), or a file named by a version in a folder named
    ``releases``, ``release`` or ``versions`` (``releases/v6.2.0.rst``). Folders further up are not read:
    they may be where the user keeps the whole corpus."""
    path = PurePath(source.replace("\\", "/").partition("#")[0])
    folder = path.parent.name.lower()
    release = folder in _RELEASES_FOLDER and bool(_VERSION_STEM.match(path.stem))
    return bool(_CHANGELOG_NAME.match(path.stem)) or folder in _CHANGELOG_FOLDER or release


def changelog_title(title: str) -> bool:
    """Whether a document's title names release notes: "Release 15.7" (also numbered, "E.14. Release
    15.7"), "Version 2.3", "Release Notes …", "Changelog", "What's New in …", "Changes in version 4"."""
    return bool(_CHANGELOG_TITLE.match(" ".join(title.split())))


def page_of(document: DocumentRecord, offset: int) -> int | None:
    """The page holding character ``offset``, by its number in the file (1 for the first), when the loader
    recorded page starts."""
    raw = document.metadata.get(PAGE_STARTS)
    if not raw:
        return None
    try:
        starts = [int(part) for part in str(raw).split(",") if part.strip()]
    except ValueError:
        return None
    page = sum(1 for start in starts if start <= offset)
    return page or None


def page_label(document: DocumentRecord, page: int | None) -> str | None:
    """The label ``page`` (its number in the file, :func:`page_of`) prints, from :data:`PAGE_LABELS`; the
    number itself where the document records no labels or none for that page, None for no page."""
    if page is None:
        return None
    try:
        labels = json.loads(document.metadata.get(PAGE_LABELS) or "[]")
    except ValueError:
        labels = []
    label = labels[page - 1] if isinstance(labels, list) and 0 < page <= len(labels) else None
    return label.strip() if isinstance(label, str) and label.strip() else str(page)


def page_starts(pages: Sequence[str], separator: str) -> str:
    """The :data:`PAGE_STARTS` value for a text made of the non-empty ``pages`` joined with ``separator``
    (an empty page starts where the next one does, so later pages keep their numbers)."""
    starts, at = [], 0
    for text in pages:
        starts.append(at)
        if text:
            at += len(text) + len(separator)
    return ",".join(str(s) for s in starts)


def source_ref(chunk: ChunkRecord, document: DocumentRecord, chunks: Sequence[ChunkRecord]) -> SourceRef:
    """The :class:`SourceRef` of ``chunk`` in ``document`` (``chunks``: the document's chunks, for the section)."""
    lines = _lines_through(chunk, chunks)
    section = _last_at_start(chunk, lines)
    sections = tuple(dict.fromkeys([*([section] if section else []), *_inside(chunk, lines)]))
    page = page_of(document, chunk.char_start)
    return SourceRef(
        chunk_id=chunk.id,
        doc_id=document.id,
        source=document.source,
        title=document.title,
        section=section,
        page=page,
        span=(chunk.char_start, chunk.char_end),
        sections=sections,
        page_label=page_label(document, page),
    )
