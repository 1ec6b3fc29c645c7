"""``fused``: query-word coverage fused with the first stage's own signals; no model, no download.

Word coverage (what ``lexical`` ranks by) is the strongest signal of the no-download rerankers, but it is
coarse: a question has a handful of content words, so many candidates tie, and a passage that names
every generic word of the question ("main", "types", "spread") but not its topic beats one that answers
it. The first stage already measured what coverage misses — how close each passage's meaning is to the
question (the dense cosine) and how well its rare words match (its BM25 rank) — and ``fused`` adds those
back with small weights, so coverage still leads and the first-stage signals order the passages inside
and near each coverage level.

Score of a candidate at incoming position ``i`` in a pool of ``n``::

    coverage + w_sim · dense cosine + w_first / (1 + i) + w_bm25 / (1 + BM25 rank) + w_dense / (1 + dense rank)
             + w_sentence · best-sentence cosine

The last term is there when the index stored sentence vectors (``embedding.sentence_vectors``): the mean
cosine of the passage's two best-matching sentences (the best-matching sentences, scored by the local
embedder), read from the store instead of embedded per query. A passage without them takes its dense
cosine there, so it is not pushed down for lacking them; without sentence vectors at all the term is 0.

The dense cosine is the candidate's ``dense`` score; a candidate that reached the pool through neither search
(graph provenance) gets the cosine of its stored vector when the workspace provides ``similarities`` (one
store read, no model call), else 0, as does a BM25-only candidate. The ranks are the candidate's place among
the pool's members by BM25 score and by that cosine (a candidate without one ranks ``n``). The default weights
were fitted by logistic regression (does this passage hold an evidence sentence?) on held-out labelled
questions and rounded (``docs/results/medical-retrieval-quality.md``). Other corpora can refit them with
``kgrag tune reranker``: they are the ``[rerank.fused]`` settings
(:class:`~kgrag.models.rerankers.settings.FusedSettings`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from kgrag.core.context import ContextItem
from kgrag.documents.words import content_word_counts, content_words
from kgrag.models.rerankers.base import RerankResources, Similarities, reorder
from kgrag.models.rerankers.settings import FusedSettings

_DEFAULTS = FusedSettings().model_dump()  # the defaults are written once, in FusedSettings


@dataclass(frozen=True)
class FusedWeights:
    """Weights of the first-stage signals; word coverage has weight 1."""

    similarity: float = _DEFAULTS["similarity"]
    first_stage: float = _DEFAULTS["first_stage"]
    bm25_rank: float = _DEFAULTS["bm25_rank"]
    dense_rank: float = _DEFAULTS["dense_rank"]
    sentence: float = _DEFAULTS["sentence"]

    @classmethod
    def from_settings(cls, settings: FusedSettings | None = None) -> FusedWeights:
        """The weights ``[rerank.fused]`` sets (its defaults when None)."""
        own = settings or FusedSettings()
        return cls(own.similarity, own.first_stage, own.bm25_rank, own.dense_rank, own.sentence)

    def vector(self) -> np.ndarray:
        """Coefficients of the :func:`fused_features` columns (coverage first, weight 1)."""
        return np.array([1.0, self.similarity, self.first_stage, self.bm25_rank, self.dense_rank, self.sentence])


def pool_ranks(values: Sequence[float | None]) -> list[int]:
    """Each value's place (0 = best) among the values present; None ranks ``len(values)``. Ties keep order."""
    present = sorted((i for i, v in enumerate(values) if v is not None), key=lambda i: (-(values[i] or 0.0), i))
    ranks = [len(values)] * len(values)
    for place, index in enumerate(present):
        ranks[index] = place
    return ranks


