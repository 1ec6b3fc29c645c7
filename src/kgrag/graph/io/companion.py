"""The JSON companion of a GraphML export: what GraphML cannot carry for a lossless kgrag round trip.

GraphML holds the merged graph (what Gephi, networkx or yEd read). Provenance in kgrag points to
chunks, and the schema refuses mentions of unknown chunks, so importing into a *fresh* workspace needs
the chunk texts too; rebuilding aggregates later needs the per-chunk mentions. The companion
``<name>.provenance.json`` next to ``<name>.graphml`` therefore holds:

* the documents referenced by the graph, with *all* their chunks (documents stay whole);
* every entity and relation mention (key, chunk, surface/label, type, description, keywords, weight).

Embeddings are not exported (they are re-made from the chunk text by ``kgrag reindex --embeddings``).
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from typing_extensions import TypedDict

from kgrag.core.errors import KgragError
from kgrag.core.graph_records import EntityMention, RelationMention
from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus
from kgrag.fileio import read_json
from kgrag.store.base import Store

FORMAT = "kgrag.graph-provenance"
VERSION = 1


@dataclass
class Companion:
    """Documents with their chunks, and the mentions of the exported graph."""

    documents: list[DocumentRecord] = field(default_factory=list)
    chunks: list[ChunkRecord] = field(default_factory=list)
    entity_mentions: list[EntityMention] = field(default_factory=list)
    relation_mentions: list[RelationMention] = field(default_factory=list)


def companion_path(graphml_path: Path) -> Path:
    """``graph.graphml`` → ``graph.provenance.json``."""
    return graphml_path.with_name(graphml_path.stem + ".provenance.json")


def collect_companion(store: Store, entity_ids: list[str], relation_ids: list[str]) -> Companion:
    """Gather what the companion of a graph made of these entities/relations must hold."""
    entity_mentions = [m for ms in store.graph.entity_mentions(entity_ids).values() for m in ms]
    relation_mentions = [m for ms in store.graph.relation_mentions(relation_ids).values() for m in ms]
    chunk_ids = {m.chunk_id for m in entity_mentions} | {m.chunk_id for m in relation_mentions}
    doc_ids = dict.fromkeys(c.doc_id for c in store.chunks.get_many(sorted(chunk_ids)))
    documents = [doc for doc in (store.documents.get(d) for d in doc_ids) if doc is not None]
    chunks = [c for doc in documents for c in store.chunks.for_document(doc.id)]
    return Companion(documents, chunks, entity_mentions, relation_mentions)


class CompanionDocument(TypedDict):
    """A document as the companion file keeps it."""

    id: str
    source: str
    title: str
    content_hash: str
    n_chars: int
    metadata: dict[str, str]


def _document_dict(doc: DocumentRecord) -> CompanionDocument:
    return {
        "id": doc.id,
        "source": doc.source,
        "title": doc.title,
        "content_hash": doc.content_hash,
        "n_chars": doc.n_chars,
        "metadata": doc.metadata,
    }


def write_companion(path: Path, companion: Companion) -> None:
    data = {
        "format": FORMAT,
        "version": VERSION,
        "documents": [_document_dict(d) for d in companion.documents],
        "chunks": [asdict(c) for c in companion.chunks],
        "entity_mentions": [asdict(m) for m in companion.entity_mentions],
        "relation_mentions": [asdict(m) for m in companion.relation_mentions],
    }
    try:
        path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    except OSError as exc:
        raise KgragError(f"{path}: cannot write ({exc.strerror})") from exc


def _companion_from(path: Path, data: dict[str, Any]) -> Companion:
    try:
        documents = [
            DocumentRecord(
                id=d["id"],
                source=d["source"],
                title=d.get("title", ""),
                content_hash=d["content_hash"],
                status=DocumentStatus.CHUNKED,
                n_chars=int(d.get("n_chars", 0)),
                metadata=dict(d.get("metadata", {})),
                updated_at=time.time(),
            )
            for d in data["documents"]
        ]
        chunks = [ChunkRecord(**c) for c in data["chunks"]]
        entity_mentions = [EntityMention(**m) for m in data["entity_mentions"]]
        relation_mentions = [
            RelationMention(**{**m, "keywords": tuple(m.get("keywords", ()))}) for m in data["relation_mentions"]
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise KgragError(f"{path}: malformed provenance companion ({type(exc).__name__}: {exc})") from exc
    return Companion(documents, chunks, entity_mentions, relation_mentions)


def read_companion(path: Path) -> Companion:
    """Parse a companion file; anything malformed is a user error naming the file."""
    data = read_json(path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise KgragError(f"{path}: not a kgrag provenance companion (format {FORMAT!r} expected)")
    if data.get("version") != VERSION:
        raise KgragError(f"{path}: companion version {data.get('version')!r} is not supported (expected {VERSION})")
    return _companion_from(path, data)


def write_companion_documents(store: Store, companion: Companion) -> int:
    """Create the companion's documents the store lacks (existing ones are left untouched); returns the
    number of chunks written."""
    by_doc: dict[str, list[ChunkRecord]] = {}
    for chunk in companion.chunks:
        by_doc.setdefault(chunk.doc_id, []).append(chunk)
    written = 0
    for doc in companion.documents:
        if store.documents.get(doc.id) is not None:
            continue
        store.documents.upsert(doc)
        store.chunks.replace_for_document(doc.id, by_doc.get(doc.id, []))
        written += len(by_doc.get(doc.id, []))
    return written
