"""The search half of DRIFT (Microsoft GraphRAG's community-primed local search): a primer over community
reports, then rounds of follow-up questions answered by local search, all inside a hard prompt budget.

1. **Primer**: the ``reports`` community reports most similar to the question go to one call
   (``drift_primer``) that drafts a first answer and proposes up to ``follow_ups`` rated follow-up questions.
2. **Follow-ups**: for each of ``depth`` rounds, the ``breadth`` best-rated questions not yet answered are
   searched with the local pipeline (``local_pipeline``, ``graph-local`` by default); each gets one call
   (``drift_follow_up``) over the passages found, which answers it with ``[c:ID]`` citations and may
   propose further questions for the next round.
3. The reduce call over the intermediate answers is the pipeline's answer strategy
   (:mod:`kgrag.generation.drift_answer`); the ledger keeps room for it from the start
   (:mod:`kgrag.retrieval.steps.drift_calls`).

A call that would not fit the budget is not sent and its question is marked ``skipped: budget``. The trace
has a ``drift_primer`` and a ``drift_local`` step: the primer's reports, answer and proposals; every
follow-up with its depth, rating, status, prompt tokens and answer; the ledger. Without an LLM there is no
primer and no follow-up: the context is the top reports plus a local search of the question itself, and
the default LLM-free answer reads it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import JsonValue

from kgrag.core.context import ContextItem, IntermediateAnswers, PartialAnswer
from kgrag.core.errors import KgragError
from kgrag.core.llm_types import Message
from kgrag.models.llm import LLMClient
from kgrag.prompts.schemas import DriftReply
from kgrag.retrieval.pipeline_settings import DriftSettings
from kgrag.retrieval.pipelines import Pipeline, build_pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.requirements import enforce_requirements
from kgrag.retrieval.resources.stored import COMMUNITIES
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.budget import FitBudget, item_tokens
from kgrag.retrieval.steps.community import report_item
from kgrag.retrieval.steps.drift_calls import (
    FOLLOW_UP_PROMPT,
    PRIMER_PROMPT,
    PRIMER_QUESTION,
    STAGE_FOLLOW_UP,
    STAGE_PRIMER,
    DriftLedger,
    ask,
    context_line,
    cut_to_tokens,
    fit_lines,
    message_tokens,
    new_ledger,
    partial_line,
    report_line,
    reports_to_passages,
)

NO_LLM_NOTE = "no LLM: primer and follow-up questions skipped; context = top reports + local search of the question"


@dataclass
class FollowUpRecord:
    """One follow-up question and what became of it: ``depth`` is the round after the one that proposed
    it (1: the primer's), ``round`` the round that took it up (0: none), ``status`` one of answered, no
    answer, invalid reply, skipped: budget, not reached: depth, not chosen: breadth."""

    question: str
    score: int
    depth: int
    status: str = "pending"
    round: int = 0
    items: int = 0
    prompt_tokens: int = 0
    answer: str = ""

    def to_dict(self) -> dict[str, JsonValue]:
        """The record as the ``drift_local`` trace step lists it."""
        return {
            "question": self.question,
            "score": self.score,
            "depth": self.depth,
            "status": self.status,
            "round": self.round,
            "items": self.items,
            "prompt_tokens": self.prompt_tokens,
            "answer": self.answer,
        }


def _key(text: str) -> str:
    return " ".join(text.lower().replace("?", " ").split())


@dataclass
class _Run:
    """One query's working state: the ledger, the follow-up pool and the context gathered."""

    question: str
    settings: DriftSettings
    llm: LLMClient
    ledger: DriftLedger
    pool: list[FollowUpRecord] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)
    items: dict[str, ContextItem] = field(default_factory=dict)

    def propose(self, reply: DriftReply, depth: int) -> None:
        """Queue the reply's follow-ups (best rated first, at most ``follow_ups``), none asked twice."""
        ranked = sorted(reply.follow_ups, key=lambda f: -f.score)[: self.settings.follow_ups]
        for follow in ranked:
            key = _key(follow.question)
            if key and key not in self.seen:
                self.seen.add(key)
                self.pool.append(FollowUpRecord(" ".join(follow.question.split()), follow.score, depth))

    def partial_cap(self, question: str) -> int:
        """What the reduce prompt needs for one more intermediate answer to ``question``."""
        return self.llm.count_tokens(partial_line("P00", question, "")) + self.settings.partial_tokens + 2

    def keep_partial(self, label: str, question: str, answer: str) -> str:
        text = cut_to_tokens(answer, self.settings.partial_tokens, self.llm.count_tokens)
        self.ledger.partials += self.llm.count_tokens(partial_line(label, question, text)) + 1
        return text