def fused_features(
    query: str,
    items: Sequence[ContextItem],
    filled: Sequence[float | None] | None = None,
    sentences: Sequence[float | None] | None = None,
) -> np.ndarray:
    """One row per item: word coverage, cosine to the query, 1/(1 + position), 1/(1 + BM25 rank), 1/(1 +
    cosine rank), best-sentence cosine — the columns :meth:`FusedWeights.vector` weighs (``kgrag
    tune-reranker`` reuses them).

    The cosine is the item's ``dense`` score, else its ``filled`` value (the stored vector's cosine, for
    passages that came from a stream without one), else 0; the cosine rank orders the items that have one.
    The best-sentence cosine is the item's ``sentences`` value, else its cosine; all 0 without
    ``sentences``."""
    wanted = content_words(query)
    found = content_word_counts(wanted, [item.text for item in items])
    cosines = [
        dense if (dense := item.scores.get("dense")) is not None else (filled[i] if filled else None)
        for i, item in enumerate(items)
    ]
    bm25_ranks = pool_ranks([item.scores.get("bm25") for item in items])
    cosine_ranks = pool_ranks(cosines)
    rows = [
        (
            found[position] / max(1, len(wanted)),
            float(cosines[position] or 0.0),
            1 / (1 + position),
            1 / (1 + bm25_ranks[position]),
            1 / (1 + cosine_ranks[position]),
            _sentence_value(sentences, position, cosines[position]),
        )
        for position, item in enumerate(items)
    ]
    return np.array(rows, dtype=np.float64).reshape(len(rows), 6)


def _sentence_value(sentences: Sequence[float | None] | None, position: int, cosine: float | None) -> float:
    if sentences is None:
        return 0.0
    value = sentences[position]
    return float(value if value is not None else (cosine or 0.0))


@dataclass(frozen=True)
class FusedReranker:
    """Orders a pool by query-word coverage fused with its cosine to the query and first-stage ranks.

    ``similarities`` (from the workspace: stored vectors, no model call for passages) fills the cosine of
    passages that reached the pool without one. Without it those count 0, which ranks a graph pipeline's graph-found
    passages below its dense ones for no reason but how they were found."""

    weights: FusedWeights = FusedWeights()
    similarities: Similarities | None = None
    sentence_similarities: Similarities | None = None

    def scores(self, query: str, items: Sequence[ContextItem]) -> list[float]:
        """The fused score of every item (exposed so a trace or a tuning run can read it)."""
        return [float(s) for s in self.features(query, items) @ self.weights.vector()]

    def features(self, query: str, items: Sequence[ContextItem]) -> np.ndarray:
        """The :func:`fused_features` rows this reranker weighs, with its cosine fill and sentence scores."""
        return fused_features(query, items, self.fill(query, items), self.sentence_scores(query, items))

    def sentence_scores(self, query: str, items: Sequence[ContextItem]) -> list[float | None] | None:
        """Best-sentence cosines of the items (None without stored sentence vectors, and when no item has
        one: an index made before sentence vectors were switched on scores as it did without them, instead
        of every passage taking its cosine in their place, until `kgrag index` embeds the sentences)."""
        if self.sentence_similarities is None:
            return None
        scores = self.sentence_similarities(query, items)
        return scores if any(score is not None for score in scores) else None

    def fill(self, query: str, items: Sequence[ContextItem]) -> list[float | None] | None:
        """Stored-vector cosines of the items that came from neither first-stage search (None for the
        others). A BM25-only passage keeps no cosine: missing from the dense top of the pool is itself
        information, and filling those too barely changed ``rerank``'s recall for a cost on every query
        (docs/results/design-measurements.md)."""
        missing = [
            i for i, item in enumerate(items) if item.scores.get("dense") is None and item.scores.get("bm25") is None
        ]
        if self.similarities is None or not missing:
            return None
        found = self.similarities(query, [items[i] for i in missing])
        filled: list[float | None] = [None] * len(items)
        for index, value in zip(missing, found, strict=True):
            filled[index] = value
        return filled

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        return reorder(items, self.scores(query, items), k)


def fused_reranker(settings: FusedSettings, resources: RerankResources) -> FusedReranker:
    """Registry factory ``fused``: the weights come from ``[rerank.fused]``."""
    return FusedReranker(FusedWeights.from_settings(settings), resources.similarities, resources.sentence_similarities)
