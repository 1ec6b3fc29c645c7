"""The graph follows its sources: removal and re-chunking drop provenance, orphans go, what remains is
re-summarised without the removed text; document statuses wait for extraction."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.graph.graph_fakes import WordExtractor

from kgrag import Workspace
from kgrag.core.records import DocumentStatus
from kgrag.documents import content_hash
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.graph.texts import entity_text
from kgrag.indexing import IndexContext, IndexReport, run_pipeline

DOC_A = "Kestrel ingests telemetry from Osprey. Kestrel runs in Lisbon."
DOC_B = "Kestrel stores everything in Shale. Heron reads dashboards from Kestrel. Shale keeps raw data."


@pytest.fixture
def ws(tmp_path: Path) -> Iterator[Workspace]:
    workspace = Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"})
    yield workspace
    workspace.close()


def _index(ws: Workspace, paths: list[Path], extractor: WordExtractor, max_tokens: int = 300) -> IndexReport:
    context = IndexContext(
        ws.store,
        ws.config,
        ws.components.chunk_plan()[0],
        ws.components.embedder(),
        paths,
        extractor=extractor,
        summarizer=ExtractiveSummarizer(max_tokens),
    )
    return run_pipeline(context)


def _docs(tmp_path: Path) -> tuple[Path, Path]:
    a, b = tmp_path / "docs" / "a.md", tmp_path / "docs" / "b.md"
    a.parent.mkdir(parents=True)
    a.write_text(DOC_A, encoding="utf-8")
    b.write_text(DOC_B, encoding="utf-8")
    return a, b


def test_removing_a_document_resummarises_and_drops_orphans(ws: Workspace, tmp_path: Path) -> None:
    a, b = _docs(tmp_path)
    report = _index(ws, [a, b], WordExtractor())
    assert report.chunks_extracted == 2 and report.entities == 5
    kestrel = ws.store.graph.entity_by_key("kestrel")
    assert kestrel is not None and "Shale" in kestrel.description and len(kestrel.chunk_ids) == 2
    removed, _ = ws.remove([str(b)])
    assert removed == [str(b.resolve())]
    keys = {e.key for e in ws.store.graph.entities()}
    assert keys == {"kestrel", "osprey", "lisbon"}  # shale and heron had no other provenance
    kestrel = ws.store.graph.entity_by_key("kestrel")
    assert kestrel is not None
    assert "Shale" not in kestrel.description and "Heron" not in kestrel.description
    assert len(kestrel.chunk_ids) == 1
    assert all("shale" not in (r.description.lower()) for r in ws.store.graph.relations())
    assert ws.store.graph.stale_entity_ids() == [] and ws.store.graph.stale_relation_ids() == []
    # the re-summarised entity was re-embedded under its new text
    assert ws.store.vectors.get(ws.components.embedding_model_id, [content_hash(entity_text(kestrel))])


def test_summary_is_rebuilt_from_remaining_descriptions(ws: Workspace, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        (docs / f"d{i}.md").write_text(
            f"Kestrel handles workload number {i} with care and {i} extra words here.", encoding="utf-8"
        )
    _index(ws, [docs], WordExtractor(), max_tokens=30)
    kestrel = ws.store.graph.entity_by_key("kestrel")
    assert kestrel is not None and len(kestrel.chunk_ids) == 6
    assert len(kestrel.description.split("\n")) == 1  # summarised: sentences joined, not the 6 descriptions
    ws.remove([str(docs / f"d{i}.md") for i in range(1, 6)])
    kestrel = ws.store.graph.entity_by_key("kestrel")
    assert kestrel is not None
    assert kestrel.description == "Kestrel handles workload number 0 with care and 0 extra words here."


def test_changed_document_replaces_its_mentions(ws: Workspace, tmp_path: Path) -> None:
    a, b = _docs(tmp_path)
    _index(ws, [a, b], WordExtractor())
    b.write_text("Heron shows alerts to Vestland.", encoding="utf-8")
    os.utime(b, (time.time() + 5, time.time() + 5))
    report = _index(ws, [a, b], WordExtractor())
    assert report.documents_changed == 1 and report.chunks_extracted == 1
    keys = {e.key for e in ws.store.graph.entities()}
    assert "shale" not in keys and {"heron", "vestland", "kestrel"} <= keys


def test_statuses_wait_for_extraction_and_failures_retry(ws: Workspace, tmp_path: Path) -> None:
    a, b = _docs(tmp_path)
    _index(ws, [a, b], WordExtractor())  # to learn the chunk ids
    doc_b = ws.store.documents.by_source(str(b.resolve()))
    assert doc_b is not None
    failing_chunk = ws.store.chunks.for_document(doc_b.id)[0].id
    ws.store.graph.mark_extracted(failing_chunk, "words:v2", "boom", 0, 0)
    report = _index(ws, [a, b], WordExtractor(name="words:v2", fail=frozenset({failing_chunk})))
    assert report.chunks_extraction_failed == 1
    statuses = {d.source: d.status for d in ws.store.documents.list()}
    assert statuses[str(b.resolve())] == DocumentStatus.EMBEDDED
    assert statuses[str(a.resolve())] == DocumentStatus.INDEXED
    again = _index(ws, [a, b], WordExtractor(name="words:v2"))
    assert again.chunks_extracted == 1 and again.did_work
    assert {d.status for d in ws.store.documents.list()} == {DocumentStatus.INDEXED}
    assert not _index(ws, [a, b], WordExtractor(name="words:v2")).did_work


def test_editing_one_paragraph_re_extracts_only_changed_chunks(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Unchanged chunks keep their rows, mentions and extraction marks when their document is edited."""
    from tests.graph.graph_fakes import WordExtractor

    from kgrag import Workspace

    paragraphs = [f"Paragraph {i} names Aisha and Rui at Kestrel number {i}. " * 12 for i in range(8)]
    doc = tmp_path / "doc.md"
    doc.write_text("\n\n".join(paragraphs), encoding="utf-8")
    with Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, chunking={"size_tokens": 120}) as ws:
        ws.components.extractor = lambda progress=None: WordExtractor()  # type: ignore[method-assign]
        first = ws.index([doc])
        before = {c.id for c in ws.store.chunks.iter_all()}
        doc.write_text("\n\n".join([*paragraphs[:-1], "A new closing paragraph about Sofia and Tern."]))
        second = ws.index([doc])
        after = {c.id for c in ws.store.chunks.iter_all()}
        assert second.documents_changed == 1
        assert second.chunks_extracted == len(after - before) < first.chunks_extracted
        assert ws.store.graph.entity_by_key("sofia") is not None
        assert ws.store.chunks.search_bm25("Sofia", 3)  # new text searchable
        assert not any("Paragraph 7" in c.text for c in ws.store.chunks.iter_all())  # old text gone
        ranks = [c.ord for c in ws.store.chunks.for_document(ws.store.documents.list()[0].id)]
        assert ranks == sorted(ranks) == list(range(len(after)))