@dataclass(frozen=True)
class DriftSearch:
    """The DRIFT search step (see the module docstring)."""

    settings: DriftSettings
    name: str = "drift_search"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        local = self._local_pipeline(env)
        hits = env.get(COMMUNITIES).search(
            env.embed_query(state.query), self.settings.reports, env.config.communities.search_levels
        )
        reports = [report_item(report, score, "drift") for report, score in hits]
        llm = env.llm()
        if not llm.available:
            self._llm_free(state, env, local, reports, started)
            return
        run = _Run(state.query, self.settings, llm, new_ledger(llm, state.query, self.settings))
        run.seen.add(_key(state.query))
        primer = self._primer(run, reports)
        state.record("drift_primer", primer, len(run.pool), started)
        started = time.perf_counter()
        if not run.pool and self.settings.depth:  # nothing proposed: the question itself is searched locally
            run.pool.append(FollowUpRecord(state.query, 0, 1))
        for depth in range(1, self.settings.depth + 1):
            chosen = sorted((f for f in run.pool if f.status == "pending"), key=lambda f: -f.score)
            for follow in chosen[: self.settings.breadth]:
                self._follow_up(run, follow, depth, local, env)
        for follow in run.pool:
            if follow.status == "pending":
                follow.status = "not reached: depth" if follow.depth > self.settings.depth else "not chosen: breadth"
        offered = primer["reports"]
        state.items = _unique([*run.items.values(), *reports[: offered if isinstance(offered, int) else 0]])
        state.record("drift_local", self._local_params(run, local.name), len(state.items), started)
        state.intermediate = _intermediate(run, str(primer.get("answer") or ""))

    def _llm_free(
        self, state: QueryState, env: QueryContext, local: Pipeline, reports: list[ContextItem], started: float
    ) -> None:
        """No LLM: the best reports within half the pipeline's context budget, then the local search of
        the question itself fitted into the rest (pipelines compare at equal context)."""
        tokens = env.config.retrieval.context_tokens_for(state.pipeline)
        kept: list[ContextItem] = []
        used = 0
        for report in reports:
            cost = item_tokens(report, env)
            if used + cost > tokens // 2:
                continue
            kept.append(report)
            used += cost
        state.items = self._search(local, state.query, env)
        found = len(state.items)
        FitBudget(tokens - used, excerpts=env.config.retrieval.excerpts).run(state, env)
        state.items = _unique([*state.items, *kept])
        params: dict[str, JsonValue] = {"reports": len(kept), "status": "skipped: no LLM"}
        state.record("drift_primer", params, len(kept), started, note=NO_LLM_NOTE)
        local_params: dict[str, JsonValue] = {"local_pipeline": local.name, "follow_ups": [], "items": found}
        state.record("drift_local", local_params, len(state.items), started, note=NO_LLM_NOTE)

    def _local_pipeline(self, env: QueryContext) -> Pipeline:
        if env.pipelines is None:
            raise KgragError("the query context has no pipeline registry to run drift's local searches with")
        pipeline = build_pipeline(env.pipelines, self.settings.local_pipeline, env.config)
        enforce_requirements(pipeline.name, pipeline.requires, env)
        return pipeline

    def _search(self, pipeline: Pipeline, question: str, env: QueryContext) -> list[ContextItem]:
        """The local pipeline's items for ``question`` (its own steps on a fresh state)."""
        state = QueryState(query=question, k=self.settings.local_k, queries=[question], pipeline=pipeline.name)
        for step in pipeline.steps:
            step.run(state, env)
        return [item for item in state.items if item.text.strip()]

    def _primer(self, run: _Run, reports: list[ContextItem]) -> dict[str, JsonValue]:
        """The primer call over as many of the reports as fit; its answer is the first intermediate one."""
        prompt = run.llm.prompt(PRIMER_PROMPT)
        params: dict[str, JsonValue] = {"reports": 0, "report_ids": [], "status": "skipped: budget", "prompt_tokens": 0}
        params.update(answer="", proposed=[])
        variables = {"question": run.question, "follow_ups": self.settings.follow_ups}

        def render(lines: Sequence[str]) -> list[Message]:
            return prompt.render({**variables, "reports": "\n".join(lines)})

        room = run.ledger.room(run.partial_cap(PRIMER_QUESTION))
        fitted = fit_lines(render, [report_line(i, r) for i, r in enumerate(reports)], room, run.llm.count_tokens)
        if not fitted.lines:
            run.ledger.skipped_for_budget += 1
            return params
        reply, completion = ask(run.llm, fitted.messages, prompt, STAGE_PRIMER, self.settings)
        run.ledger.book(fitted.tokens, completion)
        params.update(reports=fitted.lines, report_ids=[r.id for r in reports[: fitted.lines]])
        params.update(prompt_tokens=fitted.tokens, completion_tokens=completion)
        if reply is None:
            params["status"] = "invalid reply"
            return params
        answer = reports_to_passages(reply.answer, reports[: fitted.lines])
        params["status"] = "answered" if answer.strip() else "no answer"
        if answer.strip():
            params["answer"] = run.keep_partial("P0", PRIMER_QUESTION, answer)
        run.propose(reply, 1)
        params["proposed"] = [{"question": f.question, "score": f.score} for f in run.pool]
        return params

    def _follow_up(self, run: _Run, follow: FollowUpRecord, depth: int, local: Pipeline, env: QueryContext) -> None:
        """Search ``follow`` locally and ask the follow-up call over what fits; book or skip it."""
        follow.round = depth
        prompt = run.llm.prompt(FOLLOW_UP_PROMPT)
        variables = {"question": run.question, "follow_up": follow.question, "follow_ups": self.settings.follow_ups}

        def render(lines: Sequence[str]) -> list[Message]:
            return prompt.render({**variables, "context": "\n".join(lines)})

        room = run.ledger.room(run.partial_cap(follow.question))
        base = message_tokens(render([]), run.llm.count_tokens)
        if room - base < 20:  # not even a short passage would fit: no search, no call
            follow.status, run.ledger.skipped_for_budget = "skipped: budget", run.ledger.skipped_for_budget + 1
            return
        found = self._search(local, follow.question, env)
        lines = [context_line(item) for item in found]
        limit = min(room, base + self.settings.local_tokens)
        fitted = fit_lines(render, lines, limit, run.llm.count_tokens)
        if not fitted.lines:
            follow.status, run.ledger.skipped_for_budget = "skipped: budget", run.ledger.skipped_for_budget + 1
            return
        reply, completion = ask(run.llm, fitted.messages, prompt, STAGE_FOLLOW_UP, self.settings)
        run.ledger.book(fitted.tokens, completion)
        follow.items, follow.prompt_tokens = fitted.lines, fitted.tokens
        for item in found[: fitted.lines]:
            run.items.setdefault(f"{item.kind}:{item.id}", item)
        if reply is None:
            follow.status = "invalid reply"
            return
        follow.status = "answered" if reply.answer.strip() else "no answer"
        if reply.answer.strip():
            follow.answer = run.keep_partial(f"P{len(run.pool)}", follow.question, reply.answer)
        run.propose(reply, depth + 1)

    def _local_params(self, run: _Run, local: str) -> dict[str, JsonValue]:
        answered = sum(1 for f in run.pool if f.status == "answered")
        return {
            "depth": self.settings.depth,
            "breadth": self.settings.breadth,
            "local_pipeline": local,
            "budget": self.settings.max_prompt_tokens,
            **run.ledger.to_params(),
            "answered": answered,
            "follow_ups": [f.to_dict() for f in run.pool],
        }


def _intermediate(run: _Run, primer_answer: str) -> IntermediateAnswers:
    """The primer's answer, then the answered follow-ups best rated first, and the search's spend."""
    partials = [PartialAnswer(PRIMER_QUESTION, primer_answer)] if primer_answer else []
    answered = sorted((f for f in run.pool if f.status == "answered" and f.answer), key=lambda f: -f.score)
    partials += [PartialAnswer(f.question, f.answer) for f in answered]
    ledger = run.ledger
    return IntermediateAnswers(
        tuple(partials), ledger.limit, ledger.spent, ledger.calls, ledger.completion, ledger.skipped_for_budget
    )


def _unique(items: list[ContextItem]) -> list[ContextItem]:
    out: dict[tuple[str, str], ContextItem] = {}
    for item in items:
        out.setdefault((item.kind, item.id), item)
    return list(out.values())
