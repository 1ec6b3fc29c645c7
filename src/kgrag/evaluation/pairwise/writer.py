"""A pipeline's own generation step, kept per question so length alignment can ask it for an answer of a
target length from the context it already retrieved (no second retrieval, no other model)."""

from __future__ import annotations

from dataclasses import dataclass

from kgrag.config import GenerationConfig
from kgrag.core.context import RetrievalResult
from kgrag.generation.answer import CUT_NOTE, generate_answer
from kgrag.models.llm import LLMClient, LLMUnavailableError


@dataclass(frozen=True)
class PipelineWriter:
    """:class:`~kgrag.evaluation.pairwise.types.AnswerWriter` over the default answer step (the ``answer``
    prompt with the ``answer_length`` line) and the pipeline's LLM client."""

    client: LLMClient
    question: str
    result: RetrievalResult
    generation: GenerationConfig

    def regenerate(self, target_words: int, attempt: int) -> str | None:
        try:
            answer = generate_answer(
                self.client,
                self.question,
                self.result,
                self.generation,
                stage="eval.pairwise.regenerate",
                target_words=target_words,
            )
        except LLMUnavailableError:
            return None
        if answer.idk or not answer.text.strip() or CUT_NOTE in answer.text:
            return None  # the judge rewrites rather than align with a refusal or a cut answer
        return answer.text

    def pad(self, answer: str, missing_words: int) -> str | None:
        try:
            reply = self.client.chat_prompt(
                "eval_length_pad",
                {"question": self.question, "answer": answer, "missing_words": missing_words},
                stage="eval.pairwise.pad",
            )
        except LLMUnavailableError:
            return None
        return reply.text.strip() or None


def pipeline_writer(
    client: LLMClient, question: str, result: RetrievalResult, generation: GenerationConfig, own_answer_step: bool
) -> PipelineWriter | None:
    """The writer for one pipeline's answer, or None where the default answer step did not make it (a
    pipeline with its own answer step, or no LLM): the judge then rewrites, and the report says so."""
    if own_answer_step or not client.available:
        return None
    return PipelineWriter(client, question, result, generation)
