"""Where a passage comes from: the section is the last heading before it, the page follows from the page
starts the PDF loader records, and paths are shown relative to where the user stands."""

from __future__ import annotations

import re
from pathlib import Path

from tests.documents.test_documents_loaders import _pdf

from kgrag import Workspace
from kgrag.config import DocumentsConfig
from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus
from kgrag.documents import TokenCounter, load_path
from kgrag.documents.provenance import SourceRef, display_source, page_of, section_of, source_ref
from kgrag.indexing.prepare import ChunkPlan, build_chunk_records
from kgrag.retrieval.lookup import WINDOW

HANDBOOK = (
    """# On-call handbook

Who is paged first, and how.

## Escalation

"""
    + "The secondary is paged after fifteen minutes without an acknowledgement. " * 12
    + """

## Handover

"""
    + "Handover happens on Monday at ten with a written summary of open incidents. " * 12
)


def _doc(text: str, metadata: dict[str, str] | None = None) -> DocumentRecord:
    return DocumentRecord("d1", "/srv/docs/handbook.md", "On-call handbook", "h", DocumentStatus.INDEXED,
                          n_chars=len(text), metadata=metadata or {})  # fmt: skip


def test_section_is_the_last_heading_before_the_passage() -> None:
    chunks = build_chunk_records("d1", HANDBOOK, ChunkPlan(40, 20, TokenCounter.for_encoding()))
    assert len(chunks) > 4
    headings = [(m.start(), m.group(1)) for m in re.finditer(r"^#+ (.+)$", HANDBOOK, re.MULTILINE)]
    sections = [section_of(c, chunks) for c in chunks]
    assert sections == [[name for at, name in headings if at <= c.char_start][-1] for c in chunks]
    assert sections[0] == "On-call handbook" and "Escalation" in sections and sections[-1] == "Handover"
    record = _doc(HANDBOOK)
    spanning = next(c for c in chunks if "## Handover" in c.text and not c.text.startswith("## Handover"))
    ref = source_ref(spanning, record, chunks)
    assert ref.section == "Escalation" and ref.sections == ("Escalation", "Handover")
    assert ref.label().endswith("· § Escalation + Handover") and ref.to_dict()["sections"] == ["Escalation", "Handover"]
    # only the chunks up to the passage are read: its own later headings do not count
    assert section_of(chunks[1], chunks[:2]) in {"On-call handbook", "Escalation"}


def test_a_comment_in_a_code_block_is_no_section() -> None:
    text = "# Guide\n\nInstall it first.\n\n```bash\n# install the tool\npip install tamsin\n```\n\n" + (
        "Tamsin then runs every night and writes a report to the shared folder. " * 10
    )
    chunks = build_chunk_records("d1", text, ChunkPlan(40, 4, TokenCounter.for_encoding()))
    assert any(c.char_start > text.index("# install") for c in chunks)  # passages after the comment
    assert {section_of(c, chunks) for c in chunks} == {"Guide"}
    assert all("install the tool" not in source_ref(c, _doc(text), chunks).sections for c in chunks)


def test_pdf_passages_know_their_page(tmp_path: Path) -> None:
    path = tmp_path / "manual.pdf"
    path.write_bytes(_pdf(["Osprey S3 setup guide.", "", "Firmware 7 adds power management."], title="Manual"))
    [loaded] = load_path(path, DocumentsConfig())
    record = DocumentRecord("d1", loaded.source, loaded.title, loaded.content_hash, DocumentStatus.INDEXED,
                            metadata=loaded.metadata)  # fmt: skip
    assert page_of(record, loaded.text.index("Osprey")) == 1
    assert page_of(record, loaded.text.index("Firmware")) == 3  # the empty page 2 keeps the numbering
    [chunk] = build_chunk_records("d1", loaded.text, ChunkPlan(200, 10, TokenCounter.for_encoding()))
    ref = source_ref(chunk, record, [chunk])
    assert ref.page == 1 and ref.to_dict()["span"] == [0, len(loaded.text)]


