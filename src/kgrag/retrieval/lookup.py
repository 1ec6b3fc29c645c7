"""What an id in an answer, a trace or ``--json`` output stands for (``ws.documents.show(ID)``, ``kgrag show``).

Answers cite chunk ids, graph pipelines return entity and relation ids, ``kgrag status --documents`` lists
document ids: this resolves any of them (or a document's file path) to its text with its source, so a
reader can check a passage without opening the database.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from typing_extensions import TypedDict

from kgrag.core.records import ChunkRecord, DocumentRecord
from kgrag.documents.provenance import SourceDict, SourceRef, section_of, source_ref
from kgrag.store.base import Store

ShownKind = Literal["chunk", "document", "entity", "relation"]


class ShownFacts(TypedDict, total=False):
    """The facts of a shown id, by kind: a chunk's document, position and tokens; a document's file, title,
    status, chunks (and error, or the document it copies); an entity's name, type and passages; a
    relation's label, ends and passages."""

    doc_id: str
    ord: int
    tokens: int
    source: str
    title: str
    status: str
    chunks: list[str]
    error: str
    duplicate_of: str
    name: str
    type: str
    chunk_ids: list[str]
    label: str
    source_id: str
    target_id: str


class ShownDict(ShownFacts):
    """A :class:`Shown` as JSON: kind, id, heading and text, its facts, its sources."""

    kind: ShownKind
    id: str
    heading: str
    text: str
    sources: list[SourceDict]


@dataclass(frozen=True)
class Shown:
    """One resolved id: its kind, a heading line, the text, extra facts and where it comes from."""

    kind: ShownKind
    id: str
    heading: str
    text: str
    facts: ShownFacts = field(default_factory=lambda: ShownFacts())
    sources: list[SourceRef] = field(default_factory=list)
    parts: list[tuple[str, str]] = field(default_factory=list)
    """A document's text chunk by chunk: (chunk id, the text it adds past the previous chunk's end)."""

    def to_dict(self) -> ShownDict:
        return {
            "kind": self.kind,
            "id": self.id,
            "heading": self.heading,
            "text": self.text,
            **self.facts,
            "sources": [s.to_dict() for s in self.sources],
        }


def document_parts(chunks: Sequence[ChunkRecord]) -> list[tuple[str, str]]:
    """Each chunk's id and the text it adds past the end of the ones before it (chunks overlap). Chunks
    hold no white space between them, so a chunk that starts past that end begins on a new line: the
    text of two chunks is never glued ("```" closing one chunk, the next chunk's words on its line)."""
    parts, covered = [], 0
    for chunk in sorted(chunks, key=lambda c: c.ord):
        if chunk.char_end <= covered:
            continue
        gap = "\n" if covered and chunk.char_start > covered else ""
        parts.append((chunk.id, gap + chunk.text[max(0, covered - chunk.char_start) :]))
        covered = chunk.char_end
    return parts


def document_text(chunks: Sequence[ChunkRecord]) -> str:
    """The document's text put back together from its (overlapping) chunks."""
    return "".join(text for _, text in document_parts(chunks))


WINDOW = 32
"""Chunks read at a time while looking back for a passage's section heading."""


def preceding_chunks(store: Store, chunk: ChunkRecord) -> list[ChunkRecord]:
    """``chunk`` and the chunks before it, back to the nearest one whose heading gives its section (read in
    windows of :data:`WINDOW`, so a passage deep in a long document costs a few reads, not the document)."""
    found: list[ChunkRecord] = []
    last = chunk.ord
    while last >= 0:
        first = max(0, last - WINDOW + 1)
        found = store.chunks.for_document_range(chunk.doc_id, first, last) + found
        if section_of(chunk, found) is not None:
            break
        last = first - 1
    return found or [chunk]


def chunk_sources(store: Store, chunk_ids: Sequence[str], limit: int | None = None) -> list[SourceRef]:
    """The :class:`SourceRef` of each known chunk in ``chunk_ids`` (the first ``limit``), in order."""
    documents: dict[str, DocumentRecord | None] = {}
    refs = (
        _chunk_source(store, chunk, documents)
        for chunk in store.chunks.get_many(list(chunk_ids)[:limit] if limit else chunk_ids)
    )
    return [ref for ref in refs if ref is not None]


