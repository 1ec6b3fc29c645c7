"""``global`` answers by map-reduce over community reports (the Microsoft GraphRAG global search that
feldt-hellstrom-2026 describes), inside a hard prompt-token budget.

Map: each batch of reports (planned by :func:`plan_batches`, best first) goes to one call that lists the
points it holds for the question, each rated 0–100. Points below ``min_score`` of ``[retrieval.pipelines.global]`` are
dropped. Reduce: the best points that fit the reserve go to one call that writes the answer. Map calls
are checked against the budget before they are sent, so a query never spends more than
``max_prompt_tokens`` prompt tokens; the calls and tokens appear in the trace
(``global_map``, ``global_reduce``) and in ``Answer.usage``. Without an LLM the answer is extractive:
the report sentences most similar to the question.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

import numpy as np
from pydantic import JsonValue

from kgrag.communities.schemas import MapPoint, MapReply
from kgrag.config import KgragConfig
from kgrag.core.context import ContextItem, RetrievalResult, TraceStep
from kgrag.documents import split_sentences
from kgrag.generation.types import Answer, AnswerUsage
from kgrag.models.embeddings import Embedder
from kgrag.models.llm import LLMClient
from kgrag.models.llm.structured import ReplyInvalid, parse_reply
from kgrag.retrieval.pipeline_settings import GlobalSettings
from kgrag.retrieval.steps.global_plan import (
    MAP_PROMPT,
    MAP_REPLY_TOKENS,
    REDUCE_PROMPT,
    map_messages,
    message_tokens,
    plan_batches,
    reduce_messages,
    report_line,
)

STAGE_MAP = "query.global.map"
STAGE_REDUCE = "query.global.reduce"
NO_POINTS = "The community reports of this collection do not cover this question."
_LABEL = re.compile(r"R(\d+)")


@dataclass
class Spend:
    """Calls and tokens of one query: prompt tokens as counted before sending, completion as reported."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    dropped_batches: int = 0
    points: list[MapPoint] = field(default_factory=list)
    point_tokens: int = 0  # what the plan reserved for the reduce call's points


def _citations(labels: list[str], items: list[ContextItem], per_report: int = 2) -> list[str]:
    out: dict[str, None] = {}
    for label in labels:
        for match in _LABEL.finditer(label):
            index = int(match.group(1)) - 1
            if 0 <= index < len(items):
                for chunk in items[index].chunk_ids[:per_report]:
                    out.setdefault(chunk, None)
    return list(out)


@dataclass(frozen=True)
class GlobalMapReduce:
    """The answer strategy of the ``global`` pipeline."""

    def answer(
        self, question: str, result: RetrievalResult, llm: LLMClient, embedder: Embedder, config: KgragConfig
    ) -> Answer:
        items = [item for item in result.items if item.kind == "community"]
        if not llm.available:
            return _extractive(question, items, embedder, config.generation.extractive_sentences)
        spend = Spend()
        settings = config.retrieval.pipeline_settings(result.pipeline, GlobalSettings)
        started = time.perf_counter()
        self._map(question, items, llm, settings, spend)
        result.trace.append(_trace("global_map", spend, started, len(spend.points)))
        started, before = time.perf_counter(), (spend.calls, spend.prompt_tokens, spend.completion_tokens)
        text, cited = self._reduce(question, llm, settings, spend)
        reduce_spend = Spend(
            spend.calls - before[0], spend.prompt_tokens - before[1], spend.completion_tokens - before[2]
        )
        result.trace.append(_trace("global_reduce", reduce_spend, started, 1 if reduce_spend.calls else 0))
        usage: AnswerUsage = {
            "llm_calls": spend.calls,
            "prompt_tokens": spend.prompt_tokens,
            "completion_tokens": spend.completion_tokens,
            "budget": settings.max_prompt_tokens,
            "dropped_batches": spend.dropped_batches,
        }
        cost = llm.runner.prices.cost(spend.prompt_tokens, spend.completion_tokens)
        line = (
            f"LLM: {spend.calls} calls (map-reduce over {len(items)} reports), {spend.prompt_tokens} prompt + "
            f"{spend.completion_tokens} completion tokens, ${cost:.6f}"
        )
        return Answer(text, _citations(cited, items), "llm", idk=text == NO_POINTS, cost_line=line, usage=usage)

    def _map(self, question: str, items: list[ContextItem], llm: LLMClient, cfg: GlobalSettings, spend: Spend) -> None:
        map_prompt, reduce_prompt = llm.prompt(MAP_PROMPT), llm.prompt(REDUCE_PROMPT)
        plan = plan_batches(question, [i.text for i in items], cfg, llm.count_tokens, map_prompt, reduce_prompt)
        spend.point_tokens = plan.point_tokens
        for batch in plan.batches:
            messages = map_messages(map_prompt, question, [report_line(f"R{i + 1}", items[i].text) for i in batch])
            cost = message_tokens(messages, llm.count_tokens)
            if spend.prompt_tokens + cost > plan.budget - plan.reduce_reserve:
                spend.dropped_batches += 1
                continue
            reply = llm.chat(messages, stage=STAGE_MAP, prompt=map_prompt.ref, max_tokens=MAP_REPLY_TOKENS)
            spend.calls += 1
            spend.prompt_tokens += cost
            spend.completion_tokens += reply.usage.completion_tokens
            try:
                value, _ = parse_reply(reply.text, reply.finish_reason, MapReply)
            except ReplyInvalid:
                continue  # a broken map reply loses its batch; re-asking would break the budget
            spend.points += [p for p in value.points if p.score >= cfg.min_score]

    def _reduce(self, question: str, llm: LLMClient, cfg: GlobalSettings, spend: Spend) -> tuple[str, list[str]]:
        ranked = sorted(spend.points, key=lambda p: -p.score)
        lines: list[str] = []
        used = 0
        for p in ranked:
            line = f"- ({p.score}) {' '.join(p.point.split())} [{', '.join(p.reports)}]"
            cost = llm.count_tokens(line) + 1
            if used + cost > spend.point_tokens:
                break
            lines.append(line)
            used += cost
        if not lines:
            return NO_POINTS, []
        max_words = max(20, int(cfg.answer_tokens * 0.75))
        prompt = llm.prompt(REDUCE_PROMPT)
        messages = reduce_messages(prompt, question, lines, max_words)
        reply = llm.chat(messages, stage=STAGE_REDUCE, prompt=prompt.ref, max_tokens=cfg.answer_tokens)
        spend.calls += 1
        spend.prompt_tokens += message_tokens(messages, llm.count_tokens)
        spend.completion_tokens += reply.usage.completion_tokens
        return reply.text.strip() or NO_POINTS, [r for p in ranked[: len(lines)] for r in p.reports] + [reply.text]


