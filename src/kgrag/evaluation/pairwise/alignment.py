"""Length alignment before pairwise judging (zeng-unbiased-eval): judges prefer longer answers, so the
shorter answer is regenerated from its own context with the longer one's length as target, up to
``length_attempts`` times; if still short, it is padded without new content; a pair still more than
``tolerance_words`` apart is discarded, and the discard rate is reported."""

from __future__ import annotations

from dataclasses import dataclass, replace

from kgrag.evaluation.pairwise.types import AnswerPair, PairwiseSettings
from kgrag.models.llm import LLMClient, LLMUnavailableError


@dataclass(frozen=True)
class Aligned:
    """The pair after alignment, or ``pair is None`` with the reason it was discarded."""

    pair: AnswerPair | None
    note: str
    rewrites: int = 0


def words(text: str) -> int:
    return len(text.split())


def _rewrite(client: LLMClient, question: str, answer: str, context: str, target: int, attempt: int) -> str:
    reply = client.chat_prompt(
        "eval_length_align",
        {"question": question, "context": context or "(no context)", "answer": answer, "target_words": target},
        stage="eval.pairwise.align",
        seed=attempt,
    )
    return reply.text.strip()


def _pad(client: LLMClient, question: str, answer: str, missing: int) -> str:
    reply = client.chat_prompt(
        "eval_length_pad", {"question": question, "answer": answer, "missing_words": missing}, stage="eval.pairwise.pad"
    )
    return reply.text.strip()


def align(pair: AnswerPair, client: LLMClient, settings: PairwiseSettings) -> Aligned:
    """Bring the shorter answer within ``tolerance_words`` of the longer one, or discard the pair."""
    tol = settings.tolerance_words
    a_shorter = words(pair.answer_a) < words(pair.answer_b)
    short, long_ = (pair.answer_a, pair.answer_b) if a_shorter else (pair.answer_b, pair.answer_a)
    context = pair.context_a if a_shorter else pair.context_b
    target = words(long_)
    rewrites = 0
    try:
        for attempt in range(settings.length_attempts):
            if abs(words(short) - target) <= tol:
                break
            short = _rewrite(client, pair.question, short, context, target, attempt) or short
            rewrites += 1
        if target - words(short) > tol:
            short = _pad(client, pair.question, short, target - words(short)) or short
            rewrites += 1
    except LLMUnavailableError as exc:
        return Aligned(None, f"alignment call failed: {exc}", rewrites)
    if abs(words(short) - target) > tol:
        return Aligned(None, f"still {abs(words(short) - target)} words apart after {rewrites} rewrites", rewrites)
    aligned = replace(pair, answer_a=short) if a_shorter else replace(pair, answer_b=short)
    return Aligned(aligned, "", rewrites)
