"""Community detection: seeded determinism, the max-size recursion, parent links, modularity per level,
the registered builders, and that an unchanged graph is not partitioned again."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import igraph as ig
import numpy as np
import pytest
from tests.communities.conftest import GROUPS, WorkspaceMaker, index_docs, write_groups

from kgrag.communities.detect import create_builder, detect_communities
from kgrag.communities.hierarchy import Hierarchy, parents, to_records
from kgrag.config import CommunitiesConfig
from kgrag.core.errors import ConfigError


def planted(groups: int = 12, size: int = 30, seed: int = 3) -> ig.Graph:
    """Dense groups joined by a few random edges, weights 1-3."""
    rng = np.random.default_rng(seed)
    edges = [
        (g * size + a, g * size + b)
        for g in range(groups)
        for a in range(size)
        for b in range(a + 1, size)
        if rng.random() < 0.3
    ]
    edges += [tuple(rng.integers(0, groups * size, 2).tolist()) for _ in range(groups * 3)]
    graph = ig.Graph(n=groups * size, edges=[e for e in edges if e[0] != e[1]])
    graph.es["weight"] = rng.integers(1, 4, graph.ecount()).astype(float).tolist()
    return graph


def test_same_seed_same_hierarchy_and_parents_nest() -> None:
    graph = planted()
    config = CommunitiesConfig(builders={"leiden": {"max_cluster_size": 10, "seed": 11}})
    first, second = create_builder(config).build(graph), create_builder(config).build(graph)
    assert first.levels == second.levels >= 2
    for a, b in zip(first.memberships, second.memberships, strict=True):
        assert np.array_equal(a, b)
    ids = [f"e{i}" for i in range(graph.vcount())]
    assert to_records(first, ids) == to_records(second, ids)
    for level in range(first.levels - 1):  # recursive partitions nest: a child lies inside its parent
        child, parent = first.memberships[level], first.memberships[level + 1]
        links = parents(child, parent)
        assert np.array_equal(links[child], parent)


def test_large_communities_are_split_down_to_the_max_size() -> None:
    graph = planted(groups=6, size=40)
    hierarchy = create_builder(CommunitiesConfig(builders={"leiden": {"max_cluster_size": 15, "max_levels": 6}})).build(
        graph
    )
    finest = np.bincount(hierarchy.memberships[0])
    coarsest = np.bincount(hierarchy.memberships[-1])
    assert coarsest.max() > 15  # the whole-graph partition has big communities...
    assert finest.max() <= 15 or hierarchy.levels == 6  # ...and they were split until small enough


def test_builders_are_registered_and_validated() -> None:
    graph = planted(groups=4, size=20)
    multires = create_builder(
        CommunitiesConfig(builder="leiden-multires", builders={"leiden-multires": {"resolutions": [2.0, 1.0, 0.5]}})
    ).build(graph)
    assert multires.levels == 3
    components = create_builder(CommunitiesConfig(builder="components")).build(graph)
    assert components.levels == 1 and int(components.memberships[0].max()) + 1 == len(graph.connected_components())
    with pytest.raises(ValueError, match=r"communities\.builder"):
        CommunitiesConfig(builder="louvain")


@pytest.mark.skipif(importlib.util.find_spec("graspologic_native") is None, reason="graspologic-native absent")
def test_graspologic_builder_is_seeded() -> None:
    graph = planted()
    graph.add_vertices(2)  # isolated vertices are not in its edge list: they must still get communities
    config = CommunitiesConfig(builder="graspologic", builders={"graspologic": {"max_cluster_size": 10}})
    first, second = create_builder(config).build(graph), create_builder(config).build(graph)
    assert all(np.array_equal(a, b) for a, b in zip(first.memberships, second.memberships, strict=True))
    assert all(len(m) == graph.vcount() for m in first.memberships)


def test_graspologic_missing_is_a_config_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import builtins

    real_import = builtins.__import__

    def no_graspologic(name: str, *args: object, **kwargs: object) -> object:
        if name == "graspologic_native":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_graspologic)
    with pytest.raises(ConfigError, match="graspologic-native"):
        create_builder(CommunitiesConfig(builder="graspologic")).build(planted(groups=2, size=5))


def test_detection_on_a_workspace(make_ws: WorkspaceMaker, tmp_path: Path) -> None:
    ws = make_ws(communities={"builders": {"leiden": {"max_cluster_size": 3}}})
    index_docs(ws, write_groups(tmp_path / "docs", GROUPS))
    stats = detect_communities(ws.store, ws.config.communities)
    assert stats.ran and stats.communities == len(ws.store.communities.communities())
    levels = ws.store.communities.levels()
    assert [s.level for s in levels] == list(range(len(levels))) and len(levels) >= 1
    assert all(-0.5 <= s.modularity <= 1 for s in levels) and levels[-1].modularity > 0.5  # three separate groups
    entities = {e.id for e in ws.store.graph.entities()}
    for level in range(len(levels)):  # every entity is in exactly one community per level
        members = [e for c in ws.store.communities.communities(level) for e in c.entity_ids]
        assert sorted(members) == sorted(entities)
    top = ws.store.communities.communities(len(levels) - 1)
    assert all(c.parent_id is None for c in top) and len(top) == len(GROUPS)
    again = detect_communities(ws.store, ws.config.communities)
    assert not again.ran  # the graph did not change
    forced = detect_communities(ws.store, ws.config.communities, force=True)
    assert forced.ran and forced.kept == stats.communities and forced.new == 0  # seeded: same communities


def test_empty_graph_has_no_communities(make_ws: WorkspaceMaker) -> None:
    ws = make_ws()
    stats = detect_communities(ws.store, ws.config.communities)
    assert stats.communities == 0 and ws.store.communities.levels() == []
    assert Hierarchy(()).levels == 0
