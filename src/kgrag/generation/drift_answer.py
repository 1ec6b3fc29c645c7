"""The answer of the ``drift`` pipeline: one reduce call over the intermediate answers its search found
(:mod:`kgrag.retrieval.steps.drift`), inside what is left of the query's prompt budget.

The intermediate answers (the primer's first, then the answered follow-ups, best rated first) and the search's
spend come typed from the search (:class:`~kgrag.core.context.IntermediateAnswers` on the result); their
``[c:ID]`` markers are checked against the passages
the search handed over, as every answer's citations are (:func:`~kgrag.generation.answer.extract_citations`).
As many as fit the budget go to the ``drift_reduce`` prompt; if not even one fits, the first intermediate
answer is the answer and no call is made. The trace gets a ``drift_reduce`` step; ``Answer.usage`` has the
query's calls and prompt tokens in total. Without an LLM (or when the search wrote none: it had no LLM) the
default strategy answers: extractive over the reports and local passages.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import JsonValue

from kgrag.config import KgragConfig
from kgrag.core.context import RetrievalResult, TraceStep
from kgrag.core.llm_types import Message
from kgrag.generation.answer import IDK_SENTENCE, extract_citations
from kgrag.generation.strategy import DEFAULT_STRATEGY
from kgrag.generation.types import Answer, AnswerUsage
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient
from kgrag.retrieval.pipeline_settings import DriftSettings
from kgrag.retrieval.steps.drift_calls import (
    REDUCE_PROMPT,
    STAGE_REDUCE,
    fit_lines,
    partial_line,
    reduce_messages,
    reduce_words,
)


def _citable(result: RetrievalResult) -> frozenset[str]:
    ids = {item.id for item in result.items if item.kind == "chunk"}
    return frozenset(ids | {cid for item in result.items for cid in item.chunk_ids})


@dataclass
class _Reduce:
    """What the reduce step did: the reply text, its prompt and completion tokens, lines offered and used."""

    text: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    offered: int = 0
    used: int = 0

    @property
    def status(self) -> str:
        if self.prompt_tokens:
            return "answered"
        return "skipped: budget" if self.offered else "nothing to reduce"

    def trace(self, citations: int, started: float) -> TraceStep:
        params: dict[str, JsonValue] = {
            "llm_calls": 1 if self.prompt_tokens else 0,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "partials": self.offered,
            "partials_used": self.used,
            "status": self.status,
        }
        ms = round((time.perf_counter() - started) * 1000, 3)
        return TraceStep(step="drift_reduce", params=params, n_out=citations, ms=ms)


def _reduce(llm: LLMClient, question: str, lines: list[str], room: int, settings: DriftSettings) -> _Reduce:
    """One reduce call over the intermediate answers (best first) that fit ``room``; none when not one does."""
    done = _Reduce(offered=len(lines))
    if not lines:
        return done
    prompt = llm.prompt(REDUCE_PROMPT)
    words = reduce_words(settings)

    def render(chosen: Sequence[str]) -> list[Message]:
        return reduce_messages(prompt, question, chosen, words)

    fitted = fit_lines(render, lines, room, llm.count_tokens)
    if not fitted.lines:
        return done
    reply = llm.chat(fitted.messages, stage=STAGE_REDUCE, prompt=prompt.ref, max_tokens=settings.answer_tokens)
    done.text, done.prompt_tokens = reply.text.strip(), fitted.tokens
    done.completion_tokens, done.used = reply.usage.completion_tokens, fitted.lines
    return done


@dataclass(frozen=True)
class DriftReduce:
    """The answer strategy of ``drift`` (see the module docstring)."""

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer:
        found = result.intermediate if llm.available else None
        if found is None:
            return DEFAULT_STRATEGY.answer(question, result, llm, embedder, config)
        settings = config.retrieval.pipeline_settings(result.pipeline, DriftSettings)
        citable = _citable(result)
        cleaned = [(p.question, extract_citations(p.answer, citable)[0]) for p in found.partials]
        lines = [partial_line(f"P{i + 1}", q, a) for i, (q, a) in enumerate(cleaned)]
        started = time.perf_counter()
        done = _reduce(llm, question, lines, found.limit - found.spent, settings)
        text = done.text or (cleaned[0][1] if cleaned else "")  # no room or an empty reply: the first one stands
        text, citations, invented = extract_citations(text, citable) if text else (IDK_SENTENCE, [], [])
        result.trace.append(done.trace(len(citations), started))
        calls = found.llm_calls + (1 if done.prompt_tokens else 0)
        spent = found.spent + done.prompt_tokens
        completion = found.completion_tokens + done.completion_tokens
        usage: AnswerUsage = {
            "llm_calls": calls,
            "prompt_tokens": spent,
            "completion_tokens": completion,
            "budget": settings.max_prompt_tokens,
            "skipped_for_budget": found.skipped_for_budget + (done.status == "skipped: budget"),
            "invented_citations": invented,
        }
        cost = llm.runner.prices.cost(spent, completion)
        line = (
            f"LLM: {calls} calls (DRIFT: primer, follow-ups, reduce), {spent} prompt + {completion} completion tokens"
        )
        idk = text == IDK_SENTENCE
        return Answer(text, [] if idk else citations, "llm", idk=idk, cost_line=f"{line}, ${cost:.6f}", usage=usage)


DRIFT_ANSWER = DriftReduce()
