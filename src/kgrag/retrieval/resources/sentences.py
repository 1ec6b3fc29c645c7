"""Stored sentence vectors at query time (``embedding.sentence_vectors``): whether the index holds them,
the matrix of every chunk's sentences (one per store generation, see
:mod:`kgrag.retrieval.resources.sentence_matrix`), each recent query's best-sentence scores over it, and the
vectors of individual passages' sentences where no matrix is held."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from kgrag.retrieval.query_context import QueryContext, QueryResource
from kgrag.retrieval.resources.caches import TextCache

if TYPE_CHECKING:
    from kgrag.retrieval.resources.sentence_matrix import SentenceMatrix

SENTENCE_CACHE_CHUNKS = 2048
"""Passages whose sentence vectors are kept (~24 sentences × 1.5 KB each for a 480-token chunk: ≤ ~75 MB);
an evaluation re-reads the same few hundred pool members across questions."""
SENTENCE_MEANS_CACHE = 16
"""Queries whose best-sentence score of every chunk is kept: a query's dense search and its reranker
read the same array (one product with every sentence vector instead of two); an array costs 8 bytes a
chunk."""


def _configured(ctx: QueryContext) -> bool:
    """``embedding.sentence_vectors`` when it is a yes or no; the workspace provides the ``auto`` decision."""
    setting = ctx.config.embedding.sentence_vectors
    return setting if isinstance(setting, bool) else False


def _matrix(ctx: QueryContext) -> SentenceMatrix:
    from kgrag.retrieval.resources.sentence_matrix import SentenceMatrix

    return SentenceMatrix.load(ctx.store, ctx.model_id)


SENTENCE_VECTORS_ON: QueryResource[bool] = QueryResource("sentence_vectors_on", _configured)
"""Whether the index holds sentence vectors (decided once)."""
SENTENCE_MATRIX: QueryResource[SentenceMatrix] = QueryResource("sentence_matrix", _matrix, per_generation=True)
"""Every chunk's stored sentence vectors in one matrix, rows by chunk id (``complete`` is False for a
corpus too large to hold)."""
SENTENCE_MEANS: QueryResource[TextCache[np.ndarray]] = QueryResource(
    "sentence_means", lambda ctx: TextCache(SENTENCE_MEANS_CACHE), per_generation=True
)
PASSAGE_SENTENCE_VECTORS: QueryResource[TextCache[np.ndarray]] = QueryResource(
    "passage_sentence_vectors", lambda ctx: TextCache(SENTENCE_CACHE_CHUNKS), per_generation=True
)
"""Emptied after every committed write, so sentence vectors embedded later are picked up."""


def sentence_means(ctx: QueryContext, text: str) -> np.ndarray:
    """The mean cosine of every chunk's two best sentences to ``text`` (rows of
    ``SENTENCE_MATRIX.chunk_ids``), remembered for the last few texts. Call only when the matrix is
    ``usable``."""
    matrix = ctx.get(SENTENCE_MATRIX)
    return ctx.get(SENTENCE_MEANS).get(text, lambda t: matrix.all_means(ctx.embed_query(t)))


def passage_sentence_vectors(ctx: QueryContext, texts: Sequence[str]) -> list[np.ndarray]:
    """The stored vectors of each passage text's sentences (rows; 0 rows where none are stored), read
    from the store once per passage."""
    return ctx.get(PASSAGE_SENTENCE_VECTORS).get_many(texts, lambda missing: _read(ctx, missing))


def _read(ctx: QueryContext, texts: list[str]) -> list[np.ndarray]:
    from kgrag.documents.records import content_hash
    from kgrag.documents.sentences import sentence_texts

    hashes = [[content_hash(sentence) for sentence in sentence_texts(text)] for text in texts]
    stored = ctx.store.vectors.get(ctx.model_id, sorted({h for per_text in hashes for h in per_text}))
    empty = np.zeros((0, 0), dtype=np.float32)
    return [
        np.vstack(rows).astype(np.float32, copy=False)
        if (rows := [stored[h] for h in per_text if h in stored])
        else empty
        for per_text in hashes
    ]
