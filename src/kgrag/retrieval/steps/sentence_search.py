"""Dense search that reads whole chunks: a chunk's cosine blended with its best sentences' cosines.

An embedder reads only the first part of a chunk larger than its window (MiniLM: 256 word pieces, about
half of a 480-token chunk), so a chunk whose answer sits in its second half is invisible to plain dense
search. When the index stored sentence vectors (``embedding.sentence_vectors``), every dense search step
also scores each chunk by the mean cosine of its two best sentences (the same score the ``fused``
reranker adds) and ranks by ``(1 − s) · chunk cosine + s · sentence score``, ``s`` being
``retrieval.dense_sentence_share``. The candidates are the chunk search's own top ``pool`` plus the
question's top ``pool`` by sentence score, so a chunk found only through its sentences can enter; the
sentence score is the question's, whichever text (question, rewrite, HyDE passage) was searched.

With chunks past the embedder's window the blend recalls more evidence for ``dense`` and ``hybrid``, and the
default s = 0.5 recalled as much as any share tried (``docs/results/medical-retrieval-quality.md``,
``docs/results/design-measurements.md``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgrag.core.records import ScoredId
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.sentences import SENTENCE_MATRIX, SENTENCE_VECTORS_ON, sentence_means


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
    there to find the question's answer. Scoring each text's own sentences instead costs
    more per text and recalls less (docs/results/design-measurements.md)."""
    if share <= 0 or not env.get(SENTENCE_VECTORS_ON):
        return list(hits)
    matrix = env.get(SENTENCE_MATRIX)
    if not matrix.usable:
        return list(hits)
    means = sentence_means(env, question)
    top = np.argpartition(-means, pool)[:pool] if len(means) > pool else np.arange(len(means))
    # The question's pool is every text's extra candidates: its chunk vectors are read once, for all texts.
    stored = env.store.vectors.chunk_vectors(env.model_id, [matrix.chunk_ids[i] for i in top])
    extra_cosines = cosine_table(list(stored.values()), vectors)
    position = matrix.position

    def blended(chunk_id: str, cosine: float) -> ScoredId:
        row = position.get(chunk_id)
        return ScoredId(chunk_id, cosine if row is None else cosine + share * (float(means[row]) - cosine))

    ranked_per_text = []
    for found, extra in zip(hits, extra_cosines, strict=True):
        whole = {hit.id: hit.score for hit in found}
        for chunk_id, cosine in zip(stored, extra, strict=True):
            whole.setdefault(chunk_id, cosine)
        ranked = sorted((blended(c, cosine) for c, cosine in whole.items()), key=lambda hit: -hit.score)
        ranked_per_text.append(ranked[:pool])
    return ranked_per_text


def cosine_table(rows: list[np.ndarray], vectors: np.ndarray) -> list[list[float]]:
    """The cosine of each of ``rows`` to each query vector (one list per row of ``vectors``), one einsum."""
    if not rows:
        return [[] for _ in range(len(vectors))]
    return np.einsum("ij,kj->ki", np.stack(rows), np.asarray(vectors, dtype=np.float32)).tolist()
