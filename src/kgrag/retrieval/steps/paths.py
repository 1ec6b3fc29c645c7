"""Multi-hop paths with explanations, fused with dense scores by λ (triple-layer-graphrag).

1. Ground the question's entities (as graph-local does) and keep the best ``SEEDS``.
2. Grow paths from each seed along relations up to ``max_hops`` hops (a beam of ``BEAM`` partial paths
   per hop, no vertex twice). A path's score is the seed's match score × Π edge weight (normalised by the
   heaviest relation) × Π node importance (global PageRank, normalised by the largest) × decay^hops.
3. The best paths become ``path`` items whose text is a one-line explanation ("A —treats→ B —causes→
   C") followed by the relations' descriptions, with the relations' source passages as provenance.
4. Every passage cited by a path (or by a seed) gets the best such score; dense search scores its pool;
   both are min-max normalised and fused: ``λ·dense + (1 − λ)·graph``. λ comes from the pipeline's
   ``fusion_lambda``, else from ``kgrag tune`` (stored in the workspace), else :data:`DEFAULT_LAMBDA`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from kgrag.core.context import ContextItem
from kgrag.core.graph_records import RelationRecord
from kgrag.graph.arcs import Arcs
from kgrag.graph.index import GraphIndex
from kgrag.graph.snapshot import GraphSnapshot
from kgrag.retrieval.query_context import QueryContext
from kgrag.retrieval.steps.basic import QueryState
from kgrag.retrieval.steps.graph import query_seeds

SEEDS = 5
BEAM = 200
DEFAULT_LAMBDA = 0.7
TOP_PATHS = 5


def lambda_key(pipeline: str) -> str:
    """The store meta key ``kgrag tune`` writes λ of ``pipeline`` under."""
    return f"tune.{pipeline}.lambda"


@dataclass
class Path:
    """Entity ids in order, the relations between them, and the path's score."""

    nodes: list[str]
    relations: list[RelationRecord] = field(default_factory=list)
    score: float = 0.0


def explain(path: Path, index: GraphIndex) -> str:
    """One human-readable line: names joined by their relation labels."""
    parts = [index.entities[path.nodes[0]].name]
    for relation, node in zip(path.relations, path.nodes[1:], strict=True):
        parts.append(f"—{relation.label.replace('_', ' ')}→ {index.entities[node].name}")
    return " ".join(parts)


def grow_paths(snapshot: GraphSnapshot, seeds: list[tuple[str, float]], hops: int, decay: float) -> list[Path]:
    """All beam-kept paths of 1..``hops`` hops from the seeds (see the module docstring for the score),
    over the snapshot's arcs, weighted by its global PageRank (node importance)."""
    index, importance = snapshot.index, snapshot.igraph.importance
    frontier = [Path([eid], [], score) for eid, score in seeds if eid in index.entities]
    found: list[Path] = []
    for _ in range(hops):
        frontier = _extend(frontier, index, snapshot.arcs, importance, decay)
        found.extend(frontier)
    return sorted(found, key=lambda p: -p.score)


def _extend(
    frontier: list[Path], index: GraphIndex, arcs: Arcs, importance: dict[str, float], decay: float
) -> list[Path]:
    """The ``BEAM`` best one-hop extensions of ``frontier`` (paths of equal length) to an entity not yet on
    the path, ties in the order they grow in (path by path, relation by relation). Scored with arrays over
    every arc (a popular entity has hundreds), in the operation order of ``score × (weight / heaviest) ×
    importance × decay``; a ``Path`` is built only for those kept."""
    if not frontier:
        return []
    nodes = np.array([[arcs.position[node] for node in path.nodes] for path in frontier], dtype=np.int64)
    owner, arc = arcs.of(nodes[:, -1])
    nxt = arcs.ends[arc]
    ok = (nxt >= 0) & ~(nodes[owner] == nxt[:, None]).any(axis=1)
    owner, arc, nxt = owner[ok], arc[ok], nxt[ok]
    parent_scores = np.array([path.score for path in frontier], dtype=np.float64)
    scores = (
        parent_scores[owner] * (arcs.weights[arc] / index.heaviest_relation) * arcs.aligned(importance)[nxt] * decay
    )
    keep = np.argsort(-scores, kind="stable")[:BEAM]
    return [
        Path([*frontier[p].nodes, arcs.entity_ids[n]], [*frontier[p].relations, arcs.relations[a]], score)
        for p, n, a, score in zip(
            owner[keep].tolist(), nxt[keep].tolist(), arc[keep].tolist(), scores[keep].tolist(), strict=True
        )
    ]


