"""The default answer strategy: an LLM answer with checked citations when an LLM is configured, else
the extractive LLM-free answer. Pipelines without their own strategy are answered by this one."""

from __future__ import annotations

from dataclasses import dataclass

from kgrag.config import KgragConfig
from kgrag.core.answer import Answer
from kgrag.core.context import RetrievalResult
from kgrag.generation.answer import generate_answer
from kgrag.generation.extractive import Ranking, extractive_answer
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient


@dataclass(frozen=True)
class LLMOrExtractive:
    """``llm.available``: :func:`generate_answer` (citations, "I don't know" when the context lacks the
    answer); otherwise :func:`extractive_answer`, ranking sentences as ``generation.extractive_ranking``
    says (``auto`` is ``lexical``: no model, the same answer whichever pipeline retrieved) and answering
    "not found" under ``generation.extractive_min_coverage``."""

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer:
        if llm.available:
            return generate_answer(llm, question, result, config.generation)
        generation = config.generation
        ranking: Ranking = "embedding" if generation.extractive_ranking == "embedding" else "lexical"
        return extractive_answer(
            question, result, embedder, generation.extractive_sentences, ranking, generation.extractive_min_coverage
        )


DEFAULT_STRATEGY = LLMOrExtractive()