def _trace(step: str, spend: Spend, started: float, n_out: int) -> TraceStep:
    params: dict[str, JsonValue] = {
        "llm_calls": spend.calls,
        "prompt_tokens": spend.prompt_tokens,
        "completion_tokens": spend.completion_tokens,
    }
    if step == "global_map":
        params["dropped_batches"] = spend.dropped_batches
    return TraceStep(step=step, params=params, n_out=n_out, ms=round((time.perf_counter() - started) * 1000, 3))


_OUTLINE = re.compile(r"^(?:#|\d+ entities centred on |\d+ sub-groups: )")
"""A report's outline rather than what it says: its title, and the member and sub-group lists an extractive
report opens with (:mod:`kgrag.communities.extractive`)."""


def _report_sentences(items: list[ContextItem]) -> list[tuple[int, str]]:
    """The sentences of the reports worth quoting, each once, with the index of the first report that holds it:
    nested reports repeat their children's sentences, and a finding line ("- A — label — B" and the sentence
    it comes from) repeats a sentence quoted on its own, so a sentence holding another one is left out."""
    found: dict[str, int] = {}
    for index, item in enumerate(items):
        for s, e in split_sentences(item.text):
            sentence = " ".join(item.text[s:e].split())
            if len(sentence.split()) >= 4 and not _OUTLINE.match(sentence):
                found.setdefault(sentence, index)
    return [
        (index, sentence)
        for sentence, index in found.items()
        if not any(other != sentence and other in sentence for other in found)
    ]


def _extractive(question: str, items: list[ContextItem], embedder: Embedder, n: int) -> Answer:
    """No LLM: the report sentences closest to the question, each tagged with its report label."""
    sentences = _report_sentences(items)
    if not sentences:
        return Answer(NO_POINTS, [], "extractive", idk=True)
    vectors = embedder.embed([question] + [s for _, s in sentences])
    scores = vectors[1:] @ vectors[0]
    top = sorted(np.argsort(-scores)[: max(1, n)].tolist())
    text = " ".join(f"{sentences[i][1]} [R{sentences[i][0] + 1}]" for i in top)
    labels = [f"R{sentences[i][0] + 1}" for i in top]
    return Answer(
        text,
        _citations(labels, items),
        "extractive",
        cost_line="no LLM call (extractive: report sentences closest to the question)",
        usage={"llm_calls": 0, "prompt_tokens": 0},
    )


GLOBAL_MAP_REDUCE = GlobalMapReduce()
"""The ``global`` entry of the ``answer_strategy`` registry."""
