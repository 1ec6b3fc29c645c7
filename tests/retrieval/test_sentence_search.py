"""Dense search with sentence vectors: each chunk ranked by its own cosine blended with its best sentences,
so text past the embedder's window counts (``retrieval.dense_sentence_share``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag import Workspace
from kgrag.core.records import ChunkRecord
from kgrag.documents.sentences import sentence_texts
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps import DenseSearch, QueryState, sentence_search
from kgrag.retrieval.steps.sentence_scores import TOP_SENTENCES

FAKE = {"provider": "fake", "sentence_vectors": True}


def _workspace(path: Path, share: float = 0.5, sentence_vectors: bool = True) -> Workspace:
    ws = Workspace.init(
        path,
        embedding={**FAKE, "sentence_vectors": sentence_vectors},
        graph={"extractor": "none"},
        retrieval={"dense_sentence_share": share},
    )
    ws.index([SAMPLE_DOCS])
    return ws


def _dense(ws: Workspace, query: str, pool: int) -> list[tuple[str, float]]:
    state = QueryState(query=query, k=5, queries=[query])
    DenseSearch(pool=pool).run(state, ws.components.query_context)
    return [(item.id, item.score) for item in state.streams["dense"]]


def _chunk_and_late_sentence(ws: Workspace) -> tuple[ChunkRecord, str, str]:
    """A chunk, its first sentence, and a later sentence of it (of at least 8 words) that no other chunk
    holds (overlapping chunks share their edge sentences)."""
    chunks = list(ws.store.chunks.iter_all())
    holders: dict[str, int] = {}
    for chunk in chunks:
        for sentence in set(sentence_texts(chunk.text)):
            holders[sentence] = holders.get(sentence, 0) + 1
    for chunk in chunks:
        sentences = sentence_texts(chunk.text)
        late = [s for s in sentences[1:] if holders[s] == 1 and len(s.split()) >= 8 and s != sentences[0]]
        if late:
            return chunk, sentences[0], late[-1]
    raise AssertionError("the sample corpus has no chunk with a late sentence of its own")


def test_each_chunk_scores_its_cosine_blended_with_its_best_two_sentences(tmp_path: Path) -> None:
    with _workspace(tmp_path / "ws") as ws:
        env = ws.components.query_context
        query = "Who is on call for the payments service?"
        query_vector = env.embed_query(query)
        hits = _dense(ws, query, 8)
        assert len(hits) == 8 and [s for _, s in hits] == sorted((s for _, s in hits), reverse=True)
        chunks = {c.id: c for c in ws.store.chunks.get_many([chunk_id for chunk_id, _ in hits])}
        for chunk_id, score in hits:
            whole = float(env.embedder().embed([chunks[chunk_id].text])[0] @ query_vector)
            sentences = env.embedder().embed(sentence_texts(chunks[chunk_id].text)) @ query_vector
            best = float(np.sort(sentences)[-TOP_SENTENCES:].mean())
            assert score == pytest.approx(0.5 * whole + 0.5 * best, abs=1e-5)


def test_a_chunk_whose_vector_missed_its_end_is_found_through_its_sentences(tmp_path: Path) -> None:
    """What an embedder's window does to a long chunk, made explicit: its stored vector is replaced by the
    vector of its first sentence, so a question about its last sentence misses it in plain dense search."""
    for share, found in ((0.0, False), (0.5, True)):
        with _workspace(tmp_path / f"ws-{share}", share) as ws:
            chunk, first, late = _chunk_and_late_sentence(ws)
            model = ws.components.vector_key
            ws.store.vectors.put(model, [(chunk.text_hash, ws.components.embedder().embed([first])[0])])
            ids = [chunk_id for chunk_id, _ in _dense(ws, late, 3)]
            assert (chunk.id in ids) is found, (share, ids)


def test_without_sentence_vectors_dense_search_is_the_chunk_cosine(tmp_path: Path) -> None:
    with _workspace(tmp_path / "off", sentence_vectors=False) as ws:
        query = "Who is on call for the payments service?"
        env = ws.components.query_context
        plain = ws.store.vectors.search_many(ws.components.vector_key, env.embed_query(query)[None, :], 6)[0]
        assert _dense(ws, query, 6) == [(hit.id, hit.score) for hit in plain]
        assert not env.get("sentence_vectors_on")


def test_a_rewrite_is_blended_with_the_questions_sentence_scores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with _workspace(tmp_path / "ws") as ws:
        env = ws.components.query_context
        question, rewrite = "Who is on call for the payments service?", "payments on-call engineer rotation"
        state = QueryState(query=question, k=5, queries=[question, rewrite])
        searched: list[str] = []
        original = sentence_search.sentence_means

        def spy(ctx: QueryContext, text: str) -> np.ndarray:
            searched.append(text)
            return original(ctx, text)

        monkeypatch.setattr(sentence_search, "sentence_means", spy)
        DenseSearch(pool=6).run(state, env)
        assert set(searched) == {question}  # one sentence scoring per query, the question's
        matrix, means = env.get("sentence_matrix"), original(env, question)
        chunks = {c.id: c for c in ws.store.chunks.iter_all()}
        for item in state.streams["dense"][:3]:  # the union keeps each chunk's best score over both texts
            blends = [
                0.5 * float(env.embedder().embed([chunks[item.id].text])[0] @ env.embed_query(text))
                + 0.5 * float(means[matrix.position[item.id]])
                for text in (question, rewrite)
            ]
            assert item.score == pytest.approx(max(blends), abs=1e-5)


def test_a_pipeline_can_keep_to_the_chunk_cosine(tmp_path: Path) -> None:
    ws = Workspace.init(
        tmp_path / "ws",
        embedding=FAKE,
        graph={"extractor": "none"},
        retrieval={"pipelines": {"dense": {"dense_sentence_share": 0}}},
    )
    with ws:
        ws.index([SAMPLE_DOCS])
        env = ws.components.query_context
        query = "Who is on call for the payments service?"
        plain = ws.store.vectors.search_many(ws.components.vector_key, env.embed_query(query)[None, :], 5)[0]
        own = ws.retrieve(query, "dense", 5)  # [retrieval.pipelines.dense] dense_sentence_share = 0
        assert [(i.id, i.scores["dense"]) for i in own.items] == [(h.id, pytest.approx(h.score)) for h in plain]
        assert ws.config.retrieval.dense_sentence_share_for("hybrid") == 0.5  # the others still blend
        blended = ws.retrieve(query, "hybrid", 5)
        assert any(i.scores["dense"] != pytest.approx(dict(plain).get(i.id, -9)) for i in blended.items)
