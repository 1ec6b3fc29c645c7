"""Query-side steps: query expansion, HyDE, both in one call, and LightRAG keywords (lundberg-2026).

Each asks the LLM through the LLM layer (cached, budgeted, in the ledger under ``query.<step>``) with a
versioned prompt, and has an LLM-free path used when no LLM is configured or the reply is invalid, so
the same recipe runs with ``llm = none``; the trace note says which path ran and why.

LLM-free paths (pseudo-relevance feedback, which needs no model): expansion adds the question's content
words alone and the question plus the most distinctive words of the top BM25 passages; HyDE uses the
best BM25 passage as the "hypothetical" document; keywords come from the question's noun-phrase runs,
split into low level (phrases naming a graph entity, or multi-word) and high level (the rest).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from pydantic import JsonValue

from kgrag.core.llm_types import StructuredResult
from kgrag.documents.words import content_words, ordered_content_words
from kgrag.graph.normalize import entity_key
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps.basic import QueryState, bm25_hits
from kgrag.retrieval.steps.graph_local import query_keywords

PRF_PASSAGES = 3
PRF_TERMS = 6


def ask(env: QueryContext, prompt: str, question: str, stage: str, **extra: Any) -> tuple[Any, str, int]:
    """(parsed value or None, note, prompt tokens) for one structured call; None means "fall back"."""
    llm = env.llm()
    if not llm.available:
        return None, "no LLM configured: LLM-free fallback", 0
    reply: StructuredResult[Any] = llm.structured(prompt, {"question": question.strip(), **extra}, stage=stage)
    tokens = reply.usage.prompt_tokens if reply.usage else 0
    if reply.value is None:
        return None, f"invalid LLM reply ({reply.error}): LLM-free fallback", tokens
    return reply.value, "llm", tokens


class FeedbackPassages:
    """The question's best BM25 passages, read at most once per step: expansion reads the best
    :data:`PRF_PASSAGES`, HyDE's fallback the best one, so ``combined`` (both) runs one search, not two.

    The question is searched ``depth`` deep (at least :data:`PRF_PASSAGES`) through the run's
    :func:`~kgrag.retrieval.steps.bm25_hits`: a recipe passes its BM25 pool, so its BM25 step finds the
    question already searched."""

    def __init__(self, env: QueryContext, state: QueryState, depth: int = PRF_PASSAGES) -> None:
        self._env = env
        self._state = state
        self._depth = max(depth, PRF_PASSAGES)
        self._texts: list[str] | None = None

    def top(self, n: int) -> list[str]:
        """The best ``n`` (at most :data:`PRF_PASSAGES`) passage texts, best first."""
        if self._texts is None:
            hits = bm25_hits(self._state, self._env, [self._state.query], self._depth)[0][:PRF_PASSAGES]
            self._texts = [chunk.text for chunk in self._env.store.chunks.get_many([h.id for h in hits])]
        return self._texts[:n]


def prf_rewrites(query: str, feedback: FeedbackPassages) -> list[str]:
    """LLM-free expansion: the content words alone, and the query plus distinctive feedback terms (ties in
    frequency go to the term met first in the best passages, so every process picks the same ones)."""
    words = content_words(query)
    counts: Counter[str] = Counter()
    for text in feedback.top(PRF_PASSAGES):
        counts.update(w for w in ordered_content_words(text) if w not in words and not w.isdigit() and len(w) > 2)
    feedback_terms = [w for w, n in counts.most_common(PRF_TERMS * 2) if n > 1][:PRF_TERMS]
    rewrites = [" ".join(sorted(words))] if words else []
    if feedback_terms:
        rewrites.append(f"{query} {' '.join(feedback_terms)}")
    return [r for r in rewrites if r and r != query]


def _clean(rewrites: list[str], query: str, n: int) -> list[str]:
    return [r.strip() for r in dict.fromkeys(rewrites) if r.strip() and r.strip() != query][:n]


def _rewrites_or_fallback(rewrites: list[str] | None, query: str, n: int, feedback: FeedbackPassages) -> list[str]:
    """The LLM's rewrites, cleaned; without any (no LLM, or a failed call), pseudo-relevance feedback."""
    return (_clean(rewrites, query, n) if rewrites else []) or prf_rewrites(query, feedback)


