"""Assemble the answer context from retrieved items under a token budget.

Items are grouped into passages (``chunk``), graph facts (``entity``, ``relation``, ``path``) and
community reports (``community``). Each group gets a share of the budget; a group that needs less than its
share gives the rest to the others (water-filling), and whatever whole items still leave unused goes to
the best-ranked items that did not fit. Items are never cut: a half passage is worse evidence than none.

Every item is labelled with its id so the model can cite it: passages as ``[c:ID]`` (the citation syntax
of the ``answer`` prompt), other items as ``[entity:ID]``, ``[relation:ID]``, ``[path:ID]``,
``[report:ID]`` with their source passages listed as ``[c:ID]`` labels too.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from kgrag.core.context import ContextItem

GROUP_OF_KIND = {"chunk": "passages", "entity": "graph", "relation": "graph", "path": "graph",
                 "community": "communities"}  # fmt: skip
GROUP_ORDER = ("passages", "graph", "communities")
GROUP_TITLES = {"passages": "Passages", "graph": "Knowledge-graph facts", "communities": "Community reports"}
LABEL_OF_KIND = {"entity": "entity", "relation": "relation", "path": "path", "community": "report"}
MAX_SOURCES_SHOWN = 5


@dataclass(frozen=True)
class ContextBlock:
    """The rendered context plus what it holds: ``citable`` are the chunk ids an answer may cite."""

    text: str
    tokens: int
    item_ids: list[str]
    citable: frozenset[str]
    dropped: int
    tokens_by_group: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class _Entry:
    rank: int
    group: str
    text: str
    tokens: int
    item: ContextItem


def render_item(item: ContextItem) -> str:
    """One labelled item as it appears in the prompt."""
    body = " ".join(item.text.split())
    if item.kind == "chunk":
        return f"[c:{item.id}] {body}"
    line = f"[{LABEL_OF_KIND.get(item.kind, item.kind)}:{item.id}] {body}"
    sources = item.chunk_ids[:MAX_SOURCES_SHOWN]
    if sources:
        line += " (sources: " + " ".join(f"[c:{cid}]" for cid in sources) + ")"
    return line


def allocate(budget: int, shares: Mapping[str, float], demand: Mapping[str, int]) -> dict[str, int]:
    """Split ``budget`` by ``shares``; a group's unused share flows to groups still wanting more."""
    allot = {group: 0 for group in demand}
    active = {g for g, need in demand.items() if need > 0 and shares.get(g, 0) > 0}
    remaining = budget
    while active and remaining > 0:
        total_share = sum(shares[g] for g in active)
        offers = {g: int(remaining * shares[g] / total_share) for g in active}
        satisfied = {g for g in active if demand[g] - allot[g] <= offers[g]}
        if not satisfied:
            for g in active:
                allot[g] += offers[g]
            break
        for g in satisfied:
            remaining -= demand[g] - allot[g]
            allot[g] = demand[g]
        active -= satisfied
    return allot


def _entries(items: Sequence[ContextItem], count: Callable[[str], int]) -> list[_Entry]:
    out = []
    for rank, item in enumerate(items):
        if item.text.strip():
            text = render_item(item)
            out.append(_Entry(rank, GROUP_OF_KIND.get(item.kind, "graph"), text, count(text) + 1, item))
    return out


def _select(entries: list[_Entry], allot: Mapping[str, int], budget: int) -> list[_Entry]:
    """Whole items in rank order within each group's allotment, then leftovers by rank into what is left."""
    used = {group: 0 for group in allot}
    chosen: list[_Entry] = []
    skipped: list[_Entry] = []
    for entry in entries:
        if used[entry.group] + entry.tokens <= allot.get(entry.group, 0):
            used[entry.group] += entry.tokens
            chosen.append(entry)
        else:
            skipped.append(entry)
    left = budget - sum(used.values())
    for entry in skipped:
        if entry.tokens <= left:
            left -= entry.tokens
            chosen.append(entry)
    return chosen


def build_context(
    items: Sequence[ContextItem], budget_tokens: int, shares: Mapping[str, float], count: Callable[[str], int]
) -> ContextBlock:
    """The context block for ``items`` (in rank order) within ``budget_tokens`` as counted by ``count``."""
    entries = _entries(items, count)
    demand = {group: sum(e.tokens for e in entries if e.group == group) for group in GROUP_ORDER}
    headers = sum(count(GROUP_TITLES[g] + ":\n") + 1 for g in GROUP_ORDER if demand[g])
    budget = max(0, budget_tokens - headers)
    allot = allocate(budget, shares, demand)
    chosen = _select(entries, allot, budget)
    sections = []
    tokens_by_group: dict[str, int] = {}
    for group in GROUP_ORDER:
        members = sorted((e for e in chosen if e.group == group), key=lambda e: e.rank)
        if members:
            tokens_by_group[group] = sum(e.tokens for e in members)
            sections.append(GROUP_TITLES[group] + ":\n" + "\n\n".join(e.text for e in members))
    citable = {e.item.id for e in chosen if e.item.kind == "chunk"}
    citable.update(cid for e in chosen if e.item.kind != "chunk" for cid in e.item.chunk_ids[:MAX_SOURCES_SHOWN])
    return ContextBlock(
        text="\n\n".join(sections),
        tokens=sum(tokens_by_group.values()),
        item_ids=[e.item.id for e in sorted(chosen, key=lambda e: e.rank)],
        citable=frozenset(citable),
        dropped=len(entries) - len(chosen),
        tokens_by_group=tokens_by_group,
    )
