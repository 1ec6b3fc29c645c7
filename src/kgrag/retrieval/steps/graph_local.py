"""LightRAG-style *local* graph search, LLM-free: query → entities → relations/neighbours → chunks.

1. Query keywords: the content words of the query and the runs of consecutive content words (the noun
   phrases of a short query, "Platform team"), normalised like entity names so "teams" finds "team".
2. Entities: cosine similarity of the query vector to every entity vector, plus a boost (default 1, so
   it outranks any similarity alone) for an entity whose normalised name equals a keyword: a name the
   user typed is the strongest evidence there is.
3. The top entities' relations (both ends selected first, then those of the best-matching entities,
   then heavier ones) and the 1-hop neighbours those relations reach.
4. Chunks ranked by provenance: how many selected entities and relations cite them; ties go to the chunk
   cited by the better-scoring entity, then to the one with more total support (summed scores of the
   entities and weights of the relations citing it). Never by chunk id: ids hash the source path, so
   an id tie-break would make results depend on where the corpus lives. The query step breaks the
   remaining ties at the cut by the passage's own similarity to the query
   (:func:`kgrag.retrieval.steps.graph.break_ties`).

An LLM keyword step can later replace :func:`query_keywords` without touching the rest.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.documents.words import STOP_WORDS
from kgrag.graph.index import GraphIndex
from kgrag.graph.normalize import entity_key

_TOKEN = re.compile(r"[\w][\w'’\-.]*[\w]|[\w]", re.UNICODE)
MAX_NGRAM = 4


def query_keywords(query: str) -> list[str]:
    """Content words and runs of up to ``MAX_NGRAM`` consecutive content words, longest first."""
    runs: list[list[str]] = [[]]
    for token in _TOKEN.findall(query):
        if token.lower() in STOP_WORDS:
            runs.append([])
        else:
            runs[-1].append(token)
    phrases: dict[str, None] = {}
    for run in runs:
        for size in range(min(MAX_NGRAM, len(run)), 0, -1):
            for start in range(len(run) - size + 1):
                phrases.setdefault(" ".join(run[start : start + size]), None)
    return sorted(phrases, key=lambda p: -len(p.split()))


@dataclass(frozen=True)
class LocalSearchParams:
    """How wide the search is: entities kept, relations and neighbours added, name-match boost."""

    top_entities: int = 10
    max_relations: int = 20
    max_neighbours: int = 10
    keyword_boost: float = 1.0
    candidate_pool: int = 50


@dataclass
class LocalSearchResult:
    """Selected entities with scores, relations, neighbours and chunks ranked by provenance."""

    keywords: list[str]
    entities: list[tuple[EntityRecord, float]]
    relations: list[tuple[RelationRecord, float]]
    neighbours: list[tuple[EntityRecord, float]]
    chunks: list[tuple[str, int, float]] = field(default_factory=list)


def score_entities(
    index: GraphIndex, query_vector: np.ndarray | None, keywords: Sequence[str], params: LocalSearchParams
) -> dict[str, float]:
    """Entity id → match score (cosine similarity plus keyword boost)."""
    scores: dict[str, float] = {}
    if query_vector is not None and len(index.entity_vectors):
        for hit in index.entity_vectors.search(query_vector, params.candidate_pool):
            scores[hit.id] = hit.score
    for keyword in keywords:
        entity_id = index.by_key.get(entity_key(keyword))
        if entity_id is not None:
            scores[entity_id] = scores.get(entity_id, 0.0) + params.keyword_boost
    return scores


def _rank_relations(index: GraphIndex, selected: dict[str, float], limit: int) -> list[tuple[RelationRecord, float]]:
    relations = index.relations_of(list(selected))

    def key(relation: RelationRecord) -> tuple[int, float, float]:
        ends = (relation.source_id in selected) + (relation.target_id in selected)
        strength = selected.get(relation.source_id, 0.0) + selected.get(relation.target_id, 0.0)
        return -ends, -strength, -relation.weight

    ranked = sorted(relations, key=key)[:limit]
    return [(r, r.weight) for r in ranked]


def _neighbours(
    index: GraphIndex, selected: dict[str, float], relations: Sequence[tuple[RelationRecord, float]], limit: int
) -> list[tuple[EntityRecord, float]]:
    found: dict[str, float] = {}
    for relation, weight in relations:
        for end in (relation.source_id, relation.target_id):
            if end not in selected and end in index.entities:
                found[end] = found.get(end, 0.0) + weight
    ranked = sorted(found.items(), key=lambda kv: -kv[1])[:limit]
    return [(index.entities[eid], score) for eid, score in ranked]


def rank_chunks(
    entities: Sequence[tuple[EntityRecord, float]], relations: Sequence[tuple[RelationRecord, float]]
) -> list[tuple[str, int, float]]:
    """(chunk id, citations, best citing-entity score), most cited first."""
    citations: dict[str, int] = {}
    best: dict[str, float] = {}
    support: dict[str, float] = {}
    for entity, score in entities:
        for chunk_id in entity.chunk_ids:
            citations[chunk_id] = citations.get(chunk_id, 0) + 1
            best[chunk_id] = max(best.get(chunk_id, float("-inf")), score)
            support[chunk_id] = support.get(chunk_id, 0.0) + score
    for relation, weight in relations:
        for chunk_id in relation.chunk_ids:
            citations[chunk_id] = citations.get(chunk_id, 0) + 1
            best.setdefault(chunk_id, float("-inf"))
            support[chunk_id] = support.get(chunk_id, 0.0) + weight
    ranked = sorted(citations, key=lambda c: (-citations[c], -best[c], -support[c]))
    return [(c, citations[c], best[c] if best[c] != float("-inf") else 0.0) for c in ranked]


def local_search(
    index: GraphIndex, query: str, query_vector: np.ndarray | None, params: LocalSearchParams
) -> LocalSearchResult:
    """Run the four steps of the module docstring over an in-memory graph index."""
    keywords = query_keywords(query)
    scores = score_entities(index, query_vector, keywords, params)
    top = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[: params.top_entities]
    selected = dict(top)
    entities = [(index.entities[eid], score) for eid, score in top if eid in index.entities]
    relations = _rank_relations(index, selected, params.max_relations)
    result = LocalSearchResult(
        keywords=keywords,
        entities=entities,
        relations=relations,
        neighbours=_neighbours(index, selected, relations, params.max_neighbours),
    )
    result.chunks = rank_chunks(entities, relations)
    return result