def path_item(path: Path, index: GraphIndex, rank: int) -> ContextItem:
    """A path as context: the explanation line, then what each relation says."""
    details = [r.description for r in path.relations if r.description]
    explanation = explain(path, index)
    text = explanation + (". " + " ".join(details) if details else "")
    chunk_ids = list(dict.fromkeys(c for r in path.relations for c in r.chunk_ids))
    return ContextItem(
        kind="path",
        id=f"p{rank}-" + "-".join(r.id for r in path.relations),
        text=text,
        score=path.score,
        chunk_ids=chunk_ids,
        scores={"path": path.score},
        metadata={"explanation": explanation, "hops": len(path.relations)},
    )


def _normalise(scores: dict[str, float]) -> dict[str, float]:
    if not scores:
        return {}
    low, high = min(scores.values()), max(scores.values())
    return {k: (v - low) / (high - low) if high > low else 1.0 for k, v in scores.items()}


def passage_scores(index: GraphIndex, seeds: list[tuple[str, float]], paths: list[Path]) -> dict[str, float]:
    """Best score of any path (or seed) citing each passage (at least 0)."""
    best: dict[str, float] = {}
    for entity_id, score in seeds:
        _raise(best, index.entities[entity_id].chunk_ids, score)
    for path in paths:
        for relation in path.relations:
            _raise(best, relation.chunk_ids, path.score)
    return best


def _raise(best: dict[str, float], chunk_ids: Sequence[str], score: float) -> None:
    """``best[c] = max(best.get(c, 0.0), score)`` for each chunk, without a call per chunk."""
    for chunk_id in chunk_ids:
        current = best.get(chunk_id, 0.0)
        best[chunk_id] = score if score > current else current


@dataclass(frozen=True)
class PathSearch:
    """Seeds → paths → ``path`` items (stream ``path_facts``) and passage scores (stream ``paths``)."""

    max_hops: int = 2
    decay: float = 0.8
    name: str = "paths"

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        index, seeds = query_seeds(env, state.query, SEEDS)
        paths = grow_paths(env.graph_snapshot(), seeds, self.max_hops, self.decay)
        state.streams["path_facts"] = [path_item(p, index, n) for n, p in enumerate(paths[:TOP_PATHS])]
        scores = passage_scores(index, seeds, paths)
        state.streams["paths"] = [
            ContextItem(kind="chunk", id=c, text="", score=s, chunk_ids=[c], scores={"graph": s})
            for c, s in sorted(scores.items(), key=lambda kv: -kv[1])
        ]
        explanations = [item.metadata["explanation"] for item in state.streams["path_facts"]]
        state.record(self.name, {"hops": self.max_hops, "paths": explanations}, len(paths), started)


@dataclass(frozen=True)
class FuseLambda:
    """``λ·dense + (1 − λ)·graph`` over the union of the ``dense`` and ``paths`` streams (both min-max
    normalised); each item keeps ``dense_norm`` and ``graph_norm`` so λ can be refitted offline."""

    fusion_lambda: float | None = None
    pipeline: str = "paths"
    name: str = "lambda_fuse"

    def resolve(self, env: QueryContext) -> tuple[float, str]:
        if self.fusion_lambda is not None:
            return self.fusion_lambda, "config"
        tuned = env.store.meta.get(lambda_key(self.pipeline))
        return (float(tuned), "kgrag tune") if tuned else (DEFAULT_LAMBDA, "default")

    def run(self, state: QueryState, env: QueryContext) -> None:
        started = time.perf_counter()
        lam, source = self.resolve(env)
        dense = _normalise({i.id: i.score for i in state.streams.get("dense", [])})
        graph = _normalise({i.id: i.score for i in state.streams.get("paths", [])})
        items = []
        for chunk_id in dict.fromkeys([*dense, *graph]):
            d, g = dense.get(chunk_id, 0.0), graph.get(chunk_id, 0.0)
            scores = {"dense_norm": d, "graph_norm": g, "fused": lam * d + (1 - lam) * g}
            items.append(
                ContextItem(
                    kind="chunk", id=chunk_id, text="", score=scores["fused"], chunk_ids=[chunk_id], scores=scores
                )
            )
        state.items = sorted(items, key=lambda i: -i.score)
        state.record(self.name, {"lambda": lam, "lambda_from": source}, len(state.items), started)
