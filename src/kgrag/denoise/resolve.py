"""Entity resolution planning: store → :class:`ResolutionGraph` → blocks → pairs → groups.

Nothing here writes the graph: a plan is computed, shown (dry run) or applied by
:mod:`kgrag.denoise.apply`. Ego vectors come from the shared embeddings table (keyed by text hash), so
entities already embedded by the ``embed-graph`` stage cost nothing; missing ones are embedded and kept.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from kgrag.config.denoise import DenoiseConfig
from kgrag.core.errors import ConfigError
from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.core.registries import Registries, RegistryKind
from kgrag.denoise.contrasts import contrasting_names
from kgrag.denoise.grouping import block_pairs, filter_names
from kgrag.denoise.identifiers import distinct_identifiers
from kgrag.denoise.strings import string_similarity
from kgrag.denoise.types import Blocker, Group, Grouper, Matcher, Merger, ResolutionGraph, ResolutionPlan
from kgrag.documents import content_hash
from kgrag.graph.texts import entity_text
from kgrag.models.embeddings import Embedder
from kgrag.store.base import Store

EMBED_BATCH = 256
EGO_TEXTS = ("name_type_description", "name_type", "name")


def ego_text(entity: EntityRecord, mode: str) -> str:
    """What an entity's ego vector embeds (``denoise.ego_text``)."""
    if mode == "name":
        return entity.name
    if mode == "name_type":
        return f"{entity.name} ({entity.type})"
    if mode == "name_type_description":
        return entity_text(entity)
    raise ConfigError(f"denoise.ego_text: unknown {mode!r}; choose {', '.join(EGO_TEXTS)}")


