"""Helpers of the LLM-extractor tests, handed out as one ``kit`` fixture (tests run with
``--import-mode=importlib``, so they cannot import a helper module): chunked text, a scripted client
around the extraction responder, and an order-free view of extraction results."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

from kgrag.config import ChunkingConfig, GraphConfig, LLMConfig
from kgrag.core.records import ChunkRecord
from kgrag.documents import TokenCounter, chunk_text, resolve_chunk_sizes
from kgrag.documents.records import content_hash
from kgrag.graph.extract.llm import LLMExtractor
from kgrag.graph.types import ChunkExtraction
from kgrag.models.llm import LLMClient, create_llm_client
from kgrag.testing.extraction_responder import ExtractionResponder

REPO = Path(__file__).resolve().parents[2]
SAMPLE_DOCS = REPO / "examples" / "sample" / "docs"
COUNTER = TokenCounter.for_encoding("cl100k_base")
ENTITY_TYPES = GraphConfig().entity_types
# What the default config does with the default embedder (all-MiniLM-L6-v2, 256-piece window): 204/25.
DEFAULT_SIZE, DEFAULT_OVERLAP, _ = resolve_chunk_sizes(ChunkingConfig(), 256)


def chunk_records(
    text: str, doc_id: str, size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP
) -> list[ChunkRecord]:
    """``text`` chunked as indexing does, as store records with ids ``<doc_id>:<ord>``."""
    return [
        ChunkRecord(
            id=f"{doc_id}:{c.ord}",
            doc_id=doc_id,
            ord=c.ord,
            char_start=c.char_start,
            char_end=c.char_end,
            text=c.text,
            n_tokens=c.n_tokens,
            text_hash=content_hash(c.text),
        )
        for c in chunk_text(text, COUNTER, size, overlap)
    ]


def sample_texts(limit: int | None = None) -> dict[str, str]:
    paths = sorted(SAMPLE_DOCS.glob("*.md"))[:limit]
    return {p.stem: p.read_text(encoding="utf-8") for p in paths}


def sample_chunks(limit: int | None = None) -> list[ChunkRecord]:
    return [c for doc_id, text in sample_texts(limit).items() for c in chunk_records(text, doc_id)]


def scripted_client(responder: ExtractionResponder, **overrides: Any) -> LLMClient:
    """A client on the scripted provider answering through ``responder`` (in-memory cache and ledger)."""
    cfg = LLMConfig(provider="scripted", max_concurrency=4, **overrides)
    return create_llm_client(cfg, provider=responder.provider(), counter=COUNTER)


def make_extractor(client: LLMClient, **kwargs: Any) -> LLMExtractor:
    kwargs.setdefault("entity_types", ENTITY_TYPES)
    return LLMExtractor(client, COUNTER, **kwargs)


Comparable = dict[str, tuple[frozenset[tuple[str, str, str]], frozenset[tuple[Any, ...]], str | None]]


def comparable(extractions: Iterable[ChunkExtraction]) -> Comparable:
    """Per chunk id: its entities, relations and error as order-free sets."""
    return {
        x.chunk_id: (
            frozenset((e.name, e.type, e.description) for e in x.entities),
            frozenset((r.source, r.target, r.label, r.description, r.keywords, r.weight) for r in x.relations),
            x.error,
        )
        for x in extractions
    }


def run_extraction(
    chunks: list[ChunkRecord], responder: ExtractionResponder, **kwargs: Any
) -> tuple[LLMExtractor, list[ChunkExtraction]]:
    """A fresh scripted extractor over ``chunks``; returns it (for stats and ledger) and its output."""
    extractor = make_extractor(scripted_client(responder), **kwargs)
    return extractor, list(extractor.extract(chunks))


class ExtractKit:
    """The helpers above as attributes, so a test takes one fixture and calls ``kit.run_extraction(...)``."""

    counter = COUNTER
    entity_types = ENTITY_TYPES
    sample_docs = SAMPLE_DOCS
    chunk_records = staticmethod(chunk_records)
    sample_texts = staticmethod(sample_texts)
    sample_chunks = staticmethod(sample_chunks)
    scripted_client = staticmethod(scripted_client)
    make_extractor = staticmethod(make_extractor)
    run_extraction = staticmethod(run_extraction)
    comparable = staticmethod(comparable)


@pytest.fixture
def kit() -> ExtractKit:
    return ExtractKit()
