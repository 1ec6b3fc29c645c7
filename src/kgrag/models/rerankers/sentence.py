"""The `sentence` reranker (offline default before `lexical`, then `fused`): a candidate is as good as
its best sentences, by the local embedder.

A chunk embedding averages every sentence of a ~200-token passage, so one sentence that answers the
question is diluted by the rest; evidence in QA benchmarks is sentence-sized. This reranker embeds each
candidate's sentences (cached by text, so a sentence is embedded once per process whatever pipeline or
question meets it), scores a candidate by the mean of its ``sentences`` best cosine similarities to the
question, and fuses that rank with the incoming first-stage rank (which already carries BM25 and dense
evidence) by weighted reciprocal-rank fusion. It needs no download: the workspace's embedder does the
work (all-MiniLM-L6-v2 ships as a package), where a cross-encoder would need weights that cannot be
installed here.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence

import numpy as np

from kgrag.core.context import ContextItem
from kgrag.documents.sentences import sentence_texts
from kgrag.models.embeddings import Embedder
from kgrag.models.rerankers.base import RerankResources, reorder
from kgrag.models.rerankers.settings import SentenceSettings

RRF_K = 60
CACHE_SIZE = 200_000


class _VectorCache:
    """Text → unit vector, least recently used dropped first; embedding runs outside the lock."""

    def __init__(self, embed: Callable[[list[str]], np.ndarray], size: int = CACHE_SIZE) -> None:
        self._embed = embed
        self._size = size
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    def get_many(self, texts: Sequence[str]) -> np.ndarray:
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        fresh = self._embed(missing) if missing else np.zeros((0, 0), dtype=np.float32)
        with self._lock:
            for text, vector in zip(missing, fresh, strict=True):
                self._vectors[text] = vector
            rows = []
            for text in texts:
                vector = self._vectors.get(text)
                if vector is None:  # evicted by another thread between the two locks: rare, recompute
                    vector = self._embed([text])[0]
                self._vectors[text] = vector
                self._vectors.move_to_end(text)
                rows.append(vector)
            while len(self._vectors) > self._size:
                self._vectors.popitem(last=False)
        return np.stack(rows) if rows else np.zeros((0, 0), dtype=np.float32)


class SentenceReranker:
    """Best-sentence similarity fused with the incoming rank (see the module docstring)."""

    def __init__(self, embedder: Callable[[], Embedder], sentences: int = 2, incoming_weight: float = 0.5) -> None:
        self._embedder = embedder
        self.sentences = sentences
        self.incoming_weight = incoming_weight
        self._cache = _VectorCache(lambda texts: self._embedder().embed(texts))

    def sentence_scores(self, query: str, items: Sequence[ContextItem]) -> list[float]:
        """Mean of each item's ``sentences`` best sentence similarities to ``query``."""
        per_item = [sentence_texts(item.text) for item in items]
        flat = [s for group in per_item for s in group]
        if not flat:
            return [0.0] * len(items)
        query_vector = self._cache.get_many([query])[0]
        similarities = self._cache.get_many(flat) @ query_vector
        scores, start = [], 0
        for group in per_item:
            own = np.sort(similarities[start : start + len(group)])[::-1][: self.sentences]
            scores.append(float(own.mean()) if len(own) else 0.0)
            start += len(group)
        return scores

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        scores = self.sentence_scores(query, items)
        by_sentence = sorted(range(len(items)), key=lambda i: (-scores[i], i))
        fused = [0.0] * len(items)
        for rank, i in enumerate(by_sentence, start=1):
            fused[i] += 1.0 / (RRF_K + rank)
            items[i].scores["best_sentences"] = scores[i]
        for rank in range(1, len(items) + 1):
            fused[rank - 1] += self.incoming_weight / (RRF_K + rank)
        return reorder(items, fused, k)


def sentence_reranker(settings: SentenceSettings, resources: RerankResources) -> SentenceReranker:
    return SentenceReranker(resources.embedder, settings.sentences, settings.incoming_weight)
