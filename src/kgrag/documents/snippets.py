"""PyMdown snippet includes (``--8<--``) replaced by the text they include, as MkDocs renders the page.

A page of a MkDocs site may pull text from other files: ``--8<-- "file.md"`` on a line of its own, a block
of file names between two ``--8<--`` lines, a line range (``file.py:3:7``, ``file.md::3``, ``:-2``;
several joined by ``,``) or a named section (``file.py:name``, the lines between ``--8<-- [start:name]``
and ``--8<-- [end:name]``). As ``pymdownx.snippets`` does, includes are resolved before anything else
(inside fenced code too, where a whole example file is usually included), indented as their notation is,
nested includes resolved in turn (at most :data:`MAX_DEPTH` deep; a file already being included is not
included again). Section markers never reach the text; an escaped notation (``;--8<--``) and one whose
file name starts with ``;`` are left out.

Where a file is looked for (:mod:`kgrag.documents.mkdocs_site`): the ``base_path`` entries of the site's
snippet options, the site root (the folder holding ``mkdocs.yml``) and the including file's own folder;
without a site config, that folder, the folder being indexed and the one above it (where ``mkdocs``
usually runs). Whatever is found must lie inside the folder being indexed (:func:`reading_within`; links
followed): a path leading out of it is refused, never read. URL snippets are never downloaded. A file
that is missing, refused, not text, or over the size left is left out and named in
:attr:`Expanded.left_out`, so the page is indexed without it and the run says so.

:attr:`Expanded.watched` lists every file the page's text depends on with its size and modification time
(``absent`` for a place a missing include was looked for), so that re-indexing reads the page again when
one of them changes (:func:`includes_changed`).
"""

from __future__ import annotations

import json
import re
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path

from kgrag.core.errors import DocumentError
from kgrag.documents.mkdocs_site import MkDocsSite, find_site
from kgrag.documents.reading import decode_text, read_limited

MAX_DEPTH = 16
ABSENT = "absent"
INCLUDES = "includes"  # metadata: JSON {path: "size:mtime_ns" | "absent"}
LEFT_OUT = "includes_left_out"  # metadata: JSON ["target (reason)", …]
WITHIN = "includes_within"  # metadata: the folder includes could be read from

_SINGLE = re.compile(r"""^(?P<indent>[ \t]*)(?P<escape>;*)-+8<-+[ \t]+(?P<q>["'])(?P<spec>.*?)(?P=q)[ \t]*$""")
_DELIMITER = re.compile(r"^(?P<indent>[ \t]*)(?P<escape>;*)-+8<-+[ \t]*$")
_SECTION = re.compile(r";*-+8<-+[ \t]+\[(?P<kind>start|end):(?P<name>[^\]\s]*)\]")
_SECTION_LINE = re.compile(
    r"^[ \t]*(?:<!--|#|//|/\*|;|--|%|\{#)?[ \t]*;*-+8<-+[ \t]+\[(?:start|end):[^\]\s]*\][ \t]*(?:-->|\*/|#\})?[ \t]*$"
)
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.IGNORECASE)
_RANGES = re.compile(r"^(-?\d*)(?::(-?\d*))?(?:,(-?\d*)(?::(-?\d*))?)*$")
_SECTION_NAME = re.compile(r"^[A-Za-z_][\w-]*$")

_within: ContextVar[tuple[Path, ...]] = ContextVar("kgrag_include_roots", default=())


@contextmanager
def reading_within(roots: Sequence[Path]) -> Iterator[None]:
    """Within the block, includes are read only from inside ``roots`` (the folders being indexed; a file
    named on its own stands for its folder)."""
    resolved = tuple(_folder(Path(root)) for root in roots)
    token = _within.set(resolved)
    try:
        yield
    finally:
        _within.reset(token)


def current_roots() -> tuple[Path, ...]:
    """The roots set by the innermost :func:`reading_within` (for an engine that reads files elsewhere)."""
    return _within.get()


def _folder(path: Path) -> Path:
    resolved = path.resolve()
    return resolved if resolved.is_dir() else resolved.parent


@dataclass
class Expanded:
    """A page's text with its includes resolved, what it depends on and what was left out."""

    text: str
    watched: dict[str, str] = field(default_factory=dict)
    left_out: list[str] = field(default_factory=list)
    included: int = 0  # includes resolved, nested ones counted
    within: str = ""  # the folder includes could be read from

    def metadata(self) -> dict[str, str]:
        """The document metadata that records this (nothing for a page without includes)."""
        out = {INCLUDES: json.dumps(self.watched, sort_keys=True)} if self.watched else {}
        if self.left_out:
            out[LEFT_OUT] = json.dumps(self.left_out)
        if out:
            out[WITHIN] = self.within
        return out


