"""Small builders shared by test packages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.graph.graph_fakes import WordExtractor

from kgrag import Workspace
from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus
from kgrag.documents.records import content_hash
from kgrag.graph.build.summarize import ExtractiveSummarizer
from kgrag.graph.types import Extractor
from kgrag.indexing import IndexContext, IndexReport, run_pipeline
from kgrag.indexing.runner import DEFAULT_PIPELINE
from kgrag.store import Store


def add_document(
    store: Store, doc_id: str, texts: list[str], status: DocumentStatus = DocumentStatus.CHUNKED
) -> list[str]:
    """Store a document with one chunk per text, in one transaction; returns the chunk ids ``<doc_id>-c<i>``."""
    chunks = [
        ChunkRecord(
            id=f"{doc_id}-c{i}",
            doc_id=doc_id,
            ord=i,
            char_start=0,
            char_end=len(t),
            text=t,
            n_tokens=len(t.split()),
            text_hash=content_hash(t),
        )
        for i, t in enumerate(texts)
    ]
    with store.transaction():
        store.documents.upsert(
            DocumentRecord(
                id=doc_id,
                source=f"test:{doc_id}",
                title=doc_id,
                content_hash=content_hash("".join(texts)),
                status=status,
            )
        )
        store.chunks.replace_for_document(doc_id, chunks)
    return [c.id for c in chunks]


def index_with_word_extractor(
    ws: Workspace,
    paths: list[Path],
    pipeline: str = DEFAULT_PIPELINE,
    *,
    extractor: Extractor | None = None,
    engine: str | None = None,
) -> IndexReport:
    """Index ``paths`` into ``ws`` with the fast, deterministic WordExtractor graph (no spaCy, no LLM), or
    with ``extractor`` (e.g. a crashing variant of it), on the indexing ``engine`` (default: configured)."""
    parts = ws.components
    context = IndexContext(
        ws.store,
        ws.config,
        parts.chunk_plan()[0],
        parts.embedder(),
        paths,
        extractor=extractor or WordExtractor(),
        summarizer=ExtractiveSummarizer(100),
    )
    return run_pipeline(context, pipeline, engine=engine)


def scripted_workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rules: list[dict[str, str]], model: str = "judge-m"
) -> Path:
    """A workspace of the sample docs (fake embedder, no graph) whose LLM is the ``scripted`` provider
    answering with ``rules``, configured through ``KGRAG_*`` variables so CLI commands in the test see it."""
    from tests.conftest import SAMPLE_DOCS

    monkeypatch.setenv("KGRAG_EMBEDDING__PROVIDER", "fake")
    monkeypatch.setenv("KGRAG_LLM__PROVIDER", "scripted")
    monkeypatch.setenv("KGRAG_LLM__MODEL", model)
    script = tmp_path / "rules.jsonl"
    script.write_text("\n".join(json.dumps(r) for r in rules) + "\n")
    monkeypatch.setenv("KGRAG_LLM__PROVIDERS__SCRIPTED__FILE", str(script))
    path = tmp_path / "ws"
    with Workspace.init(path, graph={"extractor": "none"}) as ws:
        ws.index([SAMPLE_DOCS])
    return path
