"""Which files of a folder are not documents: ignore files, templates, generated and vendored files.

A documentation folder holds more than its pages: the site generator's templates (a Jinja ``main.html``
is not a page), its output (``_build/``, ``site/``), bundled third-party code (``node_modules/``,
``vendor/``). Indexed, they put template tags and minified code into passages. When walking a folder:

* ``.kgragignore`` and ``.gitignore`` (``documents.ignore_files``) in the folder or any folder below it
  are read in gitignore syntax (``pathspec``), each matching paths relative to the folder it lies in;
* with ``documents.skip_generated`` (the default), folders named like generated or vendored output or
  like templates (:data:`GENERATED_DIRS`), minified files and source maps (:data:`GENERATED_FILES`), and
  HTML files that are templates are skipped: they hold Jinja/Liquid tags (``{% extends %}``, ``{% block %}``,
  a site's own ``{% page … %}``), outputs (``{{ page.title }}``, ``{{ x | upcase }}``) or Handlebars blocks
  (``{{#if}}``, ``{{> partial}}``) outside ``<pre>``/``<code>``/``<script>``, in the text or in attributes
  (``href="{{ url }}"``) alike; a rendered page shows template syntax only as code.

* Redirect stubs (Markdown or HTML that is front matter sending readers elsewhere, ``redirect_to: …``, and
  nothing else: :func:`kgrag.documents.front_matter.is_redirect_stub`) are skipped: the site generator makes
  them redirects, not pages, and they hold no text to index.

* Markdown files of a MkDocs site that MkDocs would not render as pages (:meth:`kgrag.documents.mkdocs_site.
  MkDocsSite.is_page`: excluded by ``exclude_docs``, or kept in a snippet ``base_path`` folder outside
  ``docs_dir``) are skipped: their text reaches the index through the pages that include them.

All are counted, never silent (:class:`Ignored`); a file the user names is always read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathspec import PathSpec

GENERATED_DIRS = frozenset(
    "node_modules bower_components vendor vendored third_party third-party site-packages _build _site "
    "_static _templates templates theme themes overrides partials layouts _layouts _includes".split()
)
GENERATED_FILES = ("*.min.js", "*.min.css", "*.min.html", "*.map", "*.bundle.js")
SNIFF_BYTES = 65_536
STUB_SUFFIXES = (".md", ".markdown", ".mdx", ".html", ".htm")
_BOM = b"\xef\xbb\xbf"
_REDIRECT_KEY = re.compile(rb"^[ \t]*[\"']?redirect", re.MULTILINE | re.IGNORECASE)
_TEMPLATE_TAG = re.compile(
    rb"\{%-?\s*[A-Za-z_][\w-]*\b[^{}]{0,500}?%\}"  # any tag, closed: Liquid sites define tags of their own
    rb"|\{\{-?\s*[A-Za-z_$][\w.$]*(?:\[[^\]{}]*\])*\s*(?:\|[^{}]{0,200}?)?-?\}\}"  # an output: a variable, filters
    rb"|\{\{[#>/^]\s*[\w.-]+",  # a Handlebars block or partial
)
_VERBATIM = re.compile(rb"<(pre|code|script|textarea)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)


@dataclass
class Ignored:
    """Files passed over on purpose while walking: by an ignore file, and as templates/generated/vendored."""

    by_ignore_file: int = 0
    generated: int = 0
    not_pages: int = 0  # Markdown files of a MkDocs site that MkDocs does not render (snippet sources)
    redirects: int = 0  # redirect stubs: front matter that sends readers elsewhere, and no text
    examples: list[str] = field(default_factory=list)  # the first few, for the message
    other_types: dict[str, int] = field(default_factory=dict)  # suffix → files no include pattern matches

    def add_other_type(self, path: Path) -> None:
        """A file of a walked folder that ``documents.include`` does not match (``.po``, ``.svg``); hidden
        files (``.gitignore``) are not counted."""
        if not path.name.startswith("."):
            suffix = path.suffix.lower() or "(no suffix)"
            self.other_types[suffix] = self.other_types.get(suffix, 0) + 1

    def add(self, path: Path, generated: bool, not_page: bool = False, redirect: bool = False) -> None:
        if redirect:
            self.redirects += 1
        elif not_page:
            self.not_pages += 1
        elif generated:
            self.generated += 1
        else:
            self.by_ignore_file += 1
        if len(self.examples) < 3:
            self.examples.append(str(path))


@dataclass(frozen=True)
class IgnoreRules:
    """How a walk passes over files (see the module docstring)."""

    ignore_files: Sequence[str] = (".kgragignore", ".gitignore")
    skip_generated: bool = True


@dataclass(frozen=True)
class Spec:
    """One ignore file's patterns, matched relative to the folder it lies in."""

    base: Path
    spec: PathSpec

    def matches(self, path: Path, is_dir: bool) -> bool:
        try:
            relative = path.relative_to(self.base).as_posix()
        except ValueError:
            return False
        return bool(self.spec.match_file(relative + "/" if is_dir else relative))


