"""How well a passage's best sentences match the query, from sentence vectors stored at indexing.

A passage's one vector blurs what it says (and MiniLM reads only its first 256 word pieces, half of a
480-token chunk); the question usually restates one or two of its sentences. Scoring each passage by
its best-matching sentences finds those — what the ``fused`` reranker adds when
``embedding.sentence_vectors`` is on. The vectors were computed at indexing and are held in memory by
the query context (:mod:`kgrag.retrieval.resources.sentence_matrix`), which scores every chunk once per query
(shared with dense search): no model call, no store read, and a lookup per passage here.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kgrag.core.context import ContextItem
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.sentence_matrix import TOP_SENTENCES, cosines_to
from kgrag.retrieval.resources.sentences import SENTENCE_MATRIX, passage_sentence_vectors, sentence_means

__all__ = ["TOP_SENTENCES", "best_sentence_similarities", "scores_by_text"]


def best_sentence_similarities(items: Sequence[ContextItem], env: QueryContext, query: str) -> list[float | None]:
    """Mean cosine of each passage's ``TOP_SENTENCES`` best sentences to the query (fewer when it has
    fewer); None for items that are not passages or whose sentences have no stored vectors.

    Passages are looked up by chunk id in the scores the query context computed for every chunk at once
    (:meth:`QueryContext.sentence_means`, shared with the query's dense search); a passage the sentence
    matrix does not hold (a corpus too large for it) has its sentences read by text, once."""
    passages = [i for i, item in enumerate(items) if item.kind == "chunk"]
    scores: list[float | None] = [None] * len(items)
    if not passages:
        return scores
    matrix = env.get(SENTENCE_MATRIX)
    if matrix.complete and not matrix.chunk_ids:
        return scores
    query_vector = env.embed_query(query).astype(np.float32, copy=False)
    if matrix.complete:
        means, position = sentence_means(env, query), matrix.position
        by_text = []
        for index in passages:
            item = items[index]
            if item.id not in matrix.rows or item.metadata.get("excerpt"):  # an excerpt is part of its chunk
                by_text.append(index)
            elif (row := position.get(item.id)) is not None:
                scores[index] = float(means[row])
        passages = by_text
    if passages:
        scores_by_text(items, passages, env, query_vector, scores)
    return scores


def scores_by_text(
    items: Sequence[ContextItem],
    passages: list[int],
    env: QueryContext,
    query_vector: np.ndarray,
    scores: list[float | None],
) -> None:
    """Fill ``scores`` of ``passages`` from their sentences' vectors read by text (cached per passage)."""
    matrices = passage_sentence_vectors(env, [items[i].text for i in passages])
    for index, matrix in zip(passages, matrices, strict=True):
        if len(matrix):
            scores[index] = float(np.sort(cosines_to(matrix, query_vector))[-TOP_SENTENCES:].mean())
