"""What each generated question is grounded in: a sampled graph structure with the passages its
entities came from (so a noisy graph cannot produce questions the text does not support), or sampled
passages for document-level questions.

Everything is packed into ``budget`` tokens by priority (:mod:`kgrag.evaluation.qgen.pack`): a subgraph
walk of 50 entities is named whole, and its passages are shown whole, most-connected first, until the
budget is spent; nothing is cut at an arbitrary count or character.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.documents import TokenCounter
from kgrag.evaluation.qgen.pack import DESCRIPTION, ENTITY, PASSAGE, RELATION, Piece, pack, render
from kgrag.store import Store

DEFAULT_BUDGET = 6000
PASSAGES_PER_ENTITY = 3


@dataclass(frozen=True)
class Source:
    """The text shown to the generator, the chunks of its numbered passages, an answer hint
    (answer-given), and how many pieces of each kind were offered and left out by the budget."""

    kind: str
    text: str
    chunk_ids: tuple[str, ...]
    passages: tuple[str, ...]
    hint: str = ""
    offered: Counter[str] = field(default_factory=Counter)
    left_out: Counter[str] = field(default_factory=Counter)


class SourceSampler:
    """Seeded sampling over one store's graph and chunks; sources fit ``budget`` tokens."""

    def __init__(
        self,
        store: Store,
        seed: int,
        min_subgraph_nodes: int,
        budget: int = DEFAULT_BUDGET,
        count_tokens: Callable[[str], int] | None = None,
    ) -> None:
        self.store = store
        self.rng = random.Random(seed)
        self.min_nodes = min_subgraph_nodes
        self.budget = budget
        self.count_tokens = count_tokens or TokenCounter.for_encoding().count
        self.entities = [e for e in store.graph.entities() if e.chunk_ids]
        self.by_id = {e.id: e for e in self.entities}
        self.relations = [r for r in store.graph.relations() if r.source_id in self.by_id and r.target_id in self.by_id]
        self.adjacency: dict[str, list[str]] = defaultdict(list)
        for r in self.relations:
            self.adjacency[r.source_id].append(r.target_id)
            self.adjacency[r.target_id].append(r.source_id)
        self.chunk_ids = [c.id for c in store.chunks.iter_all()]

    def _passage_pieces(self, ranked_ids: Sequence[str], tier: int = 1) -> list[Piece]:
        unique = list(dict.fromkeys(ranked_ids))
        texts = {c.id: c.text for c in self.store.chunks.get_many(unique)}
        return [Piece(PASSAGE, texts[cid], (tier, i), cid) for i, cid in enumerate(unique) if cid in texts]

    def _build(self, kind: str, pieces: list[Piece], hint: str = "") -> Source | None:
        packed = pack(pieces, self.budget, self.count_tokens)
        text, passages = render(packed)
        if not passages:
            return None
        return Source(
            kind,
            text,
            tuple(p.key for p in passages),
            tuple(p.text for p in passages),
            hint,
            packed.offered,
            packed.left_out,
        )

    def _graph_source(self, kind: str, nodes: Sequence[str], relations: Sequence[RelationRecord]) -> Source | None:
        """Names of ``nodes`` (in order), their passages (chunks shared by more of them first), the
        relations, then the descriptions, packed into the budget."""
        pieces = [Piece(ENTITY, _entity_name(self.by_id[n]), (0, i), n) for i, n in enumerate(nodes)]
        cover: Counter[str] = Counter()
        first_seen: dict[str, int] = {}
        for i, n in enumerate(nodes):
            for cid in list(dict.fromkeys(self.by_id[n].chunk_ids))[:PASSAGES_PER_ENTITY]:
                cover[cid] += 1
                first_seen.setdefault(cid, i)
        pieces += self._passage_pieces(sorted(cover, key=lambda c: (-cover[c], first_seen[c], c)))
        pieces += [Piece(RELATION, self._relation_line(r), (2, i)) for i, r in enumerate(relations)]
        pieces += [
            Piece(DESCRIPTION, self.by_id[n].description.strip(), (3, i), n)
            for i, n in enumerate(nodes)
            if self.by_id[n].description.strip()
        ]
        return self._build(kind, pieces)

    def _relation_line(self, r: RelationRecord) -> str:
        a, b = self.by_id[r.source_id], self.by_id[r.target_id]
        return f"Relation: {a.name} —{r.label or 'related to'}→ {b.name}. {r.description}".strip()

    def node(self) -> Source | None:
        if not self.entities:
            return None
        e = self.rng.choice(self.entities)
        return self._graph_source("node", [e.id], [])

    def edge(self) -> Source | None:
        if not self.relations:
            return None
        r = self.rng.choice(self.relations)
        return self._graph_source("edge", [r.source_id, r.target_id], [r])

    def walk(self, tries: int = 10) -> list[str] | None:
        """Random walk from a random seed until ``min_nodes`` distinct entities; resample the seed when a
        walk stalls below the threshold; None after ``tries`` failed seeds."""
        seeds = [e for e in self.adjacency if e in self.by_id]
        for _ in range(tries if seeds else 0):
            current = self.rng.choice(seeds)
            seen = [current]
            for _ in range(self.min_nodes * 20):
                current = self.rng.choice(self.adjacency[current])
                if current not in seen:
                    seen.append(current)
                if len(seen) >= self.min_nodes:
                    return seen
        return None

    def subgraph(self) -> Source | None:
        nodes = self.walk()
        if nodes is None:
            return None
        members = set(nodes)
        inside = [r for r in self.relations if r.source_id in members and r.target_id in members]
        return self._graph_source("subgraph", nodes, inside)

    def _passages_source(self, kind: str, chunk_ids: Sequence[str], hint: str = "") -> Source | None:
        return self._build(kind, self._passage_pieces(chunk_ids), hint)

    def single_fact(self) -> Source | None:
        return self._passages_source("single-fact", [self.rng.choice(self.chunk_ids)]) if self.chunk_ids else None

    def answer_given(self) -> Source | None:
        if not self.entities:
            return None
        e = self.rng.choice(self.entities)
        return self._passages_source("answer-given", [e.chunk_ids[0]], hint=e.name)

    def multi_fact(self) -> Source | None:
        shared = [e for e in self.entities if len(set(e.chunk_ids)) >= 2]
        if shared:
            e = self.rng.choice(shared)
            return self._passages_source("multi-fact", list(dict.fromkeys(e.chunk_ids))[:3])
        if len(self.chunk_ids) < 2:
            return None
        start = self.rng.randrange(len(self.chunk_ids) - 1)
        return self._passages_source("multi-fact", self.chunk_ids[start : start + 2])


def _entity_name(e: EntityRecord) -> str:
    return f"Entity: {e.name} ({e.type})."
