"""The budget step that hands neighbour passages over without their shared overlap, carried by
``bench_context_overlap.py`` for the record (measured and not kept: docs/results/context-overlap.md).

Consecutive chunks of a document repeat a few whole trailing sentences of the previous one (the chunking
overlap, :mod:`kgrag.documents.chunking`). Where the text is shared is read from the chunk offsets the
store keeps (an item's ``span``, set when it is hydrated), never by matching strings. Two forms:

- ``cut`` (``merge=False``): the passage chosen first stays whole; a later one of the same document is
  handed over as its own item without the part of its span the context already holds (its id and
  provenance unchanged, its text a slice of its chunk's, so an item never holds more than its chunk did);
- ``merge``: a later passage that shares text with exactly one passage already chosen joins it: one item
  whose text is their union (an exact slice of the document), whose ``chunk_ids`` name both chunks in
  document order, with one label instead of two; where it shares text with two, it is cut instead.

Either way the freed tokens go to the next passages and the excerpts, and the excerpts' source passages
are cut the same way, so no sentence is handed over twice.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial

from pydantic import JsonValue

from kgrag.core.context import ContextItem
from kgrag.retrieval.pipelines import Pipeline
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.resources.text import passage_sentences
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.budget import (
    LABEL_TOKENS,
    FitBudget,
    _passages_in_pipeline_order,
    _values,
    item_tokens,
    similarities,
)
from kgrag.retrieval.steps.excerpts import EXCERPT_SOURCES, excerpts

Span = tuple[int, int]


def uncovered(span: Span, held: Iterable[Span]) -> Span | None:
    """The part of ``span`` (start, end) that no ``held`` span covers; None when all of it is covered.
    Held spans can cut its head or its tail; one strictly inside it would leave two pieces, and then
    ``span`` is kept whole (a chunk that contains another one is not how chunks are cut)."""
    start, end = span
    for low, high in sorted(held):
        if high <= start or low >= end:
            continue
        if low <= start:
            start = high
        elif high >= end:
            end = low
        else:
            return span
        if start >= end:
            return None
    return start, end


def held_spans(items: Iterable[ContextItem]) -> dict[str, list[Span]]:
    """The spans of the passages in ``items`` by document."""
    held: dict[str, list[Span]] = {}
    for item in items:
        if item.kind == "chunk" and item.span is not None and item.doc_id is not None:
            held.setdefault(item.doc_id, []).append(item.span)
    return held


def _exact(item: ContextItem) -> bool:
    """A hydrated passage whose text is exactly its span of the document."""
    return item.kind == "chunk" and item.span is not None and item.span[1] - item.span[0] == len(item.text)


def without_held(
    item: ContextItem, held: Mapping[str, Sequence[Span]], count_tokens: Callable[[str], int]
) -> ContextItem | None:
    """``item`` without the text that ``held`` spans of its document hold: ``item`` itself when it shares
    none (or is not a passage whose text is its span), a copy holding the rest (``n_tokens`` recounted,
    the chunk's own span kept as ``chunk_span``), None when nothing of it is left. The chunking overlap is
    whole sentences, so a cut falls on a sentence boundary."""
    if not _exact(item) or item.doc_id is None or not held.get(item.doc_id) or item.span is None:
        return item
    first, last = item.span
    left = uncovered(item.span, held[item.doc_id])
    if left is None or left == item.span:
        return item if left is not None else None
    raw = item.text[left[0] - first : left[1] - first]
    text = raw.strip()
    if not text:
        return None
    start = left[0] + len(raw) - len(raw.lstrip())
    metadata = dict(item.metadata) | {"n_tokens": count_tokens(text), "chunk_span": [first, last]}
    return replace(item, text=text, span=(start, start + len(text)), scores=dict(item.scores), metadata=metadata)


def union(held: ContextItem, item: ContextItem, count_tokens: Callable[[str], int]) -> ContextItem | None:
    """``held`` extended by the part of ``item`` (same document, sharing text) that reaches past it on one
    side: their union, an exact slice of the document; None when ``item`` reaches past both sides."""
    assert held.span is not None and item.span is not None
    (low, high), (start, end) = held.span, item.span
    if start >= low and end > high:
        text, span, ids = held.text + item.text[high - start :], (low, end), [*held.chunk_ids, item.id]
    elif start < low and end <= high:
        text, span, ids = item.text[: low - start] + held.text, (start, high), [item.id, *held.chunk_ids]
    else:
        return None
    metadata = dict(held.metadata) | {"n_tokens": count_tokens(text), "merged": True}
    return replace(held, text=text, span=span, chunk_ids=ids, scores=dict(held.scores), metadata=metadata)


@dataclass
class _Fill:
    """What the budget has chosen so far: items keyed by the ``id()`` of the candidate each stands for."""

    chosen: dict[int, ContextItem]
    passages: set[str]
    held: dict[str, list[Span]]
    spent: int
    by_kind: dict[str, int]

    def add(self, key: int, item: ContextItem, cost: int, passage: str | None) -> None:
        self.chosen[key] = item
        self.spent += cost
        self.by_kind[item.kind] = self.by_kind.get(item.kind, 0) + cost
        if passage is not None:
            self.passages.add(passage)
            if item.span is not None and item.doc_id is not None:
                self.held.setdefault(item.doc_id, []).append(item.span)

    def sharing(self, item: ContextItem) -> list[int]:
        """Keys of the chosen passages of ``item``'s document whose text overlaps its text."""
        if item.span is None:
            return []
        start, end = item.span
        return [
            key
            for key, held in self.chosen.items()
            if _exact(held) and held.doc_id == item.doc_id and held.span and held.span[0] < end and start < held.span[1]
        ]


@dataclass(frozen=True)
class OverlapBudget(FitBudget):
    """``FitBudget`` that hands each passage over without the text its document's passages already chosen
    hold (cut, or with ``merge`` joined to the one it shares text with) and cuts the excerpts' sources
    the same way."""

    merge: bool = False

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        pool = state.items
        items = self._candidates(pool, state.k)
        order = items
        if any(item.kind != "chunk" for item in items):
            values = _values(items, similarities(items, env, state.query), self.fact_weight)
            if all("rerank" in item.scores for item in items if item.kind == "chunk"):
                values = _passages_in_pipeline_order(items, values)
            order = [items[i] for i in sorted(range(len(items)), key=lambda i: -values[i])]
        fill = self._fill_cut(order, env, state.k)
        chosen = list(fill.chosen.values())
        state.items = [fill.chosen[id(item)] for item in items if id(item) in fill.chosen]
        added = self._cut_excerpts(state, pool, chosen, self.tokens - fill.spent, env) if self.excerpts else []
        spent, by_kind = fill.spent, fill.by_kind
        if added:
            state.items.extend(added)
            by_kind["excerpt"] = sum(item_tokens(item, env) for item in added)
            spent += by_kind["excerpt"]
        state.context_tokens = spent
        params: dict[str, JsonValue] = {"tokens": self.tokens, "spent": spent, "by_kind": dict(by_kind)}
        state.record(self.name, params, len(state.items), started)

    @staticmethod
    def _cut_excerpts(
        state: QueryState, pool: Sequence[ContextItem], chosen: Sequence[ContextItem], room: int, env: QueryContext
    ) -> list[ContextItem]:
        whole = {cid for item in chosen if item.kind == "chunk" for cid in {item.id, *item.chunk_ids}}
        slots = min(EXCERPT_SOURCES, state.k - len(whole))
        if slots <= 0:
            return []
        held = held_spans(chosen)
        left_out = [item for item in pool if item.kind == "chunk" and item.id not in whole]
        cut = [c for item in left_out if (c := without_held(item, held, env.count_tokens)) is not None]
        sources = [item for item in cut if item.text.strip()][:slots]
        return excerpts(state.query, sources, room, env.count_tokens, LABEL_TOKENS, partial(passage_sentences, env))

    def _fill_cut(self, order: Sequence[ContextItem], env: QueryContext, k: int) -> _Fill:
        fill = _Fill({}, set(), {}, 0, {})
        for candidate in order:
            if candidate.kind == "chunk" and len(fill.passages) >= k:
                continue
            if candidate.kind != "chunk" and candidate.chunk_ids and fill.passages.issuperset(candidate.chunk_ids):
                continue
            if self.merge and self._merged(candidate, fill, env):
                continue
            item = without_held(candidate, fill.held, env.count_tokens) if candidate.kind == "chunk" else candidate
            if item is None:
                continue
            cost = item_tokens(item, env)
            if fill.spent + cost > self.tokens and fill.chosen:
                continue
            fill.add(id(candidate), item, cost, item.id if item.kind == "chunk" else None)
        return fill

    def _merged(self, candidate: ContextItem, fill: _Fill, env: QueryContext) -> bool:
        """Join ``candidate`` to the one chosen passage it shares text with, when that fits the budget;
        whether it was handled (joined, or left out for want of room)."""
        keys = fill.sharing(candidate) if _exact(candidate) else []
        if len(keys) != 1:
            return False
        held = fill.chosen[keys[0]]
        joined = union(held, candidate, env.count_tokens)
        if joined is None:
            return False
        cost = item_tokens(joined, env) - item_tokens(held, env)
        if fill.spent + cost <= self.tokens:
            fill.add(keys[0], joined, cost, candidate.id)
        return True


def with_overlap(pipeline: Pipeline, variant: str) -> Pipeline:
    """``pipeline`` with its budget step replaced by :class:`OverlapBudget` for ``cut`` and ``merge``;
    itself for ``off``."""
    if variant == "off":
        return pipeline
    steps = tuple(
        OverlapBudget(s.tokens, s.fact_weight, s.excerpts, s.name, merge=variant == "merge")
        if isinstance(s, FitBudget)
        else s
        for s in pipeline.steps
    )
    return replace(pipeline, steps=steps)