def _passage_or_fallback(passage: str | None, query: str, feedback: FeedbackPassages) -> list[str]:
    """The LLM's hypothetical passage; without one, the best BM25 passage, else the question itself."""
    text = (passage or "").strip()
    return [text] if text else feedback.top(1) or [query]


@dataclass(frozen=True)
class ExpandQuery:
    """Add ``n`` rewrites of the question to ``state.queries`` (search steps then search them all);
    ``pool`` is how deep the LLM-free fallback searches the question (the recipe's BM25 pool, see
    :class:`FeedbackPassages`)."""

    n: int = 3
    name: str = "expand_query"
    pool: int = PRF_PASSAGES

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        value, note, tokens = ask(env, "query_expansion", state.query, "query.expand")
        proposed = value.rewrites if value is not None else None
        rewrites = _rewrites_or_fallback(proposed, state.query, self.n, FeedbackPassages(env, state, self.pool))
        state.queries.extend(rewrites)
        state.record(self.name, {"rewrites": [*rewrites], "prompt_tokens": tokens}, len(rewrites), started, note)


@dataclass(frozen=True)
class Hypothesize:
    """HyDE: put a hypothetical answering passage in ``state.hypothetical``."""

    name: str = "hyde"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        value, note, tokens = ask(env, "hyde", state.query, "query.hyde")
        passage = value.passage if value is not None else None
        state.hypothetical = _passage_or_fallback(passage, state.query, FeedbackPassages(env, state))
        state.record(self.name, {"prompt_tokens": tokens}, len(state.hypothetical), started, note)


@dataclass(frozen=True)
class ExpandAndHypothesize:
    """Query expansion and HyDE in one LLM call (the ``combined`` pipeline); each falls back alone
    (``pool`` as for :class:`ExpandQuery`)."""

    n: int = 3
    name: str = "expand_and_hyde"
    pool: int = PRF_PASSAGES

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        value, note, tokens = ask(env, "expand_and_hyde", state.query, "query.expand_hyde")
        feedback = FeedbackPassages(env, state, self.pool)
        rewrites = value.rewrites if value is not None else None
        state.queries.extend(_rewrites_or_fallback(rewrites, state.query, self.n, feedback))
        passage = value.passage if value is not None else None
        state.hypothetical = _passage_or_fallback(passage, state.query, feedback)
        params: dict[str, JsonValue] = {"rewrites": [*state.queries[1:]], "prompt_tokens": tokens}
        state.record(self.name, params, len(state.queries) - 1 + len(state.hypothetical), started, note)


def nlp_keywords(query: str, known_entity: Any) -> dict[str, list[str]]:
    """LLM-free keywords: phrases naming a graph entity or of several words are low level; single content
    words that name no entity are high level (themes), both longest first."""
    low: list[str] = []
    high: list[str] = []
    for phrase in query_keywords(query):
        if known_entity(entity_key(phrase)) or len(phrase.split()) > 1:
            low.append(phrase)
        elif len(phrase) > 2 and not phrase.isdigit():
            high.append(phrase)
    return {"low": low[:8], "high": high[:8] or low[:3]}


@dataclass(frozen=True)
class ExtractKeywords:
    """LightRAG keywords into ``state.keywords`` (``low`` → entities, ``high`` → relations)."""

    name: str = "keywords"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        value, note, tokens = ask(env, "query_keywords", state.query, "query.keywords")
        if value is not None and (value.low_level or value.high_level):
            state.keywords = {"low": list(value.low_level), "high": list(value.high_level) or list(value.low_level)}
        else:
            by_key = env.graph_index().by_key
            state.keywords = nlp_keywords(state.query, lambda key: key in by_key)
            note = note if value is None else "empty LLM keywords: LLM-free fallback"
        params: dict[str, JsonValue] = {
            "low": [*state.keywords["low"]],
            "high": [*state.keywords["high"]],
            "prompt_tokens": tokens,
        }
        state.record(self.name, params, sum(map(len, state.keywords.values())), started, note)
