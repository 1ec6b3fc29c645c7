"""A seeded sample of a corpus, stratified over documents and cut to a token budget.

Each document is split into passages at blank lines (merged up to about ``passage_tokens``); documents
are visited in a seeded order and each round takes one not-yet-taken passage, picked at random, from every
document, so a corpus of many short documents and one huge one is sampled across all of them rather than
mostly from the huge one. The same corpus, seed and budget give the same sample.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

_BLANK_LINES = re.compile(r"\n\s*\n")


@dataclass(frozen=True)
class SourceText:
    """One document's text and the name it is shown under (its source path or title)."""

    name: str
    text: str


@dataclass(frozen=True)
class Passage:
    """A sampled passage and the document it comes from."""

    source: str
    text: str
    tokens: int


def passages(text: str, passage_tokens: int, count: Callable[[str], int]) -> list[str]:
    """``text`` cut at blank lines into passages of about ``passage_tokens`` (a longer paragraph stays whole)."""
    found: list[str] = []
    current: list[str] = []
    size = 0
    for paragraph in (p.strip() for p in _BLANK_LINES.split(text)):
        if not paragraph:
            continue
        tokens = count(paragraph)
        if current and size + tokens > passage_tokens:
            found.append("\n\n".join(current))
            current, size = [], 0
        current.append(paragraph)
        size += tokens
    if current:
        found.append("\n\n".join(current))
    return found


def stratified_sample(
    sources: Sequence[SourceText],
    budget_tokens: int,
    count: Callable[[str], int],
    *,
    seed: int = 0,
    passage_tokens: int = 300,
) -> list[Passage]:
    """Passages from ``sources``, round-robin over documents in a seeded order, until ``budget_tokens``."""
    rng = random.Random(seed)
    pools: list[tuple[str, list[str]]] = []
    for source in sorted(sources, key=lambda s: s.name):
        pieces = passages(source.text, passage_tokens, count)
        rng.shuffle(pieces)
        if pieces:
            pools.append((source.name, pieces))
    rng.shuffle(pools)
    taken: list[Passage] = []
    used = 0
    while pools and used < budget_tokens:
        for name, pieces in list(pools):
            if used >= budget_tokens:
                break
            text = pieces.pop()
            tokens = count(text)
            taken.append(Passage(name, text, tokens))
            used += tokens
            if not pieces:
                pools.remove((name, pieces))
    return taken