def test_labels_are_relative_below_the_current_directory(tmp_path: Path) -> None:
    inside = tmp_path / "docs" / "a.md"
    assert display_source(str(inside), tmp_path) == str(Path("docs") / "a.md")
    assert display_source(str(inside) + "#rec-1", tmp_path) == str(Path("docs") / "a.md") + "#rec-1"
    assert display_source("/elsewhere/b.md", tmp_path) == "/elsewhere/b.md"
    ref = SourceRef("c1", "d1", str(inside), "Alpha notes", section="Setup", page=2)
    assert ref.label(tmp_path) == f'{Path("docs") / "a.md"} · "Alpha notes" · § Setup · p. 2'
    assert SourceRef("c1", "d1", str(inside), "a", section="a").label(tmp_path) == str(Path("docs") / "a.md")


def test_sources_read_back_only_to_the_heading(fake_ws: Workspace, tmp_path: Path) -> None:
    """A passage deep in a long document finds its section by reading windows of chunks backwards."""
    para = "Telemetry from the Osprey fleet is sampled every minute and kept for a year. "
    text = (
        "# Fleet manual\n\n## Telemetry\n\n" + "\n\n".join(para * 3 for _ in range(150)) + "\n\n## Retention\n\nLast."
    )
    (tmp_path / "manual.md").write_text(text, encoding="utf-8")
    fake_ws.config.chunking.size_tokens = 40
    fake_ws.index([tmp_path / "manual.md"])
    doc = fake_ws.documents.list()[0]
    chunks = fake_ws.store.chunks.for_document(doc.id)
    assert len(chunks) > 2 * WINDOW
    reads: list[tuple[int, int]] = []
    real = fake_ws.store.chunks.for_document_range

    def counted(doc_id: str, first: int, last: int) -> list[ChunkRecord]:
        reads.append((first, last))
        return real(doc_id, first, last)

    fake_ws.store.chunks.for_document_range = counted  # type: ignore[method-assign]
    deep = next(c for c in reversed(chunks) if "## Retention" not in c.text and c.char_start < text.index("## Ret"))
    assert fake_ws.documents.sources([deep.id])[deep.id].section == "Telemetry"
    assert len(reads) == -(-(deep.ord + 1) // WINDOW)  # windows back to the heading, none twice
    last = chunks[-1]  # starts under "Telemetry" and runs into "Retention"
    assert fake_ws.documents.sources([last.id])[last.id].sections == ("Telemetry", "Retention")


def test_a_changelog_or_release_notes_is_told_by_its_path() -> None:
    from kgrag.documents.provenance import changelog_source

    for path in (
        "CHANGES.rst",
        "docs/changelog.rst",
        "NEWS.md",
        "HISTORY.md",
        "history/changelog-2.3.rst",
        "history/whatsnew-4.0.rst",
        "docs/changes/7.1.rst",
        "source/whatsnew/version9.rst",
        "about/release-notes.md",
        "docs/releases/v6.2.0.rst",
        "docs/releases/4.1.rst",
        "CHANGES.rst#0",
        "html/release-15-7.html",
        "docs/release_2.3.md",
    ):
        assert changelog_source(path), path
    for path in (
        "docs/news-and-events.md",
        "docs/newsletter.md",
        "docs/changing-python.rst",
        "guide/ferry-history.md",
        "docs/releases/how-we-release.md",  # a page about releasing, not a release's notes
        "docs/releases.rst",
        "/srv/release-notes/site/docs/ferries.md",  # a folder above the file's own says nothing of it
        "docs/release.md",  # how to release, without a version
        "docs/release-process.md",
    ):
        assert not changelog_source(path), path


def test_release_notes_are_told_by_their_title() -> None:
    from kgrag.documents.provenance import changelog_title

    for title in (
        "Release 15.7",
        "E.14. Release 15.7",
        "Version 2.3",
        "Release Notes for Ferries 4",
        "Changelog",
        "What's New In Python 3.11",
        "Changes in version 4.1",
    ):
        assert changelog_title(title), title
    for title in ("Releasing a new version", "Versioning", "Release process", "Changes to the timetable", "News"):
        assert not changelog_title(title), title
