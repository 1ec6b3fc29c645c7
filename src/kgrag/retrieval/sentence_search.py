"""Dense search that reads whole chunks: a chunk's cosine blended with its best sentences' cosines.

An embedder reads only the first part of a chunk larger than its window (MiniLM: 256 word pieces, about
half of a 480-token chunk), so a chunk whose answer sits in its second half is invisible to plain dense
search. When the index stored sentence vectors (``embedding.sentence_vectors``), every dense search step
also scores each chunk by the mean cosine of its two best sentences (the same score the ``fused``
reranker adds) and ranks by ``(1 − s) · chunk cosine + s · sentence score``, ``s`` being
``retrieval.dense_sentence_share``. The candidates are the chunk search's own top ``pool`` plus the
question's top ``pool`` by sentence score, so a chunk found only through its sentences can enter; the
sentence score is the question's, whichever text (question, rewrite, HyDE passage) was searched.

Measured on GraphRAG-Bench Medical at 480/56 chunks (all 1,547 questions, ``llm = none``, budget 1,000):
``dense`` Fact Retrieval 0.595 → 0.643 and ``hybrid`` 0.668 → 0.704 at s = 0.5; s = 0.7 gave the same,
s = 0.3 about half the gain (``docs/results/medical-retrieval-quality.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgrag.core.records import ScoredId
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.sentence_matrix import cosines_to


def blend_sentence_scores(
    hits: Sequence[list[ScoredId]],
    vectors: np.ndarray,
    question: str,
    env: QueryContext,
    pool: int,
    share: float,
) -> list[list[ScoredId]]:
    """``hits`` (one list per searched text, whose vectors are the rows of ``vectors``) re-ranked by the blended
    score when the workspace uses sentence vectors and ``share`` (``retrieval.dense_sentence_share``, or the
    pipeline's own) is above 0; otherwise ``hits`` unchanged.

    The sentence score is always the ``question``'s (every chunk's, one product with all sentence vectors,
    shared with the reranker), also for another text's hits (a rewrite, a HyDE passage): those texts are
    there to find the question's answer. Scoring each text's own sentences instead cost qe, hyde and
    combined ~0.5–0.9 ms more per text on Medical and recalled less (hyde Fact Retrieval 0.629 against
    0.655 with the question's scores; qe 0.690 against 0.696)."""
    if share <= 0 or not env.uses_sentence_vectors():
        return list(hits)
    matrix = env.sentence_matrix()
    if not matrix.usable:
        return list(hits)
    means = env.sentence_means(question)
    top = np.argpartition(-means, pool)[:pool] if len(means) > pool else np.arange(len(means))
    question_pool = [matrix.chunk_ids[i] for i in top]
    position = matrix.position
    blended = []
    for found, vector in zip(hits, vectors, strict=True):
        candidates = dict.fromkeys([*(hit.id for hit in found), *question_pool])
        scores = {c: None if (i := position.get(c)) is None else float(means[i]) for c in candidates}
        blended.append(_blend(found, vector, scores, env, pool, share))
    return blended


def _blend(
    hits: list[ScoredId],
    vector: np.ndarray,
    sentence: dict[str, float | None],
    env: QueryContext,
    pool: int,
    share: float,
) -> list[ScoredId]:
    """Every chunk of ``sentence`` (the hits and the extra candidates, with their best-sentence scores),
    scored by the blend (the chunk cosine alone where a chunk has no sentence score), best ``pool`` first."""
    whole = {hit.id: hit.score for hit in hits}
    missing = [chunk_id for chunk_id in sentence if chunk_id not in whole]
    if missing:
        stored = env.store.vectors.chunk_vectors(env.model_id, missing)
        if stored:
            whole.update(zip(stored, cosines_to(np.stack(list(stored.values())), vector).tolist(), strict=True))
    blended = [
        ScoredId(chunk_id, cosine if (own := sentence.get(chunk_id)) is None else cosine + share * (own - cosine))
        for chunk_id, cosine in whole.items()
    ]
    blended.sort(key=lambda hit: -hit.score)
    return blended[:pool]