def folder_specs(folder: Path, rules: IgnoreRules) -> list[Spec]:
    """The ignore files of ``folder`` (unreadable ones are passed over: they are not documents either)."""
    from pathspec import GitIgnoreSpec

    specs: list[Spec] = []
    for name in rules.ignore_files:
        try:
            lines = (folder / name).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        specs.append(Spec(folder, GitIgnoreSpec.from_lines(lines)))
    return specs


def ignored(path: Path, is_dir: bool, specs: Sequence[Spec]) -> bool:
    """Whether an ignore file above ``path`` matches it (the deepest file that has a say wins)."""
    return any(spec.matches(path, is_dir) for spec in reversed(specs))


def generated_dir(name: str, rules: IgnoreRules) -> bool:
    return rules.skip_generated and name.lower() in GENERATED_DIRS


def generated_file(path: Path, rules: IgnoreRules) -> bool:
    """A minified file, a source map, or an HTML template (tags sniffed in its first 64 KiB, outside code)."""
    if not rules.skip_generated:
        return False
    from fnmatch import fnmatchcase

    name = path.name.lower()
    if any(fnmatchcase(name, pattern) for pattern in GENERATED_FILES):
        return True
    if path.suffix.lower() not in (".html", ".htm"):
        return False
    head = _head(path)
    return head is not None and is_template(head)


def redirect_stub(path: Path) -> bool:
    """A Markdown or HTML file that is front matter sending readers elsewhere and nothing else (module
    docstring); past its first bytes, only a file that opens with a front-matter fence is read, and a stub fits
    in :data:`SNIFF_BYTES`."""
    if path.suffix.lower() not in STUB_SUFFIXES:
        return False
    head = _head(path, _BOM, (b"---", b"+++"))
    if head is None or len(head) > SNIFF_BYTES or not _REDIRECT_KEY.search(head):
        return False  # most pages: no front matter, or none that names a redirect, so none is parsed
    from kgrag.documents.front_matter import is_redirect_stub, split_front_matter
    from kgrag.documents.reading import normalize_newlines

    text = normalize_newlines(head.removeprefix(_BOM).decode("utf-8", "replace"))
    return is_redirect_stub(split_front_matter(text))


def _head(path: Path, bom: bytes = b"", opening: tuple[bytes, ...] = (b"",)) -> bytes | None:
    """The first :data:`SNIFF_BYTES` bytes of ``path`` and one more, when the file opens with one of ``opening``
    (after ``bom``); None otherwise, or when it cannot be read (the loader reports why)."""
    try:
        with path.open("rb") as handle:
            start = handle.read(len(bom) + max(len(o) for o in opening))
            if not start.removeprefix(bom).startswith(opening):
                return None
            return start + handle.read(SNIFF_BYTES + 1 - len(start))
    except OSError:
        return None


def is_template(markup: bytes) -> bool:
    """Whether HTML holds template tags (Jinja, Liquid, Handlebars) outside ``<pre>``/``<code>`` blocks."""
    return _TEMPLATE_TAG.search(_VERBATIM.sub(b"", markup)) is not None
