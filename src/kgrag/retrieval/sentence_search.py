"""Dense search that reads whole chunks: a chunk's cosine blended with its best sentences' cosines.

An embedder reads only the first part of a chunk larger than its window (MiniLM: 256 word pieces, about
half of a 480-token chunk), so a chunk whose answer sits in its second half is invisible to plain dense
search. When the index stored sentence vectors (``embedding.sentence_vectors``), every dense search step
also scores each chunk by the mean cosine of its two best sentences (the same score the ``fused``
reranker adds) and ranks by ``(1 − s) · chunk cosine + s · sentence score``, ``s`` being
``retrieval.dense_sentence_share``. The candidates are the chunk search's own top ``pool`` plus the top
``pool`` by sentence score, so a chunk found only through its sentences can enter.

Measured on GraphRAG-Bench Medical at 480/56 chunks (all 1,547 questions, ``llm = none``, budget 1,000):
``dense`` Fact Retrieval 0.595 → 0.643 and ``hybrid`` 0.668 → 0.704 at s = 0.5; s = 0.7 gave the same,
s = 0.3 about half the gain (``docs/results/medical-retrieval-quality.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgrag.core.records import ScoredId
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.sentence_matrix import SentenceMatrix, cosines_to


def blend_sentence_scores(
    hits: Sequence[list[ScoredId]], texts: Sequence[str], vectors: np.ndarray, env: QueryContext, pool: int
) -> list[list[ScoredId]]:
    """``hits`` (one list per text, whose vectors are the rows of ``vectors``) re-ranked by the blended
    score when the workspace uses sentence vectors and ``retrieval.dense_sentence_share`` is above 0;
    otherwise ``hits`` unchanged."""
    share = env.config.retrieval.dense_sentence_share
    if share <= 0 or not env.uses_sentence_vectors():
        return list(hits)
    matrix = env.sentence_matrix()
    if not matrix.usable:
        return list(hits)
    return [
        _blend(found, vector, env.sentence_means(text), matrix, env, pool, share)
        for found, vector, text in zip(hits, vectors, texts, strict=True)
    ]


def _blend(
    hits: list[ScoredId],
    vector: np.ndarray,
    sentence: np.ndarray,
    matrix: SentenceMatrix,
    env: QueryContext,
    pool: int,
    share: float,
) -> list[ScoredId]:
    """The union of ``hits`` and the top ``pool`` chunks by ``sentence`` (every chunk's best-sentence score,
    in ``matrix.chunk_ids`` order), each scored by the blend, best ``pool`` first."""
    best = np.argpartition(-sentence, pool)[:pool] if len(sentence) > pool else np.arange(len(sentence))
    whole = {hit.id: hit.score for hit in hits}
    missing = [matrix.chunk_ids[i] for i in best if matrix.chunk_ids[i] not in whole]
    if missing:
        stored = env.store.vectors.chunk_vectors(env.model_id, missing)
        if stored:
            whole.update(zip(stored, cosines_to(np.stack(list(stored.values())), vector).tolist(), strict=True))
    position, scores = matrix.position, sentence.tolist()
    blended = [
        ScoredId(
            chunk_id, cosine + share * (scores[i] - cosine) if (i := position.get(chunk_id)) is not None else cosine
        )
        for chunk_id, cosine in whole.items()
    ]
    blended.sort(key=lambda hit: -hit.score)
    return blended[:pool]
