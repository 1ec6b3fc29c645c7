"""Turn one file into documents, choosing the reader by file suffix.

Loaders are registered by suffix in the ``loader`` registry kind (:mod:`kgrag.core.builtins`); plug-ins
add formats through the ``kgrag.loaders`` entry-point group, and :func:`loader_registry` returns a fresh
registry per call, so no caller can change another caller's formats. Each loader gets the file's
bytes (already size-checked) and returns documents, or raises `DocumentError` saying what is wrong
and what to do; parsers' own exceptions never escape, because indexing must go on with the next
file.

The HTML, PDF and Word parsers (and the modules built on them) are imported inside their loaders:
together they take noticeable time to import, which commands that never read such a file (queries,
evaluation) should not pay.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from kgrag.config import DocumentsConfig
from kgrag.core.errors import DocumentError
from kgrag.core.registries import RegistryKind
from kgrag.core.registry import Registry
from kgrag.documents.front_matter import FrontMatter, is_redirect_stub, split_front_matter
from kgrag.documents.log_names import naming
from kgrag.documents.pdf_accents import copyright_signs, recompose_accents
from kgrag.documents.pdf_footnotes import page_text
from kgrag.documents.pdf_text import (
    code_comments_indented,
    dehyphenate,
    mark_headings,
    outline_by_page,
    page_labels,
    strip_running_lines,
    without_leaders,
)
from kgrag.documents.pdf_title import first_page_title, usable_metadata_title
from kgrag.documents.provenance import PAGE_LABELS, PAGE_STARTS, page_starts
from kgrag.documents.reading import decode_text, normalize_newlines, read_limited, require_text
from kgrag.documents.records import LoadedDocument

if TYPE_CHECKING:
    from docx.document import Document as WordDocument
    from docx.table import Table
    from docx.text.paragraph import Paragraph

Loader = Callable[[Path, bytes, DocumentsConfig], list[LoadedDocument]]

# Not provenance's heading pattern: this one also matches a heading of only spaces or tabs ("#   "),
# which then titles the document "" instead of a later heading or the file name; sharing one pattern
# would change that.
_MARKDOWN_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
_EXTRA_BLANK_LINES = re.compile(r"\n{3,}")


LOADERS: RegistryKind[Loader] = RegistryKind("loader")


READER_VERSION = "2026-12-04"
"""Changes whenever a built-in loader reads a file differently. A document stored by another version is read
again by the next ``kgrag index`` even though its file did not change, so that a reading fix reaches
workspaces indexed before it; when the text comes out the same, its chunks, vectors and graph are kept."""


def loader_registry() -> Registry[Loader]:
    """A fresh suffix → loader registry (lower-case suffixes with the dot), built-ins plus plug-ins."""
    return LOADERS.new()


def supported_suffixes() -> list[str]:
    """Suffixes :func:`load_path` can read, for messages and help text."""
    return sorted(loader_registry().names())


def load_path(path: Path, cfg: DocumentsConfig, loaders: Registry[Loader] | None = None) -> list[LoadedDocument]:
    """Documents of one file: one for most formats, one per record for .json/.jsonl.

    Raises `DocumentError` for unsupported, unreadable, oversized, binary, undecodable, empty or
    malformed files.
    """
    registry = loaders if loaders is not None else loader_registry()
    suffix = path.suffix.lower()
    if suffix not in registry:
        kind = f"file type {suffix!r}" if suffix else "file without an extension"
        raise DocumentError(
            f"{path}: unsupported {kind} (supported: {', '.join(sorted(registry.names()))}); "
            "convert it to a supported format or add it to documents.exclude"
        )
    loader = registry.load(suffix)
    data = read_limited(path, cfg.max_file_mb)
    with naming(path):  # a library's warning about this file says which file
        return loader(path.resolve(), data, cfg)


def _metadata(path: Path) -> dict[str, str]:
    fmt = {".markdown": "md", ".htm": "html"}.get(path.suffix.lower(), path.suffix.lower().lstrip("."))
    return {"format": fmt, "path": str(path)}


def load_plain(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """Plain text, kept verbatim; titled by a Markdown-style ``# heading`` if it has one, else the file name."""
    text = require_text(path, decode_text(path, data))
    heading = _MARKDOWN_HEADING.search(text)
    title = heading.group(1).strip() if heading else path.stem
    return [LoadedDocument.from_text(str(path), title, text, _metadata(path))]


