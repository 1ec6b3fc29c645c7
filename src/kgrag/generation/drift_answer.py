"""The answer of the ``drift`` pipeline: one reduce call over the intermediate answers its search found
(:mod:`kgrag.retrieval.drift_search`), inside what is left of the query's prompt budget.

The intermediate answers (the primer's first, then the answered follow-ups, best rated first) come from the
``drift_local`` and ``drift_primer`` trace steps; their ``[c:ID]`` markers are checked against the passages
the search handed over, as every answer's citations are (:func:`~kgrag.generation.answer.extract_citations`).
As many as fit the budget go to the ``drift_reduce`` prompt; if not even one fits, the best intermediate
answer is the answer and no call is made. The trace gets a ``drift_reduce`` step; ``Answer.usage`` has the
query's calls and prompt tokens in total. Without an LLM (or without the search's trace) the default
strategy answers: extractive over the reports and local passages.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Any

from kgrag.config import KgragConfig
from kgrag.core.answer import Answer
from kgrag.core.context import RetrievalResult, TraceStep
from kgrag.generation.answer import IDK_SENTENCE, extract_citations
from kgrag.generation.strategy import DEFAULT_STRATEGY
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient
from kgrag.retrieval.drift_calls import (
    PRIMER_QUESTION,
    REDUCE_PROMPT,
    STAGE_REDUCE,
    fit_lines,
    partial_line,
    reduce_messages,
    reduce_words,
)
from kgrag.retrieval.drift_settings import drift_settings
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.recipes.drift import drift_search_pipeline


def _partials(result: RetrievalResult) -> tuple[list[tuple[str, str]], dict[str, Any]] | None:
    """(question, answer) of every intermediate answer, and the search's ledger; None without the trace."""
    steps = {s.step: s for s in result.trace}
    primer, local = steps.get("drift_primer"), steps.get("drift_local")
    if primer is None or local is None or "limit" not in local.params:
        return None
    out = [(PRIMER_QUESTION, str(primer.params["answer"]))] if primer.params.get("answer") else []
    answered = [f for f in local.params["follow_ups"] if f["status"] == "answered" and f["answer"]]
    out += [(str(f["question"]), str(f["answer"])) for f in sorted(answered, key=lambda f: -int(f["score"]))]
    return out, local.params


def _citable(result: RetrievalResult) -> frozenset[str]:
    ids = {item.id for item in result.items if item.kind == "chunk"}
    return frozenset(ids | {cid for item in result.items for cid in item.chunk_ids})


@dataclass(frozen=True)
class DriftReduce:
    """The answer strategy of ``drift`` (see the module docstring)."""

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer:
        found = _partials(result) if llm.available else None
        if found is None:
            return DEFAULT_STRATEGY.answer(question, result, llm, embedder, config)
        partials, ledger = found
        settings = drift_settings(config.retrieval.settings_for(result.pipeline).options, "drift")
        citable = _citable(result)
        cleaned = [(q, extract_citations(a, citable)[0]) for q, a in partials]
        lines = [partial_line(f"P{i + 1}", q, a) for i, (q, a) in enumerate(cleaned)]
        prompt = llm.prompt(REDUCE_PROMPT)
        words = reduce_words(settings)

        def render(chosen: Any) -> Any:
            return reduce_messages(prompt, question, chosen, words)

        started = time.perf_counter()
        room = int(ledger["limit"]) - int(ledger["spent"])
        fitted = fit_lines(render, lines, room, llm.count_tokens) if lines else None
        text, completion = "", 0
        if fitted is not None and fitted.lines:
            reply = llm.chat(fitted.messages, stage=STAGE_REDUCE, prompt=prompt.ref, max_tokens=settings.answer_tokens)
            text, completion = reply.text.strip(), reply.usage.completion_tokens
        reduce_tokens = fitted.tokens if fitted is not None else 0
        if not text and cleaned:  # no room (or an empty reply): the best intermediate answer stands
            text = cleaned[0][1]
        text, citations, invented = extract_citations(text, citable) if text else (IDK_SENTENCE, [], [])
        calls = int(ledger["llm_calls"]) + (1 if reduce_tokens else 0)
        params = {
            "llm_calls": 1 if reduce_tokens else 0,
            "prompt_tokens": reduce_tokens,
            "completion_tokens": completion,
            "partials": len(lines),
            "partials_used": fitted.lines if fitted is not None else 0,
            "status": "answered" if reduce_tokens else ("skipped: budget" if lines else "nothing to reduce"),
        }
        ms = round((time.perf_counter() - started) * 1000, 3)
        result.trace.append(TraceStep(step="drift_reduce", params=params, n_out=len(citations), ms=ms))
        spent = int(ledger["spent"]) + reduce_tokens
        completion_total = int(ledger["completion_tokens"]) + completion
        usage = {
            "llm_calls": calls,
            "prompt_tokens": spent,
            "completion_tokens": completion_total,
            "budget": settings.max_prompt_tokens,
            "skipped_for_budget": int(ledger["skipped_for_budget"]) + (1 if lines and not reduce_tokens else 0),
            "invented_citations": invented,
        }
        cost = llm.runner.prices.cost(spent, completion_total)
        line = (
            f"LLM: {calls} calls (DRIFT: primer, follow-ups, reduce), {spent} prompt + "
            f"{completion_total} completion tokens, ${cost:.6f}"
        )
        idk = text == IDK_SENTENCE
        return Answer(text, [] if idk else citations, "llm", idk=idk, cost_line=line, usage=usage)


DRIFT_ANSWER = DriftReduce()


def drift_pipeline(name: str, config: KgragConfig) -> Pipeline:
    """The registered ``drift`` factory: the search recipe with its reduce answer."""
    return replace(drift_search_pipeline(name, config), answer=DRIFT_ANSWER)
