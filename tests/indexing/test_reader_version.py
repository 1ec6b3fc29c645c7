"""A document stored by another version of the loaders is read again by the next `kgrag index`, although its
file did not change, so a reading fix reaches workspaces indexed before it; when the text comes out the
same, nothing is re-chunked or re-embedded, and when it differs the document is indexed anew."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from kgrag import Workspace
from kgrag.documents.loaders import READER_VERSION


def _older(ws: Workspace) -> None:
    """Make every stored document look read by an earlier version of the loaders."""
    for doc in ws.documents.list():
        metadata = {k: v for k, v in doc.metadata.items() if k != "reader"}
        ws.store.documents.upsert(replace(doc, metadata=metadata))


def test_an_unchanged_file_read_by_older_loaders_is_read_again(fake_ws: Workspace, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "ferries.html").write_text(
        '<html><body><div class="navheader">Prev | Home | Next</div><h1>Ferries</h1>'
        "<p>Boats leave the harbour at nine every morning.</p></body></html>"
    )
    (corpus / "tides.md").write_text("# Tides\n\nHigh tide is at noon on the north shore.\n")
    fake_ws.index([corpus])
    assert {d.metadata["reader"] for d in fake_ws.documents.list()} == {READER_VERSION}
    chunks = {c.id for c in fake_ws.store.chunks.iter_all()}

    again = fake_ws.index([corpus])
    assert again.documents_unchanged == 2 and again.chunks_written == 0  # same version: not even read

    _older(fake_ws)
    same = fake_ws.index([corpus])
    assert same.documents_unchanged == 2 and same.chunks_written == 0 and same.texts_embedded == 0
    assert {c.id for c in fake_ws.store.chunks.iter_all()} == chunks
    assert {d.metadata["reader"] for d in fake_ws.documents.list()} == {READER_VERSION}

    # an older reader gave other text (here: another content hash): this version's text is indexed anew
    for doc in fake_ws.documents.list():
        if doc.source.endswith("ferries.html"):
            fake_ws.store.documents.upsert(
                replace(doc, content_hash="older-text", metadata={**doc.metadata, "reader": "0"})
            )
    redone = fake_ws.index([corpus])
    assert redone.documents_unchanged == 1 and redone.chunks_written >= 1
