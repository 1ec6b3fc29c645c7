"""How much evidence recall@k whole chunks *can* reach, and where a pipeline's misses are.

Evidence recall counts an evidence sentence only when one retrieved item holds ``threshold`` of its
content words (:mod:`kgrag.evaluation.recall`). An evidence sentence that no single chunk of the index
holds — because it straddles a chunk boundary or paraphrases sentences far apart — can never be
recalled by a pipeline that hands over whole chunks, however well it ranks. Before tuning a ranker
against a target, measure that ceiling: ``reachable`` is the share of a question's evidence held by some
chunk (an exact upper bound for any k), ``best_k`` the share k chunks chosen greedily for coverage reach
(an achievable oracle). :func:`miss_locations` then sorts a pipeline's misses into "ranked just below k",
"ranked lower in the pool", "in a chunk the pool lacks" and "in no chunk", which says which lever could
help: a reranker, a wider pool, better first-stage search, or different items (chunking, windows).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kgrag.documents.words import content_words


def _holds(evidence: set[str], item: set[str], threshold: float) -> bool:
    return len(evidence & item) / len(evidence) >= threshold


class ChunkWords:
    """Content words of every chunk of an index, with an inverted index so a lookup touches only the
    chunks that share a word with the evidence."""

    def __init__(self, texts: Iterable[str]) -> None:
        self.words = [content_words(text) for text in texts]
        self._where: dict[str, set[int]] = defaultdict(set)
        for i, words in enumerate(self.words):
            for word in words:
                self._where[word].add(i)

    def holding(self, evidence: set[str], threshold: float) -> set[int]:
        """Indices of the chunks that hold ``threshold`` of ``evidence``'s content words."""
        near = set().union(*(self._where.get(word, set()) for word in evidence))
        return {i for i in near if _holds(evidence, self.words[i], threshold)}


@dataclass(frozen=True)
class Ceiling:
    """Per-question upper bounds of evidence recall with whole chunks (see the module docstring)."""

    reachable: float
    best_k: float


def chunk_ceiling(evidence: Sequence[str], chunks: ChunkWords, k: int, threshold: float) -> Ceiling | None:
    """The question's ceiling at ``k`` whole chunks; None when it has no usable evidence (as in recall)."""
    usable = [words for words in (content_words(e) for e in evidence) if words]
    if not usable:
        return None
    holders = [chunks.holding(words, threshold) for words in usable]
    covered: set[int] = set()
    for _ in range(k):
        gain = Counter(c for j, held in enumerate(holders) if j not in covered for c in held)
        if not gain:
            break
        best = gain.most_common(1)[0][0]
        covered |= {j for j, held in enumerate(holders) if best in held}
    return Ceiling(sum(bool(h) for h in holders) / len(usable), len(covered) / len(usable))


MISS_KINDS = ("in top k", "ranked k+1..2k", "ranked lower in the pool", "in a chunk outside the pool", "in no chunk")


def miss_locations(
    evidence: Sequence[str], ranked: Sequence[str], chunks: ChunkWords, k: int, threshold: float
) -> Counter[str]:
    """Where each usable evidence sentence is relative to a pipeline's ranked pool ``ranked`` (chunk
    texts, best first): one count per sentence under one of :data:`MISS_KINDS`."""
    pool = [content_words(text) for text in ranked]
    out: Counter[str] = Counter()
    for words in (content_words(e) for e in evidence):
        if not words:
            continue
        rank = next((i for i, item in enumerate(pool) if _holds(words, item, threshold)), None)
        if rank is not None:
            out[MISS_KINDS[0] if rank < k else MISS_KINDS[1] if rank < 2 * k else MISS_KINDS[2]] += 1
        else:
            out[MISS_KINDS[3] if chunks.holding(words, threshold) else MISS_KINDS[4]] += 1
    return out
