"""How a question is answered from retrieved context: the :class:`AnswerStrategy` protocol, the default
strategy (an LLM answer with checked citations when an LLM is configured, else the extractive LLM-free
answer) and a fixed fake. Pipelines without their own strategy are answered by the default one; others
name theirs (``Pipeline.answer``), resolved by :mod:`kgrag.generation.recipes`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from kgrag.config import GenerationConfig, KgragConfig
from kgrag.core.context import RetrievalResult
from kgrag.generation.answer import generate_answer
from kgrag.generation.attribution import Attributor
from kgrag.generation.extractive import Ranking, extractive_answer
from kgrag.generation.types import Answer
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient


class AnswerStrategy(Protocol):
    """Turns a retrieval result into an answer; ``llm`` may be the ``none`` client (``available`` False)."""

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer: ...


@dataclass(frozen=True)
class LLMOrExtractive:
    """``llm.available``: :func:`generate_answer` (citations, "I don't know" when the context lacks the
    answer); otherwise :func:`extractive_answer`, ranking sentences as ``generation.extractive_ranking``
    says (``auto`` is ``lexical``: no model, the same answer whichever pipeline retrieved) and answering
    "not found" under ``generation.extractive_min_coverage``."""

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer:
        generation = config.generation
        if llm.available:
            return generate_answer(llm, question, result, generation, attributor=attributor_for(generation, embedder))
        ranking: Ranking = "embedding" if generation.extractive_ranking == "embedding" else "lexical"
        return extractive_answer(
            question, result, embedder, generation.extractive_sentences, ranking, generation.extractive_min_coverage
        )


def attributor_for(generation: GenerationConfig, embedder: Embedder | None) -> Attributor | None:
    """The attributor ``generation.attribution`` asks for (None when it is ``off``)."""
    if generation.attribution == "off":
        return None
    return Attributor(embedder, generation.attribution_threshold, generation.attribution_embedding_weight)


DEFAULT_STRATEGY = LLMOrExtractive()


@dataclass(frozen=True)
class FixedAnswer:
    """Fake strategy: a fixed text citing the top retrieved chunk, with no model calls (tests, demos)."""

    text: str

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer:
        chunks = [item.id for item in result.items if item.kind == "chunk"][:1]
        return Answer(text=self.text, citations=chunks, mode="extractive", idk=not result.items)
