"""How a question is answered from retrieved context: the :class:`AnswerStrategy` protocol.

It lives in ``retrieval`` because a :class:`~kgrag.retrieval.pipelines.Pipeline` may carry its own
strategy (global map-reduce answers from community reports, not from the ranked items alone); the
default strategy (LLM answer with citations, else extractive) lives in :mod:`kgrag.generation`, which
may import retrieval but not the other way round.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kgrag.config import KgragConfig
from kgrag.core.answer import Answer
from kgrag.core.context import RetrievalResult
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient


class AnswerStrategy(Protocol):
    """Turns a retrieval result into an answer; ``llm`` may be the ``none`` client (``available`` False)."""

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer: ...


@dataclass(frozen=True)
class FixedAnswer:
    """Fake strategy: a fixed text citing the top retrieved chunk, with no model calls (tests, demos)."""

    text: str

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer:
        chunks = [item.id for item in result.items if item.kind == "chunk"][:1]
        return Answer(text=self.text, citations=chunks, mode="extractive", idk=not result.items)
