"""What each generated question is grounded in: a sampled graph structure with the passages its
entities came from (so a noisy graph cannot produce questions the text does not support), or sampled
passages for document-level questions."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.store import Store

MAX_PASSAGES = 6
MAX_PASSAGE_CHARS = 1500


@dataclass(frozen=True)
class Source:
    """The text shown to the generator, the chunks it came from, and an answer hint (answer-given)."""

    kind: str
    text: str
    chunk_ids: tuple[str, ...]
    passages: tuple[str, ...]
    hint: str = ""


class SourceSampler:
    """Seeded sampling over one store's graph and chunks."""

    def __init__(self, store: Store, seed: int, min_subgraph_nodes: int) -> None:
        self.store = store
        self.rng = random.Random(seed)
        self.min_nodes = min_subgraph_nodes
        self.entities = [e for e in store.graph.entities() if e.chunk_ids]
        self.by_id = {e.id: e for e in self.entities}
        self.relations = [r for r in store.graph.relations() if r.source_id in self.by_id and r.target_id in self.by_id]
        self.adjacency: dict[str, list[str]] = defaultdict(list)
        for r in self.relations:
            self.adjacency[r.source_id].append(r.target_id)
            self.adjacency[r.target_id].append(r.source_id)
        self.chunk_ids = [c.id for c in store.chunks.iter_all()]

    def _passages(self, chunk_ids: list[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        unique = list(dict.fromkeys(chunk_ids))[:MAX_PASSAGES]
        chunks = self.store.chunks.get_many(unique)
        return tuple(c.id for c in chunks), tuple(c.text[:MAX_PASSAGE_CHARS] for c in chunks)

    def _source(self, kind: str, head: str, chunk_ids: list[str], hint: str = "") -> Source:
        ids, texts = self._passages(chunk_ids)
        body = "\n\n".join(f"[Passage {i}] {t}" for i, t in enumerate(texts, start=1))
        return Source(kind, f"{head}\n\n{body}".strip(), ids, texts, hint)

    @staticmethod
    def _entity_line(e: EntityRecord) -> str:
        return f"Entity: {e.name} ({e.type}). {e.description}".strip()

    def node(self) -> Source | None:
        if not self.entities:
            return None
        e = self.rng.choice(self.entities)
        return self._source("node", self._entity_line(e), list(e.chunk_ids[:3]))

    def _relation_line(self, r: RelationRecord) -> str:
        a, b = self.by_id[r.source_id], self.by_id[r.target_id]
        relation = f"Relation: {a.name} —{r.label or 'related to'}→ {b.name}. {r.description}"
        return f"{self._entity_line(a)}\n{self._entity_line(b)}\n{relation}"

    def edge(self) -> Source | None:
        if not self.relations:
            return None
        r = self.rng.choice(self.relations)
        chunks = (
            list(r.chunk_ids[:2])
            + list(self.by_id[r.source_id].chunk_ids[:1])
            + list(self.by_id[r.target_id].chunk_ids[:1])
        )
        return self._source("edge", self._relation_line(r), chunks)

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
        lines = [self._entity_line(self.by_id[n]) for n in nodes[:25]]
        lines += [self._relation_line(r) for r in self.relations if r.source_id in members and r.target_id in members][
            :25
        ]
        chunks = [self.by_id[n].chunk_ids[0] for n in nodes]
        return self._source("subgraph", "\n".join(lines), chunks)

    def single_fact(self) -> Source | None:
        return self._source("single-fact", "", [self.rng.choice(self.chunk_ids)]) if self.chunk_ids else None

    def answer_given(self) -> Source | None:
        if not self.entities:
            return None
        e = self.rng.choice(self.entities)
        return self._source("answer-given", "", [e.chunk_ids[0]], hint=e.name)

    def multi_fact(self) -> Source | None:
        shared = [e for e in self.entities if len(set(e.chunk_ids)) >= 2]
        if shared:
            e = self.rng.choice(shared)
            return self._source("multi-fact", "", list(dict.fromkeys(e.chunk_ids))[:3])
        if len(self.chunk_ids) < 2:
            return None
        start = self.rng.randrange(len(self.chunk_ids) - 1)
        return self._source("multi-fact", "", self.chunk_ids[start : start + 2])