def file_state(path: Path) -> str:
    """``size:mtime_ns`` of a file, or ``absent``: compared on the next run to see whether it changed."""
    try:
        stat = path.stat()
    except OSError:
        return ABSENT
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def includes_changed(metadata: dict[str, str]) -> bool:
    """Whether a file a stored page included (or looked for) changed since the page was read, or the folder
    includes may be read from is another one in this run (within :func:`reading_within`)."""
    within = metadata.get(WITHIN)
    if within is not None and _within.get() and within != str(_boundary(Path(metadata.get("path", "")), None)):
        return True
    raw = metadata.get(INCLUDES)
    if not raw:
        return False
    try:
        watched = json.loads(raw)
    except ValueError:
        return True
    return not isinstance(watched, dict) or any(file_state(Path(p)) != state for p, state in watched.items())


def left_out_of(metadata: dict[str, str]) -> list[str]:
    """The includes a page was read without (``target (reason)``), from its metadata."""
    try:
        found = json.loads(metadata.get(LEFT_OUT, "[]"))
    except ValueError:
        return []
    return [str(item) for item in found] if isinstance(found, list) else []


def expand_snippets(text: str, page: Path, max_bytes: int) -> Expanded:
    """``text`` (the Markdown of ``page``, a resolved path) with its includes resolved (see the module)."""
    if "8<-" not in text:
        return Expanded(text)
    site = find_site(page.parent)
    resolver = _Resolver(site, _boundary(page, site), max_bytes)
    lines = resolver.lines(text.split("\n"), page, (page,), depth=0, top=True)
    return Expanded("\n".join(lines), resolver.watched, resolver.left_out, resolver.included, str(resolver.boundary))


def _boundary(page: Path, site: MkDocsSite | None) -> Path:
    """The outermost folder being indexed that holds ``page``; outside an indexing run, the page's site root
    (or its own folder)."""
    roots = _within.get()
    found = next((root for root in sorted(roots, key=lambda r: len(r.parts)) if _inside(page, root)), None)
    if found is not None:
        return found
    site = site if site is not None else find_site(page.parent)
    return site.root if site is not None else page.parent


