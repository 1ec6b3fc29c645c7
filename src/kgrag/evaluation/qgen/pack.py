"""Packing a generator's source into a token budget by priority, never by cutting text mid-way.

Each piece (an entity's name, a passage, a relation, an entity's description) has a priority; pieces are
taken in priority order while they fit, and a piece that does not fit is left out whole (a smaller one
of lower priority may still fit). Graph sources put the names of every walked entity first (cheap, so the
whole walk is always named), then the passages (most walked entities first: they ground the question),
then the relations, then the descriptions. What was left out is counted by kind, so a report can say how
much of the walk the generator saw.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

ENTITY, PASSAGE, RELATION, DESCRIPTION = "entity", "passage", "relation", "description"


@dataclass(frozen=True)
class Piece:
    """One part of a source: ``kind``, its ``text``, a sort ``priority`` (lower first) and a ``key`` (the
    entity id a description belongs to, the chunk id of a passage)."""

    kind: str
    text: str
    priority: tuple[int, int]
    key: str = ""


@dataclass
class Packed:
    """The pieces that fit, in priority order, and what was offered and left out, by kind."""

    kept: list[Piece]
    offered: Counter[str]
    left_out: Counter[str]
    tokens: int


def pack(pieces: Sequence[Piece], budget: int, count_tokens: Callable[[str], int]) -> Packed:
    """The pieces that fit ``budget`` tokens together, taken by priority (stable for ties)."""
    kept: list[Piece] = []
    offered: Counter[str] = Counter(p.kind for p in pieces)
    left_out: Counter[str] = Counter()
    used = 0
    for piece in sorted(pieces, key=lambda p: p.priority):
        cost = count_tokens(piece.text) + 1
        if used + cost <= budget:
            kept.append(piece)
            used += cost
        else:
            left_out[piece.kind] += 1
    return Packed(kept, offered, left_out, used)


def render(packed: Packed) -> tuple[str, list[Piece]]:
    """The source text (entities with their kept descriptions, relations, numbered passages) and the
    passages in the order they are numbered."""
    descriptions = {p.key: p.text for p in packed.kept if p.kind == DESCRIPTION}
    lines = [
        f"{p.text} {descriptions[p.key]}".rstrip() if p.key in descriptions else p.text
        for p in packed.kept
        if p.kind == ENTITY
    ]
    lines += [p.text for p in packed.kept if p.kind == RELATION]
    passages = [p for p in packed.kept if p.kind == PASSAGE]
    body = "\n\n".join(f"[Passage {i}] {p.text}" for i, p in enumerate(passages, start=1))
    return "\n\n".join(part for part in ("\n".join(lines), body) if part), passages
