"""Blocking, matching, grouping and merge-mode strategies on small hand-made graphs with known vectors."""

from __future__ import annotations

import numpy as np
import pytest

from kgrag.config.denoise import DenoiseConfig
from kgrag.core.builtins import new_registry
from kgrag.core.errors import ConfigError
from kgrag.denoise.blocking import default_k, spherical_kmeans, split_large
from kgrag.denoise.grouping import group_pairs
from kgrag.denoise.matching import typed_neighbour_similarity
from kgrag.denoise.resolve import plan_resolution, strategies
from kgrag.denoise.types import Pair, ResolutionGraph


def unit(*values: float) -> np.ndarray:
    v = np.asarray(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def make_graph(
    names: list[str],
    vectors: list[np.ndarray],
    types: list[str] | None = None,
    edges: list[tuple[int, int]] = (),
    mentions: list[int] | None = None,  # type: ignore[assignment]
) -> ResolutionGraph:
    adjacency: list[set[int]] = [set() for _ in names]
    for a, b in edges:
        adjacency[a].add(b)
        adjacency[b].add(a)
    return ResolutionGraph(
        ids=[f"e{i}" for i in range(len(names))],
        keys=[n.casefold() for n in names],
        names=names,
        types=types or ["concept"] * len(names),
        mentions=np.asarray(mentions or [1] * len(names)),
        vectors=np.vstack(vectors).astype(np.float32),
        neighbours=[np.asarray(sorted(n), dtype=np.int64) for n in adjacency],
    )


def two_clusters() -> ResolutionGraph:
    """LLM ≈ LLMs ≈ Large Language Models; Paris ≈ Paris city; GPU alone."""
    return make_graph(
        ["LLM", "LLMs", "Large Language Models", "Paris", "Paris city", "GPU"],
        [unit(1, 0.05, 0), unit(1, 0.1, 0), unit(1, 0.2, 0), unit(0, 1, 0.05), unit(0, 1, 0.1), unit(0, 0, 1)],
        types=["technology", "technology", "technology", "location", "location", "technology"],
        mentions=[5, 2, 1, 3, 1, 4],
    )


def cfg(**kw: object) -> DenoiseConfig:
    """A denoise config: the greedy grouper's guards, the mixed matchers' ``ego_weight`` and ``link_below`` go
    into their strategies' tables."""
    greedy: dict[str, object] = {"anchor_floor": 0.9} | {
        k: kw.pop(k) for k in ("max_group", "anchor_floor", "same_type") if k in kw
    }
    base: dict[str, object] = {
        "blocker": "none",
        "threshold": 0.9,
        "target_reduction": 0.9,
        "groupers": {"greedy": greedy},
    }
    if "ego_weight" in kw:
        weight = {"ego_weight": kw.pop("ego_weight")}
        base["matchers"] = {"ego+neighbour": weight, "ego+typed-neighbour": weight}
    if "link_below" in kw:
        base["mergers"] = {"both": {"link_below": kw.pop("link_below")}}
    base.update(kw)
    return DenoiseConfig(**base)  # type: ignore[arg-type]


def groups_of(graph: ResolutionGraph, config: DenoiseConfig) -> set[frozenset[str]]:
    plan = plan_resolution(graph, config, strategies(config))
    return {frozenset(graph.names[m] for m in g.members) for g in plan.groups}


def test_kmeans_separates_clear_clusters_and_uses_the_rule_of_thumb() -> None:
    rng = np.random.default_rng(1)
    centres = np.eye(4, 16, dtype=np.float32)
    x = np.vstack([c + 0.05 * rng.standard_normal((50, 16)) for c in centres]).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    labels = spherical_kmeans(x, 4, seed=0)
    assert len({tuple(labels[i * 50 : (i + 1) * 50]) for i in range(4)}) == 4
    assert all(len(set(labels[i * 50 : (i + 1) * 50])) == 1 for i in range(4))
    assert default_k(1000) == 10 and default_k(100_000) == 100


@pytest.mark.parametrize("blocker", ["kmeans", "type", "structural", "none"])
def test_every_blocker_covers_only_valid_indices_and_caps_block_size(blocker: str) -> None:
    rng = np.random.default_rng(0)
    n = 400
    vectors = rng.standard_normal((n, 8)).astype(np.float32)
    edges = [(i, (i * 7 + 3) % n) for i in range(n)] + [(0, i) for i in range(1, 150)]
    graph = make_graph(
        [f"n{i}" for i in range(n)],
        list(vectors / np.linalg.norm(vectors, axis=1, keepdims=True)),
        types=[("a", "b", "c")[i % 3] for i in range(n)],
        edges=edges,
    )
    config = DenoiseConfig(blocker=blocker, max_block=60)
    blocks = new_registry("resolution_blocker").create(blocker, config)(graph, config)
    assert blocks and all(1 <= len(b) <= 60 for b in blocks)
    assert all(0 <= int(i) < n for b in blocks for i in b)
    if blocker != "structural":  # partitions: every entity exactly once
        assert sorted(int(i) for b in blocks for i in b) == list(range(n))
    if blocker == "type":
        assert all(len({graph.types[int(i)] for i in b}) == 1 for b in blocks)


def test_structural_blocks_are_neighbour_sets() -> None:
    graph = make_graph(
        ["hub", "a", "b", "c"], [unit(1, 0), unit(0, 1), unit(1, 1), unit(1, 2)], edges=[(0, 1), (0, 2), (3, 1)]
    )
    config = DenoiseConfig(blocker="structural")
    blocks = new_registry("resolution_blocker").create("structural", config)(graph, config)
    assert {tuple(int(i) for i in b) for b in blocks} == {(1, 2), (0, 3)}


def test_split_large_cuts_identical_vectors_into_slices() -> None:
    graph = make_graph([f"x{i}" for i in range(25)], [unit(1, 0)] * 25)
    blocks = split_large(graph, [np.arange(25)], 10)
    assert all(len(b) <= 10 for b in blocks) and sum(len(b) for b in blocks) == 25


def test_ego_matching_groups_duplicates_with_most_mentioned_canonical() -> None:
    graph = two_clusters()
    config = cfg()
    plan = plan_resolution(graph, config, strategies(config))
    assert {frozenset(graph.names[m] for m in g.members) for g in plan.groups} == {
        frozenset({"LLM", "LLMs", "Large Language Models"}),
        frozenset({"Paris", "Paris city"}),
    }
    assert {graph.names[g.canonical] for g in plan.groups} == {"LLM", "Paris"}


def test_target_reduction_stops_merging() -> None:
    graph = two_clusters()
    plan = plan_resolution(graph, cfg(target_reduction=0.2), strategies(cfg()))
    assert plan.merged_away == 1  # int(0.2 · 6)


def test_threshold_stops_merging() -> None:
    assert groups_of(two_clusters(), cfg(threshold=0.9999, anchor_floor=0.9999)) == set()


def test_same_type_refuses_cross_type_pairs() -> None:
    graph = make_graph(["Apple", "Apple Inc"], [unit(1, 0), unit(1, 0.01)], types=["product", "organization"])
    assert groups_of(graph, cfg()) == {frozenset({"Apple", "Apple Inc"})}
    assert groups_of(graph, cfg(same_type=True)) == set()


def test_chain_merge_guard_anchor_floor() -> None:
    """A—B, B—C, C—D are each close, but D is far from A: the chain stops before D."""
    angles = [0.0, 0.35, 0.7, 1.05]
    graph = make_graph(list("ABCD"), [unit(np.cos(a), np.sin(a)) for a in angles], mentions=[9, 1, 1, 1])
    loose = groups_of(graph, cfg(threshold=0.9, anchor_floor=-1.0, max_group=10))
    assert loose == {frozenset("ABCD")}
    guarded = groups_of(graph, cfg(threshold=0.9, anchor_floor=0.85, max_group=10))
    assert frozenset("ABCD") not in guarded
    assert all("A" not in g or "D" not in g for g in guarded)


def test_chain_merge_guard_max_group() -> None:
    graph = make_graph([f"Site {c}" for c in "ABCDEF"], [unit(1, 0.001 * i) for i in range(6)])
    plan = plan_resolution(graph, cfg(max_group=3), strategies(cfg()))
    assert all(len(g.members) <= 3 for g in plan.groups)
    assert plan.counts["refused_max_group"] > 0


def test_neighbour_matcher_merges_entities_with_the_same_neighbours() -> None:
    """ "NYC" and "New York" look different (orthogonal ego vectors) but share their neighbours."""
    graph = make_graph(
        ["NYC", "New York", "Manhattan", "Brooklyn", "Tokyo", "Shibuya"],
        [
            unit(1, 0, 0, 0),
            unit(0, 1, 0, 0),
            unit(0, 0, 1, 0),
            unit(0, 0, 1, 0.3),
            unit(0, 0, 0, 1),
            unit(0, 0.2, 0, 1),
        ],
        edges=[(0, 2), (0, 3), (1, 2), (1, 3), (4, 5)],
    )
    assert frozenset({"NYC", "New York"}) not in groups_of(graph, cfg(matcher="ego"))
    assert frozenset({"NYC", "New York"}) in groups_of(graph, cfg(matcher="neighbour"))
    combined = groups_of(graph, cfg(matcher="ego+neighbour", ego_weight=0.5, threshold=0.45, anchor_floor=0.45))
    assert frozenset({"NYC", "New York"}) in combined


def test_typed_neighbour_similarity_penalises_neighbours_of_other_types() -> None:
    graph = make_graph(
        ["a", "b", "c", "p1", "p2", "l1"],
        [unit(1, 0, 0)] * 3 + [unit(0, 1, 0), unit(0, 1, 0.1), unit(0, 1, 0)],
        types=["x", "x", "x", "person", "person", "location"],
        edges=[(0, 3), (1, 4), (2, 5)],
    )
    assert typed_neighbour_similarity(graph, 0, 1) > 0.99  # both have a person neighbour
    assert typed_neighbour_similarity(graph, 0, 2) == 0.0  # person vs location: no shared type
    config = cfg(matcher="typed-neighbour")
    assert frozenset({"a", "b"}) in groups_of(graph, config)
    assert all(not {"a", "c"} <= g for g in groups_of(graph, config))
    assert frozenset({"a", "b"}) in groups_of(graph, cfg(matcher="ego+typed-neighbour", ego_weight=0.5, threshold=0.9))


@pytest.mark.parametrize(("name", "kept"), [("jaro-winkler", True), ("levenshtein", True)])
def test_string_filter_vetoes_pairs_with_unlike_names(name: str, kept: bool) -> None:
    graph = make_graph(["Aspirin", "aspirin", "Warfarin"], [unit(1, 0), unit(1, 0.01), unit(1, 0.02)])
    groups = groups_of(graph, cfg(string_filter=name, string_min=0.9))
    assert groups == {frozenset({"Aspirin", "aspirin"})}
    assert groups_of(graph, cfg()) == {frozenset({"Aspirin", "aspirin", "Warfarin"})}


def test_unknown_strategy_names_fail_with_the_known_ones() -> None:
    with pytest.raises(ConfigError, match="kmeans"):
        strategies(DenoiseConfig(blocker="nope"))
    with pytest.raises(ConfigError, match="jaro-winkler"):
        groups_of(two_clusters(), cfg(string_filter="soundex"))


@pytest.mark.parametrize(("mode", "expected"), [("merge", {"merge"}), ("link", {"link"}), ("both", {"merge", "link"})])
def test_merge_modes(mode: str, expected: set[str]) -> None:
    graph = two_clusters()  # LLM group's weakest link ≈ 0.995, Paris pair ≈ 0.9988
    config = cfg(merge_mode=mode, link_below=0.997)
    plan = plan_resolution(graph, config, strategies(config))
    assert {g.mode for g in plan.groups} == expected


def test_grouping_is_deterministic_and_best_first() -> None:
    graph = two_clusters()
    pairs = [Pair(0, 1, 0.95), Pair(1, 2, 0.99), Pair(3, 4, 0.97)]
    groups, _ = group_pairs(graph, graph.vectors, pairs, cfg(target_reduction=0.2))
    assert [sorted(g.members) for g in groups] == [[1, 2]]