@dataclass
class _Resolver:
    site: MkDocsSite | None
    boundary: Path
    budget: int
    watched: dict[str, str] = field(default_factory=dict)
    left_out: list[str] = field(default_factory=list)
    included: int = 0

    def lines(self, lines: list[str], origin: Path, stack: tuple[Path, ...], depth: int, top: bool) -> list[str]:
        """``lines`` of ``origin`` with every notation replaced; ``top``: the page itself (a line that
        mentions a section marker in its prose stays; in an included file every marker line goes)."""
        out: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            i += 1
            if "8<-" not in line:
                out.append(line)
                continue
            single = _SINGLE.match(line)
            if single is not None:
                if not single.group("escape") and not single.group("spec").lstrip().startswith(";"):
                    out.extend(self.include(single.group("spec"), single.group("indent"), origin, stack, depth))
                continue
            delimiter = _DELIMITER.match(line)
            if delimiter is not None:
                if not delimiter.group("escape"):
                    i = self.block(lines, i, origin, stack, depth, out)
                continue
            if (_SECTION_LINE.match(line) if top else _SECTION.search(line)) is None:
                out.append(line)
        return out

    def block(self, lines: list[str], i: int, origin: Path, stack: tuple[Path, ...], depth: int,
              out: list[str]) -> int:  # fmt: skip
        """A block of file names from line ``i`` up to its closing ``--8<--``; returns the line after it."""
        end = next((j for j in range(i, len(lines)) if _DELIMITER.match(lines[j])), None)
        if end is None:
            self.left_out.append(f"{origin.name}: a --8<-- block that is never closed (its opening line left out)")
            return i
        for name in lines[i:end]:
            spec = name.strip()
            if not spec:
                out.append("")
            elif not spec.startswith(";"):
                indent = name[: len(name) - len(name.lstrip(" \t"))]
                out.extend(self.include(spec, indent, origin, stack, depth))
        return end + 1

    def include(self, spec: str, indent: str, origin: Path, stack: tuple[Path, ...], depth: int) -> list[str]:
        """The lines ``spec`` includes, indented by ``indent``; [] (and the reason noted) when it cannot be."""
        spec = spec.strip()
        if _URL.match(spec):
            return self.refuse(spec, "a URL: snippets are never downloaded")
        name, selection = _split(spec)
        found = self.locate(name, origin)
        if isinstance(found, str):
            return self.refuse(spec, found)
        if found in stack:
            return self.refuse(spec, "already being included (a cycle)")
        if depth + 1 > MAX_DEPTH:
            return self.refuse(spec, f"nested deeper than {MAX_DEPTH} includes")
        if self.watched.get(str(found), "").startswith("0:"):
            return []  # an empty file includes nothing (and is no error)
        try:
            content = decode_text(found, read_limited(found, max(self.budget, 1) / (1024 * 1024)))
        except DocumentError as exc:
            return self.refuse(spec, str(exc).removeprefix(f"{found}: ").split(";", 1)[0])
        self.budget -= len(content.encode("utf-8"))
        self.included += 1
        lines = content.removesuffix("\n").split("\n")
        if selection is not None:
            picked = _select(lines, selection, self.site is not None and self.site.dedent_subsections)
            if picked is None:
                return self.refuse(spec, f"no section {selection!r} in the file")
            lines = picked
        lines = self.lines(lines, found, (*stack, found), depth + 1, top=False)
        return [indent + line if line.strip() else line for line in lines]

    def refuse(self, spec: str, reason: str) -> list[str]:
        self.left_out.append(f"{spec} ({reason})")
        return []

    def locate(self, name: str, origin: Path) -> Path | str:
        """The file ``name`` names (inside the boundary), or why there is none."""
        if Path(name).is_absolute():
            return "an absolute path, outside the folder being indexed: not read"
        outside = False
        for base in self.bases(origin):
            candidate = base.parent / name if base.is_file() and base.name == name else base / name
            if base.is_file() and base.name != name:
                continue
            state = file_state(candidate)
            resolved = candidate.resolve()
            if not _inside(resolved, self.boundary):
                outside = outside or state != ABSENT
                continue
            self.watched[str(resolved)] = file_state(resolved)
            if self.watched[str(resolved)] != ABSENT and resolved.is_file():
                return resolved
        if outside:
            return "outside the folder being indexed: not read"
        return "not found"

    def bases(self, origin: Path) -> list[Path]:
        """Where includes of ``origin`` are looked for, in order, each once."""
        if self.site is not None:
            found = [*self.site.base_paths, self.site.root, origin.parent]
        else:
            found = [origin.parent, self.boundary, self.boundary.parent]
        return list(dict.fromkeys(found))


def _split(spec: str) -> tuple[str, str | None]:
    """``file.md:3:7`` → (``file.md``, ``3:7``); ``file.py:name`` → (``file.py``, ``name``)."""
    name, colon, tail = spec.partition(":")
    while colon and not (_RANGES.match(tail) or _SECTION_NAME.match(tail)):
        head, colon, tail = tail.partition(":")
        name = f"{name}:{head}"
    return (name, tail) if colon and tail else (spec.rstrip(":") if colon else spec, None)


def _select(lines: list[str], selection: str, dedent: bool) -> list[str] | None:
    """The lines a range list or a section name picks (markers left out); None for a section not found."""
    if _RANGES.match(selection):
        picked: list[str] = []
        for part in selection.split(","):
            start_text, _, end_text = part.partition(":")
            start = _line_number(start_text, len(lines), 1)
            end = _line_number(end_text, len(lines), len(lines)) if ":" in part else len(lines)
            picked.extend(lines[start - 1 : end])
    else:
        bounds = _section(lines, selection)
        if bounds is None:
            return None
        picked = [line for line in lines[bounds[0] : bounds[1]] if not _SECTION.search(line)]
    return textwrap.dedent("\n".join(picked)).split("\n") if dedent else picked


def _line_number(text: str, total: int, default: int) -> int:
    if not text:
        return default
    number = int(text)
    if number < 0:
        number = total + number + 1
    return min(max(number, 1), max(total, 1))


def _section(lines: list[str], name: str) -> tuple[int, int] | None:
    """(first line after the start marker, the end marker's line) of section ``name``."""
    start = None
    for number, line in enumerate(lines):
        for marker in _SECTION.finditer(line):
            if marker.group("name") != name:
                continue
            if marker.group("kind") == "start" and start is None:
                start = number + 1
            elif marker.group("kind") == "end" and start is not None:
                return start, number
    return (start, len(lines)) if start is not None else None


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents
