"""``kgrag graph import --from lightrag DIR``: a LightRAG working directory becomes a kgrag workspace.

What lands in the store:

* one document per LightRAG ``full_doc_id`` (one synthetic document for chunks without one), with
  LightRAG's chunks *under their LightRAG ids*, so provenance maps 1:1. The document text is not in the
  chunk file, so character spans are positions in the concatenation of the document's chunks in order
  (LightRAG chunks overlap, so they are indicative only). Documents are ``chunked``: ``kgrag reindex
  --embeddings`` embeds them (and the entities/relations) for dense retrieval;
* every node and edge, mapped as described in :mod:`kgrag.graph.io.lightrag.mapping`, with LightRAG's
  merged descriptions kept verbatim (not re-summarised);
* the import is recorded as the chunks' extraction (extractor ``import:lightrag``); kgrag's own
  extractors never re-extract imported chunks, so ``kgrag index`` of new documents adds to the imported
  graph instead of replacing it. Entity/relation vectors are flagged for re-embedding.

Everything happens in one transaction and re-running the import gives the same store: unchanged
chunks are kept (with their embeddings), the mentions of the imported chunks are replaced, and what is
left without provenance is deleted.
"""

from __future__ import annotations

import hashlib
import time
from pathlib import Path

from kgrag.core.errors import KgragError
from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus
from kgrag.documents.records import content_hash
from kgrag.graph.build.vectors import mark_graph_vectors_stale
from kgrag.graph.io.graphml_format import read_graphml
from kgrag.graph.io.lightrag.files import LightRagChunk, locate_chunks, locate_graphml, read_chunks
from kgrag.graph.io.lightrag.mapping import map_lightrag_graph
from kgrag.graph.io.load import (
    Placeholder,
    chunks_unchanged,
    load_graph,
    mark_imported,
    resolve_provenance,
    write_placeholder,
)
from kgrag.graph.io.report import ImportReport
from kgrag.store.base import Store

EXTRACTOR_NAME = "import:lightrag"


def _corpus_tag(chunks: list[LightRagChunk]) -> str:
    """A stable tag of the LightRAG corpus (its chunk ids), naming the synthetic document/chunk."""
    return hashlib.sha1("\n".join(sorted(c.id for c in chunks)).encode("utf-8")).hexdigest()[:12]


def build_documents(chunks: list[LightRagChunk], tag: str) -> list[tuple[DocumentRecord, list[ChunkRecord]]]:
    """Group chunks into documents by ``full_doc_id``, in chunk order, with concatenation char spans."""
    groups: dict[str, list[LightRagChunk]] = {}
    for chunk in chunks:
        groups.setdefault(chunk.doc_id or f"lightrag-doc-{tag}", []).append(chunk)
    documents = []
    for doc_id, members in groups.items():
        records, offset = [], 0
        for ord_, chunk in enumerate(sorted(members, key=lambda c: (c.order, c.id))):
            records.append(
                ChunkRecord(
                    id=chunk.id,
                    doc_id=doc_id,
                    ord=ord_,
                    char_start=offset,
                    char_end=offset + len(chunk.text),
                    text=chunk.text,
                    n_tokens=chunk.tokens or len(chunk.text.split()),
                    text_hash=content_hash(chunk.text),
                )
            )
            offset += len(chunk.text)
        text_hash = content_hash("".join(r.text_hash for r in records))
        documents.append(
            (
                DocumentRecord(
                    id=doc_id,
                    source=f"lightrag:{doc_id}",
                    title=doc_id,
                    content_hash=text_hash,
                    status=DocumentStatus.CHUNKED,
                    n_chars=offset,
                    metadata={"imported_from": "lightrag"},
                    updated_at=time.time(),
                ),
                records,
            )
        )
    return documents


def _check_chunk_ids(store: Store, documents: list[tuple[DocumentRecord, list[ChunkRecord]]]) -> None:
    owner = {c.id: doc.id for doc, chunks in documents for c in chunks}
    clashes = [c.id for c in store.chunks.get_many(list(owner)) if c.doc_id != owner[c.id]]
    if clashes:
        raise KgragError(
            f"{len(clashes)} LightRAG chunk ids already belong to other documents of this workspace "
            f"(e.g. {clashes[0]}); import into a fresh workspace"
        )


def _write_documents(store: Store, documents: list[tuple[DocumentRecord, list[ChunkRecord]]]) -> int:
    """Upsert documents; rewrite chunks only where they changed (keeps embeddings and FTS rows)."""
    rewritten = 0
    for doc, chunks in documents:
        existing = store.documents.get(doc.id)
        if (
            existing is not None
            and existing.content_hash == doc.content_hash
            and chunks_unchanged(store, doc.id, chunks)
        ):
            continue
        store.documents.upsert(doc)
        store.chunks.replace_for_document(doc.id, chunks)
        rewritten += len(chunks)
    return rewritten


def import_lightrag(
    store: Store, directory: Path, graphml: Path | None = None, chunks_file: Path | None = None
) -> ImportReport:
    """Import a LightRAG working directory into ``store`` (one transaction, idempotent)."""
    graphml_path = locate_graphml(directory, graphml)
    chunks_path = locate_chunks(directory, chunks_file)
    lightrag_chunks = read_chunks(chunks_path)
    plan = map_lightrag_graph(read_graphml(graphml_path))
    tag = _corpus_tag(lightrag_chunks)
    documents = build_documents(lightrag_chunks, tag)
    known = {c.id for c in lightrag_chunks}
    placeholder = Placeholder(
        doc_id=f"lightrag-import-{tag}", chunk_id=f"lightrag-import-{tag}", title="LightRAG import"
    )
    resolved = resolve_provenance(plan.entities, plan.relations, known, placeholder)
    report = ImportReport(
        source=str(graphml_path),
        chunks_file=str(chunks_path),
        nodes=len(resolved.entities),
        edges=len(resolved.relations),
        documents=len(documents),
        chunks=len(known),
        dangling_source_ids=len(resolved.dangling_chunk_ids),
        skipped_mentions=resolved.skipped_mentions,
        placeholder_entities=resolved.placeholder_entities,
        placeholder_relations=resolved.placeholder_relations,
        node_description_mismatches=plan.counts.node_mismatches,
        edge_description_mismatches=plan.counts.edge_mismatches,
        key_collisions=plan.counts.key_collisions,
        implicit_nodes=plan.counts.implicit_nodes,
        self_loops_skipped=plan.counts.self_loops_skipped,
        parallel_edges_merged=plan.counts.parallel_edges_merged,
    )
    with store.transaction():
        _check_chunk_ids(store, documents)
        report.chunks_rewritten = _write_documents(store, documents)
        store.graph.clear_chunk_mentions([*known, placeholder.chunk_id])
        imported = sorted(known)
        if resolved.placeholder_lines:
            write_placeholder(store, placeholder, resolved.placeholder_lines)
            imported.append(placeholder.chunk_id)
        elif store.documents.get(placeholder.doc_id) is not None:
            store.documents.delete(placeholder.doc_id)
        load_graph(store, resolved.entities, resolved.relations)
        mark_imported(store, imported, EXTRACTOR_NAME, resolved.entities, resolved.relations)
        store.graph.delete_orphans()
        mark_graph_vectors_stale(store)
    return report
