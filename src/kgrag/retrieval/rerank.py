"""The reranker slot of a query: a small protocol and a deterministic fake.

No built-in pipeline reranks yet; the slot exists so a cross-encoder (or an LLM judge) can be put on a
workspace's :class:`~kgrag.retrieval.query_context.QueryContext` and used by any recipe that adds a
:class:`~kgrag.retrieval.rerank_step.Rerank` step, without another field or a string-keyed extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from kgrag.core.context import ContextItem
from kgrag.documents.words import content_words


class Reranker(Protocol):
    """Reorders (and may cut) candidates for a query; returns at most ``k`` items, best first."""

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]: ...


@dataclass(frozen=True)
class WordOverlapReranker:
    """Fake reranker: orders by the share of the query's content words an item contains (ties keep the
    incoming order). Deterministic and model-free, for tests and as a reference implementation."""

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        wanted = content_words(query)
        scored = [
            (len(wanted & content_words(item.text)) / max(1, len(wanted)), n, item) for n, item in enumerate(items)
        ]
        ranked = sorted(scored, key=lambda t: (-t[0], t[1]))[:k]
        for score, _, item in ranked:
            item.scores["rerank"] = score
        return [item for _, _, item in ranked]
