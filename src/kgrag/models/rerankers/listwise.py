"""Listwise reranking by the configured LLM: one call sees every candidate and returns an order.

Through the LLM layer, so the call is cached, budgeted and in the usage ledger (stage
``query.rerank``). Candidates the reply leaves out (or an invalid reply) keep their incoming order after
the ranked ones, so a weak model can only reorder, never lose evidence. With no LLM configured it keeps
the order and says so in the item scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kgrag.core.context import ContextItem
from kgrag.core.llm_types import StructuredResult
from kgrag.models.llm import LLMClient
from kgrag.models.rerankers.base import RerankResources, reorder
from kgrag.models.rerankers.settings import ListwiseSettings

PROMPT = "rerank_listwise"
STAGE = "query.rerank"


class ListwiseLLMReranker:
    """Numbered passages in, a ranking of their numbers out (schema ``rerank_ranking``)."""

    def __init__(self, llm: LLMClient, max_chars: int = 1200) -> None:
        self.llm = llm
        self.max_chars = max_chars

    def _passages(self, items: Sequence[ContextItem]) -> str:
        return "\n\n".join(f"[{n}] {' '.join(item.text.split())[: self.max_chars]}" for n, item in enumerate(items))

    def rerank(self, query: str, items: Sequence[ContextItem], k: int) -> list[ContextItem]:
        if not items or not self.llm.available:
            return list(items[:k])
        reply: StructuredResult[Any] = self.llm.structured(
            PROMPT, {"question": query.strip(), "passages": self._passages(items), "k": k}, stage=STAGE
        )
        ranking = list(getattr(reply.value, "ranking", None) or [])
        position = {n: p for p, n in enumerate(dict.fromkeys(i for i in ranking if 0 <= i < len(items)))}
        scores = [float(len(items) - position[n]) if n in position else -float(n) - 1 for n in range(len(items))]
        return reorder(items, scores, k)


def llm_reranker(settings: ListwiseSettings, resources: RerankResources) -> ListwiseLLMReranker:
    return ListwiseLLMReranker(resources.llm(), settings.max_chars)