def load_markdown(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """Markdown (MkDocs / Material included) as the reader sees it (:mod:`kgrag.documents.markdown_text`).

    Front matter (a YAML ``---`` or TOML ``+++`` block at the top) is metadata, not text: it is left out
    (:mod:`kgrag.documents.front_matter`). Snippet includes (``--8<-- "file"``) are replaced by the text
    they include (:mod:`kgrag.documents.snippets`); the files read and the includes left out are recorded
    in the metadata, so that a change to an included file re-reads the page. The title is the front
    matter's ``title``, else the first level-1 heading, else the file name: a sub-heading names a part of
    the page, not the page. Container fence lines (``::: tip``, ``:::note``) are left out, their content kept
    (:func:`kgrag.documents.markdown_dialects.without_div_fences`). Liquid and Jinja tags and outputs
    outside code (Jekyll, Eleventy, mkdocs-macros) are read as the rendered page reads
    (:mod:`kgrag.documents.liquid`).
    """
    from kgrag.documents.markdown_dialects import without_div_fences

    return _load_markdown_page(path, data, cfg, without_div_fences)


def load_mdx(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """MDX (Docusaurus, Astro Starlight, Nextra) read as Markdown without its imports, exports, expressions and
    component tags (:func:`kgrag.documents.markdown_dialects.mdx_to_markdown`), front matter and snippet
    includes as for Markdown."""
    from kgrag.documents.markdown_dialects import mdx_to_markdown

    return _load_markdown_page(path, data, cfg, mdx_to_markdown, indented_code=False)


def load_quarto(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """A Quarto page (``.qmd``) read as Markdown without its fenced-div lines, shortcodes and Pandoc
    attributes (:func:`kgrag.documents.markdown_dialects.quarto_to_markdown`); code cells stay code."""
    from kgrag.documents.markdown_dialects import quarto_to_markdown

    return _load_markdown_page(path, data, cfg, quarto_to_markdown)


def _load_markdown_page(
    path: Path,
    data: bytes,
    cfg: DocumentsConfig,
    dialect: Callable[[str], str] | None = None,
    indented_code: bool = True,
) -> list[LoadedDocument]:
    front = split_front_matter(require_text(path, decode_text(path, data)))
    try:
        return _markdown_page(path, front, cfg, dialect, indented_code)
    except DocumentError as exc:  # a failure is listed under the title the page gives itself
        exc.title = exc.title or front.title
        raise


def _markdown_page(
    path: Path, front: FrontMatter, cfg: DocumentsConfig, dialect: Callable[[str], str] | None, indented_code: bool
) -> list[LoadedDocument]:
    from kgrag.documents.markdown_text import markdown_to_text
    from kgrag.documents.snippets import expand_snippets

    body = _require_page(path, front)
    expanded = expand_snippets(body, path, int(cfg.max_file_mb * 1024 * 1024))
    try:
        source = dialect(expanded.text) if dialect is not None else expanded.text
        page = markdown_to_text(source, indented_code=indented_code)
    except Exception as exc:  # markdown-it bounds nesting itself; anything else is reported, never a crash
        raise DocumentError(f"{path}: cannot parse Markdown ({type(exc).__name__}: {exc}); exclude the file") from exc
    if not page.text.strip() and expanded.left_out:
        raise DocumentError(
            f"{path}: the page holds nothing but includes that were left out ({'; '.join(expanded.left_out)}); "
            "index a folder that holds the included files"
        )
    text = require_text(path, page.text, "the page's text")
    metadata = {**_metadata(path), **expanded.metadata()}
    return [LoadedDocument.from_text(str(path), front.title or page.h1 or path.stem, text, metadata)]


def _require_page(path: Path, front: FrontMatter) -> str:
    """The text after ``front``, or a `DocumentError` for a redirect stub or a page of front matter alone (a
    walk passes over redirect stubs: :mod:`kgrag.documents.ignore`; a file named on the command line gets here)."""
    if is_redirect_stub(front):
        raise DocumentError(
            f"{path}: a redirect stub (its front matter sends readers to another page), not a page; nothing to index"
        )
    return require_text(path, front.body, "the text after the front matter")


def load_rst(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """reStructuredText (Sphinx sources included) as the reader sees it (:mod:`kgrag.documents.rst_text`);
    titled by its first top-level section, else the file name."""
    from kgrag.documents.rst_text import rst_to_text

    source = require_text(path, decode_text(path, data))
    try:
        page = rst_to_text(source)
    except Exception as exc:  # docutils raises its own errors on broken markup; report, never crash indexing
        raise DocumentError(
            f"{path}: cannot parse reStructuredText ({type(exc).__name__}: {exc}); fix the markup or exclude the file"
        ) from exc
    text = require_text(path, page.text, "the page's text")
    return [LoadedDocument.from_text(str(path), page.title or path.stem, text, _metadata(path))]


def load_html(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """The main content of an HTML page without navigation, sidebars or permalinks, headings as Markdown
    headings and ``<pre>`` blocks verbatim (:mod:`kgrag.documents.html_text`); titled by its ``<title>``
    less a site suffix, else its first ``<h1>``. A page of a Jekyll or Eleventy site opens with front matter
    (:mod:`kgrag.documents.front_matter`), which is left out and whose ``title`` titles the page."""
    from kgrag.documents.html_charset import html_utf8_bytes

    markup = html_utf8_bytes(path, data)
    front = None
    if markup.startswith((b"---", b"+++")):
        front = split_front_matter(markup.decode("utf-8", "surrogateescape"))
        markup = front.body.encode("utf-8", "surrogateescape")
    try:
        if front is not None:
            _require_page(path, front)
        return _html_page(path, markup, front.title if front else "")
    except DocumentError as exc:  # a failure is listed under the title the page gives itself
        exc.title = exc.title or (front.title if front else "")
        raise


def _html_page(path: Path, markup: bytes, title: str) -> list[LoadedDocument]:
    from kgrag.documents.html_text import TooDeep, html_to_text

    try:
        page = html_to_text(markup)
    except TooDeep as exc:
        raise DocumentError(
            f"{path}: {exc}, deeper than real pages nest, so it is skipped rather than parsed in quadratic "
            "time; flatten the markup or exclude the file"
        ) from exc
    except Exception as exc:  # lxml may raise on odd markup; report it, never crash indexing
        raise DocumentError(
            f"{path}: cannot parse HTML ({type(exc).__name__}: {exc}); fix the markup or exclude the file"
        ) from exc
    text = require_text(path, normalize_newlines(page.text), "the page's visible text")
    return [LoadedDocument.from_text(str(path), title or page.title or path.stem, text, _metadata(path))]


def _tidy(text: str) -> str:
    """Collapse runs of spaces inside lines and of blank lines, as extracted text is full of both."""
    lines = (" ".join(line.split()) for line in normalize_newlines(text).split("\n"))
    return _EXTRA_BLANK_LINES.sub("\n\n", "\n".join(lines)).strip()


def load_pdf(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """Text of each page (pypdf), pages separated by a blank line, without running headers, footers, page
    numbers, dot-leader lines and the footnote marks of body text, hyphenated line ends joined, accents and
    copyright signs TeX sets apart put back together, code comments not read as headings, the outline's
    entries as headings (:mod:`kgrag.documents.pdf_text`, :mod:`kgrag.documents.pdf_footnotes`,
    :mod:`kgrag.documents.pdf_accents`). Titled by the metadata's title, else by the title the first page
    shows, else the file name (:mod:`kgrag.documents.pdf_title`). The metadata records where each page
    starts and, where the PDF numbers its pages otherwise ("i", "ii", then "1"), each page's printed label,
    for citations (:mod:`kgrag.documents.provenance`)."""
    from pypdf import PdfReader

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise DocumentError(
                f"{path}: the PDF is password-protected; remove the password (e.g. `qpdf --decrypt`) and index it again"
            )
        extracted = [copyright_signs(recompose_accents(normalize_newlines(page_text(page)))) for page in reader.pages]
        outline = outline_by_page(reader)
        labels = page_labels(reader)
        metadata_title = reader.metadata.title if reader.metadata is not None else None
    except DocumentError:
        raise
    except Exception as exc:  # pypdf raises many exception types on damaged files
        raise DocumentError(
            f"{path}: not a readable PDF ({type(exc).__name__}: {exc}); re-export the PDF or exclude it"
        ) from exc
    pages = strip_running_lines(extracted)
    texts = [_pdf_page(page, outline.get(index, [])) for index, page in enumerate(pages)]
    text = "\n\n".join(t for t in texts if t)
    require_text(path, text, "the PDF's extractable text (a scanned PDF needs OCR first)")
    title = usable_metadata_title(metadata_title, path) or first_page_title(extracted[0], pages[0]) or path.stem
    metadata = {**_metadata(path), PAGE_STARTS: page_starts(texts, "\n\n")}  # passages cite their page
    if labels:
        metadata[PAGE_LABELS] = json.dumps(labels, ensure_ascii=False)
    return [LoadedDocument.from_text(str(path), title, text, metadata)]


def _pdf_page(page: str, headings: list[tuple[int, str]]) -> str:
    """One page's text as indexed (:func:`load_pdf`), ``headings`` its outline entries."""
    text = _tidy(dehyphenate(without_leaders(page))).replace("\x00", "") if page.strip() else ""
    return mark_headings(code_comments_indented(text), headings)


def load_docx(path: Path, data: bytes, cfg: DocumentsConfig) -> list[LoadedDocument]:
    """Paragraphs and table rows of a Word document in document order, one block per paragraph."""
    import docx

    try:
        document = docx.Document(io.BytesIO(data))
        blocks = [_docx_block(item) for item in document.iter_inner_content()]
        title = (document.core_properties.title or "").strip() or _docx_heading(document)
    except Exception as exc:  # a damaged .docx fails in zipfile, lxml or python-docx
        raise DocumentError(
            f"{path}: not a readable .docx ({type(exc).__name__}: {exc}); re-save it from Word as .docx or exclude it"
        ) from exc
    text = require_text(path, "\n\n".join(block for block in blocks if block.strip()).replace("\x00", ""))
    return [LoadedDocument.from_text(str(path), title or path.stem, normalize_newlines(text), _metadata(path))]


def _docx_block(item: Paragraph | Table) -> str:
    """A paragraph's text, or a table as one line per row with cells separated by `` | ``."""
    from docx.table import Table

    if isinstance(item, Table):
        return "\n".join(" | ".join(cell.text.strip() for cell in row.cells) for row in item.rows)
    return item.text


def _docx_heading(document: WordDocument) -> str:
    """Text of the first paragraph styled as Title or Heading, the document's visible title."""
    for paragraph in document.paragraphs:
        style = paragraph.style.name if paragraph.style is not None else ""
        if style == "Title" or style.startswith("Heading"):
            text = paragraph.text.strip()
            if text:
                return text
    return ""