def ego_vectors(store: Store, embedder: Embedder, texts: Sequence[str], *, keep: bool = True) -> np.ndarray:
    """Unit vectors of ``texts``, reusing stored ones and storing the ones embedded here (unless ``keep``
    is False: a dry run writes nothing)."""
    hashes = [content_hash(t) for t in texts]
    present = store.vectors.get(embedder.name, list(dict.fromkeys(hashes)))
    missing = list({h: t for h, t in zip(hashes, texts, strict=True) if h not in present}.items())
    for start in range(0, len(missing), EMBED_BATCH):
        batch = missing[start : start + EMBED_BATCH]
        vectors = embedder.embed([t for _, t in batch])
        if keep:
            store.vectors.put(embedder.name, zip([h for h, _ in batch], vectors, strict=True))
        present.update(zip([h for h, _ in batch], vectors, strict=True))
    if not hashes:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    matrix = np.vstack([present[h] for h in hashes]).astype(np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return matrix / norms


def resolution_graph(
    entities: Sequence[EntityRecord], relations: Sequence[RelationRecord], vectors: np.ndarray
) -> ResolutionGraph:
    """Parallel arrays over ``entities``; ``vectors`` row i belongs to entity i."""
    index = {e.id: i for i, e in enumerate(entities)}
    adjacency: list[list[int]] = [[] for _ in entities]
    for r in relations:
        a, b = index.get(r.source_id), index.get(r.target_id)
        if a is not None and b is not None and a != b:
            adjacency[a].append(b)
            adjacency[b].append(a)
    return ResolutionGraph(
        ids=[e.id for e in entities],
        keys=[e.key for e in entities],
        names=[e.name for e in entities],
        types=[e.type for e in entities],
        mentions=np.asarray([len(e.chunk_ids) for e in entities], dtype=np.int64),
        vectors=vectors,
        neighbours=[np.asarray(sorted(set(n)), dtype=np.int64) for n in adjacency],
    )


def load_resolution_graph(
    store: Store, embedder: Embedder, config: DenoiseConfig, *, keep_vectors: bool = True
) -> ResolutionGraph:
    entities = store.graph.entities()
    texts = [ego_text(e, config.ego_text) for e in entities]
    vectors = ego_vectors(store, embedder, texts, keep=keep_vectors)
    return resolution_graph(entities, store.graph.relations(), vectors)


def _canonical(graph: ResolutionGraph, group: Group, rule: str) -> int:
    if rule == "most-mentioned":
        return group.canonical
    if rule == "longest-name":
        return min(group.members, key=lambda i: (-len(graph.names[i]), -int(graph.mentions[i]), i))
    if rule == "shortest-name":
        return min(group.members, key=lambda i: (len(graph.names[i]), -int(graph.mentions[i]), i))
    raise ConfigError(f"denoise.canonical: unknown {rule!r}; choose most-mentioned, longest-name, shortest-name")


def plan_resolution(graph: ResolutionGraph, config: DenoiseConfig, strategy: Strategies) -> ResolutionPlan:
    """Block, match (with the optional name filter), group; canonical and merge/link mode per group."""
    blocker, matcher, grouper, merger = strategy
    similarity = string_similarity(config.string_filter)
    vectors = matcher.vectors(graph)
    blocks = blocker(graph, config)
    pairs = []
    for block in blocks:
        pairs.extend(block_pairs(vectors, block, config.candidates, config.threshold))
    found = len(pairs)
    pairs = filter_names(graph, pairs, similarity, config.string_min)
    named = len(pairs)
    pairs = [p for p in pairs if not distinct_identifiers(graph.names[p.a], graph.names[p.b])]
    identifiers = named - len(pairs)
    distinct = len(pairs)
    pairs = [p for p in pairs if not contrasting_names(graph.names[p.a], graph.names[p.b])]
    contrasts = distinct - len(pairs)
    pairs = [p for p in pairs if not _held(graph, p.a, p.b)]
    held = distinct - contrasts - len(pairs)
    pairs = [p for p in matcher.rescore(graph, pairs) if p.score >= config.threshold]
    groups, refused = grouper(graph, vectors, pairs, config)
    groups, split = keep_identifiers_apart(graph, groups)
    groups, opposed = keep_apart(graph, groups, lambda a, b: contrasting_names(graph.names[a], graph.names[b]))
    groups, split_apart = keep_apart(graph, groups, lambda a, b: _held(graph, a, b))
    for group in groups:
        group.canonical = _canonical(graph, group, config.canonical)
        group.mode = merger(group, config)
        group.reason = f"{matcher.name} similarity ≥ {group.score:.3f}"
    counts = {
        "entities": graph.size,
        "blocks": len(blocks),
        "largest_block": max((len(b) for b in blocks), default=0),
        "candidate_pairs": found,
        "after_name_filter": named,
        "above_threshold": len(pairs),
        "groups": len(groups),
        "refused_identifier": identifiers + split,
        **refused,
        "refused_contrast": contrasts + refused.get("refused_contrast", 0) + opposed,
        "refused_split": held + split_apart,
    }
    plan = ResolutionPlan(groups, counts)
    plan.counts["merged_away"] = plan.merged_away
    plan.counts["linked"] = sum(len(g.aliases) for g in groups if g.mode == "link")
    return plan


def keep_identifiers_apart(graph: ResolutionGraph, groups: list[Group]) -> tuple[list[Group], int]:
    """Groups without two distinct identifiers (a chain ``copystat`` ≈ "file metadata" ≈ ``copymode``
    would join them even though no pair of them was merged directly): see :func:`keep_apart`."""
    return keep_apart(graph, groups, lambda a, b: distinct_identifiers(graph.names[a], graph.names[b]))


def _held(graph: ResolutionGraph, a: int, b: int) -> bool:
    """Whether a hand split keeps entities ``a`` and ``b`` apart."""
    return bool(graph.held_apart) and frozenset((graph.keys[a], graph.keys[b])) in graph.held_apart


def keep_apart(
    graph: ResolutionGraph, groups: list[Group], clash: Callable[[int, int], bool]
) -> tuple[list[Group], int]:
    """Groups without two members that ``clash`` (a test on two entity indices): members are kept anchor
    first, then by mentions, each only when it clashes with no member kept; groups left with one member go.
    Returns the groups and how many members were dropped. Any grouper's output passes through here
    (distinct identifiers, contrasting names, hand splits), so a chain through a third name never joins two
    names kept apart pairwise."""
    out: list[Group] = []
    dropped = 0
    for group in groups:
        order = sorted(group.members, key=lambda i: (i != group.canonical, -int(graph.mentions[i]), i))
        kept: list[int] = []
        for member in order:
            if any(clash(member, k) for k in kept):
                dropped += 1
            else:
                kept.append(member)
        if len(kept) > 1:
            out.append(Group(canonical=group.canonical, members=sorted(kept), score=group.score))
    return out, dropped


class Strategies(NamedTuple):
    """The four named steps of a resolution, each from its registry kind."""

    blocker: Blocker
    matcher: Matcher
    grouper: Grouper
    merger: Merger


BLOCKERS: RegistryKind[Callable[[DenoiseConfig], Blocker]] = RegistryKind("resolution_blocker")
MATCHERS: RegistryKind[Callable[[DenoiseConfig], Matcher]] = RegistryKind("resolution_matcher")
GROUPERS: RegistryKind[Callable[[DenoiseConfig], Grouper]] = RegistryKind("resolution_grouper")
MERGERS: RegistryKind[Callable[[DenoiseConfig], Merger]] = RegistryKind("resolution_merger")


def strategies(config: DenoiseConfig, registries: Registries | None = None) -> Strategies:
    """The configured blocker, matcher, grouper and merge mode, built through their registries (a
    workspace's, else ``KINDS["resolution_blocker"]`` etc. with plug-ins); unknown names list the known ones."""
    owner = registries or Registries()
    return Strategies(
        owner.get(BLOCKERS).create(config.blocker, config),
        owner.get(MATCHERS).create(config.matcher, config),
        owner.get(GROUPERS).create(config.grouper, config),
        owner.get(MERGERS).create(config.merge_mode, config),
    )
