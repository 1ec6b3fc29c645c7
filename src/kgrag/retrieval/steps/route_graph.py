"""What the graph says about the entities a question names, for the ``auto`` router's heuristics.

A question that names two things is a multi-hop question only when answering it means crossing from one to
the other through something else. The graph can tell: two named entities that a passage names together, or
that a relation links directly, are answered by one passage (a single fact about both); two that share a
neighbour but neither a passage nor a relation are linked only through that third entity, the bridge a
multi-hop question asks the reader to cross. Two that the graph does not link at all give the graph walk
nothing to follow either, so they too go to the local route.

The names come from the question's keyword phrases (:func:`~kgrag.retrieval.steps.graph_local.query_keywords`,
which also yields the parts of a phrase: "named type aliases", "type aliases", "type"); only the longest
phrase of a nest counts, so one thing named in several words is not counted as several things.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from kgrag.graph.index import GraphIndex
from kgrag.graph.normalize import entity_key


def outermost(phrases: Sequence[str]) -> list[str]:
    """``phrases`` without those that stand as whole words inside a longer one, longest first."""
    kept: list[str] = []
    for phrase in sorted(dict.fromkeys(phrases), key=len, reverse=True):
        inside = re.compile(rf"(?<!\w){re.escape(phrase.lower())}(?!\w)")
        if not any(inside.search(longer.lower()) for longer in kept):
            kept.append(phrase)
    return kept


@dataclass(frozen=True)
class Bridge:
    """Two named entities linked only through a third: ``first`` – ``via`` – ``second`` (names)."""

    first: str
    via: str
    second: str

    def describe(self) -> str:
        return f"{self.first} – {self.via} – {self.second} in the graph, not named together in a passage"


class RouteGraph:
    """The graph questions of the router over one loaded :class:`GraphIndex`."""

    def __init__(self, index: GraphIndex) -> None:
        self.index = index

    def known(self, phrase: str) -> bool:
        """Whether ``phrase`` is the name of a graph entity (compared by entity key)."""
        return entity_key(phrase) in self.index.by_key

    def bridge(self, named: Sequence[str]) -> Bridge | None:
        """The first pair of ``named`` entities (known names) linked only through a common neighbour."""
        entities = self.index.entities
        ids = list(dict.fromkeys(self.index.by_key[entity_key(name)] for name in named))
        around = {i: self._neighbours(i) for i in ids}
        chunks = {i: set(entities[i].chunk_ids) for i in ids}
        for n, first in enumerate(ids):
            for second in ids[n + 1 :]:
                if second in around[first] or chunks[first] & chunks[second]:
                    continue  # related directly, or named together in a passage: a single fact
                if via := sorted(around[first] & around[second]):
                    return Bridge(entities[first].name, entities[via[0]].name, entities[second].name)
        return None

    def _neighbours(self, entity_id: str) -> set[str]:
        ends = (self.index.relations[rid] for rid in self.index.adjacency.get(entity_id, ()))
        return {r.target_id if r.source_id == entity_id else r.source_id for r in ends} - {entity_id}
