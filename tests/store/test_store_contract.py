"""Store contract: transactions are atomic, deletes cascade through chunks and the full-text index."""

from __future__ import annotations

import numpy as np
import pytest

from kgrag.config import LLMConfig
from kgrag.core.records import ChunkRecord, DocumentRecord, DocumentStatus
from kgrag.models.llm import ScriptedProvider, create_llm_client
from kgrag.store import Store


def _doc(doc_id: str = "d1") -> DocumentRecord:
    return DocumentRecord(
        id=doc_id, source=f"/tmp/{doc_id}.md", title="t", content_hash="h", status=DocumentStatus.CHUNKED
    )


def _chunk(cid: str, text: str, doc_id: str = "d1", ord_: int = 0) -> ChunkRecord:
    return ChunkRecord(
        id=cid,
        doc_id=doc_id,
        ord=ord_,
        char_start=0,
        char_end=len(text),
        text=text,
        n_tokens=len(text.split()),
        text_hash="h-" + cid,
    )


def test_failed_transaction_leaves_nothing(store: Store) -> None:
    with pytest.raises(RuntimeError), store.transaction():
        store.documents.upsert(_doc())
        store.chunks.replace_for_document("d1", [_chunk("c1", "kestrel ingests telemetry")])
        raise RuntimeError("crash mid-write")
    assert store.documents.get("d1") is None
    assert store.chunks.count() == 0
    assert store.chunks.search_bm25("kestrel", 5) == []


def test_nested_transaction_rolls_back_only_inner_block(store: Store) -> None:
    with store.transaction():
        store.documents.upsert(_doc("d1"))
        with pytest.raises(ValueError), store.transaction():
            store.documents.upsert(_doc("d2"))
            raise ValueError
    assert store.documents.get("d1") is not None
    assert store.documents.get("d2") is None


def test_delete_cascades_to_chunks_and_fts(store: Store) -> None:
    store.documents.upsert(_doc())
    store.chunks.replace_for_document("d1", [_chunk("c1", "tern message bus"), _chunk("c2", "osprey", ord_=1)])
    assert [h.id for h in store.chunks.search_bm25("tern bus", 5)] == ["c1"]
    store.documents.delete("d1")
    assert store.chunks.count() == 0
    assert store.chunks.search_bm25("tern", 5) == []


def test_bm25_query_syntax_is_escaped(store: Store) -> None:
    store.documents.upsert(_doc())
    store.chunks.replace_for_document("d1", [_chunk("c1", "what is NOT a release? AND OR NEAR")])
    for nasty in ['"', "NOT", "a* OR (", "c1:", "-x", "", "   "]:
        store.chunks.search_bm25(nasty, 5)  # never raises an FTS syntax error
    assert store.chunks.search_bm25('release" OR', 5)[0].id == "c1"


def test_vectors_keyed_by_model_and_hash(store: Store) -> None:
    store.documents.upsert(_doc())
    store.chunks.replace_for_document("d1", [_chunk("c1", "a b"), _chunk("c2", "c d", ord_=1)])
    assert {h for h, _ in store.vectors.missing_chunk_hashes("m")} == {"h-c1", "h-c2"}
    store.vectors.put("m", [("h-c1", np.array([1.0, 0.0]))])
    assert [h for h, _ in store.vectors.missing_chunk_hashes("m")] == ["h-c2"]
    ids, matrix = store.vectors.chunk_matrix("m")
    assert ids == ["c1"] and matrix.shape == (1, 2)
    assert store.vectors.count("other") == 0


def test_generation_changes_on_commit(store: Store) -> None:
    before = store.generation()
    store.documents.upsert(_doc())
    assert store.generation() != before


def test_llm_bookkeeping_does_not_invalidate_hot_indexes(store: Store) -> None:
    """Cache and ledger writes must not make the next query reload the vector matrix or graph index."""
    client = create_llm_client(LLMConfig(provider="scripted"), store, provider=ScriptedProvider(default="hi"))
    before = store.generation()
    client.chat([{"role": "user", "content": "hello"}], stage="query.generate")
    assert store.llm_ledger.summary().total.calls == 1 and store.llm_cache.count() == 1
    assert store.generation() == before
    store.documents.upsert(_doc())
    assert store.generation() != before


def test_bm25_batch_is_each_search_alone(store: Store) -> None:
    store.documents.upsert(_doc())
    texts = ["tern message bus", "osprey telemetry bus", "kestrel ingests telemetry"]
    store.chunks.replace_for_document("d1", [_chunk(f"c{i}", t, ord_=i) for i, t in enumerate(texts)])
    queries = ["telemetry bus", "", "osprey", "telemetry bus", "nothing matches"]
    assert store.chunks.search_bm25_many(queries, 2) == [store.chunks.search_bm25(q, 2) for q in queries]
    assert store.chunks.search_bm25_many([], 5) == []


def test_documents_by_content_hash_and_renamed_source(store: Store) -> None:
    """Identical content is found by its hash; re-pointing a document to a new source keeps its chunks."""
    for doc_id, digest in (("d1", "same"), ("d2", "same"), ("d3", "other")):
        store.documents.upsert(DocumentRecord(doc_id, f"/docs/{doc_id}.md", "t", digest, DocumentStatus.INDEXED))
    store.chunks.replace_for_document("d1", [_chunk("c1", "osprey firmware")])
    assert [d.id for d in store.documents.with_content_hash("same")] == ["d1", "d2"]
    assert store.documents.with_content_hash("none") == []
    moved = store.documents.get("d1")
    assert moved is not None
    store.documents.upsert(DocumentRecord("d1", "/moved/d1.md", "t", "same", DocumentStatus.INDEXED))
    assert store.documents.by_source("/moved/d1.md") == store.documents.get("d1")
    assert store.documents.by_source("/docs/d1.md") is None
    assert [c.id for c in store.chunks.for_document("d1")] == ["c1"]


def test_chunks_of_a_document_by_position_range(store: Store) -> None:
    store.documents.upsert(_doc())
    store.chunks.replace_for_document("d1", [_chunk(f"c{i}", f"part {i}", ord_=i) for i in range(6)])
    assert [c.id for c in store.chunks.for_document_range("d1", 2, 4)] == ["c2", "c3", "c4"]
    assert [c.id for c in store.chunks.for_document_range("d1", 5, 9)] == ["c5"]
    assert store.chunks.for_document_range("d2", 0, 9) == []


def test_token_quantile_of_the_stored_chunks(store: Store) -> None:
    assert store.chunks.token_quantile(0.9) is None  # nothing stored
    sizes = [3, 1, 40, 2, 5, 8, 13, 21, 34, 55]  # n_tokens = words
    with store.transaction():
        store.documents.upsert(_doc())
        store.chunks.replace_for_document(
            "d1", [_chunk(f"c{i}", " ".join(["w"] * n) + f" c{i}", ord_=i) for i, n in enumerate(sizes)]
        )
    ranked = sorted(n + 1 for n in sizes)
    assert store.chunks.token_quantile(0.0) == ranked[0] and store.chunks.token_quantile(1.0) == ranked[-1]
    assert store.chunks.token_quantile(0.5) == ranked[4] and store.chunks.token_quantile(0.9) == ranked[8]