def _chunk_source(store: Store, chunk: ChunkRecord, documents: dict[str, DocumentRecord | None]) -> SourceRef | None:
    """The :class:`SourceRef` of ``chunk`` (None when its document is gone); ``documents`` caches the
    documents read so far, by id."""
    if chunk.doc_id not in documents:
        documents[chunk.doc_id] = store.documents.get(chunk.doc_id)
    document = documents[chunk.doc_id]
    return None if document is None else source_ref(chunk, document, preceding_chunks(store, chunk))


def _chunk(store: Store, ident: str) -> Shown | None:
    found = store.chunks.get_many([ident])
    if not found:
        return None
    chunk = found[0]
    ref = _chunk_source(store, chunk, {})
    refs = [] if ref is None else [ref]
    heading = refs[0].label() if refs else f"chunk of a removed document {chunk.doc_id}"
    facts: ShownFacts = {"doc_id": chunk.doc_id, "ord": chunk.ord, "tokens": chunk.n_tokens}
    return Shown("chunk", chunk.id, heading, chunk.text, facts, refs)


def _document(store: Store, ident: str) -> Shown | None:
    document: DocumentRecord | None = store.documents.get(ident) or store.documents.by_source(ident)
    if document is None:
        try:
            document = store.documents.by_source(str(Path(ident).expanduser().resolve()))
        except (OSError, RuntimeError, ValueError):
            document = None
    if document is None:
        return None
    holder = document.metadata.get("duplicate_of")  # a copy: its text is its document's
    chunks = store.chunks.for_document(holder or document.id)
    facts: ShownFacts = {
        "source": document.source,
        "title": document.title,
        "status": document.status.value,
        "chunks": [c.id for c in chunks],
    }
    if document.error:
        facts["error"] = document.error
    if holder:
        facts["duplicate_of"] = holder
    parts = document_parts(chunks)
    text = "".join(part for _, part in parts)
    return Shown("document", document.id, document.title or document.source, text, facts, parts=parts)


def _entity(store: Store, ident: str) -> Shown | None:
    found = store.graph.entities([ident])
    if not found:
        return None
    entity = found[0]
    facts: ShownFacts = {"name": entity.name, "type": entity.type, "chunk_ids": list(entity.chunk_ids)}
    refs = chunk_sources(store, entity.chunk_ids, limit=20)
    return Shown("entity", entity.id, f"{entity.name} ({entity.type})", entity.description, facts, refs)


def _relation(store: Store, ident: str) -> Shown | None:
    found = store.graph.relations([ident])
    if not found:
        return None
    relation = found[0]
    names = {e.id: e.name for e in store.graph.entities([relation.source_id, relation.target_id])}
    ends = f"{names.get(relation.source_id, relation.source_id)} — {names.get(relation.target_id, relation.target_id)}"
    facts: ShownFacts = {
        "label": relation.label,
        "source_id": relation.source_id,
        "target_id": relation.target_id,
        "chunk_ids": list(relation.chunk_ids),
    }
    refs = chunk_sources(store, relation.chunk_ids, limit=20)
    heading = f"{ends}: {relation.label}" if relation.label else ends
    return Shown("relation", relation.id, heading, relation.description, facts, refs)


_RESOLVERS: tuple[Callable[[Store, str], Shown | None], ...] = (_chunk, _document, _entity, _relation)


def show(store: Store, ident: str) -> Shown | None:
    """The chunk, document (by id, source or file path), entity or relation called ``ident``; None if none is."""
    ident = ident.strip()
    if ident.startswith("[") and ident.endswith("]"):  # pasted from an answer: [c:c0123...] or [c0123...]
        ident = ident[1:-1].removeprefix("c:")
    for resolve in _RESOLVERS:
        shown = resolve(store, ident)
        if shown is not None:
            return shown
    return None
