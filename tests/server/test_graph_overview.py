"""GET /graph/overview: the whole graph with a server-side layout, sampled by community when large,
filtered by type, degree and community, coloured by a stored community level when there is one, and
computed once per store generation; and the page's third-party script served from the pyvis package."""

from __future__ import annotations

import logging
import math
import shutil
from collections import Counter
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from kgrag import Workspace
from kgrag.graph.overview import OverviewQuery
from kgrag.server import create_app
from kgrag.server.warm import warm_graph_views

OVERVIEW = "/v1/workspaces/sample/graph/overview"


def test_the_whole_sample_graph_comes_laid_out_with_detected_communities(client: TestClient) -> None:
    body = client.get(OVERVIEW).json()
    total = client.get("/v1/workspaces/sample/graph/stats").json()["counts"]["entities"]
    assert len(body["nodes"]) == body["matched"] == body["total"]["entities"] == total
    assert not body["sampled"] and body["community_source"] == "detected" and body["level"] is None
    ids = {n["id"] for n in body["nodes"]}
    assert all(e["source"] in ids and e["target"] in ids and e["label"] for e in body["edges"])
    assert len({(e["source"], e["target"]) for e in body["edges"]}) == len(body["edges"])  # one edge per pair
    points = {(n["x"], n["y"]) for n in body["nodes"]}
    assert all(math.isfinite(x) and math.isfinite(y) for x, y in points) and len(points) > 0.9 * len(ids)
    assert sum(t["count"] for t in body["types"]) == total
    assert all(n["community"].startswith("detected-") for n in body["nodes"])
    assert body["communities"][0]["matched"] >= body["communities"][-1]["matched"]


def test_a_small_budget_keeps_the_largest_communities_and_their_hubs(client: TestClient) -> None:
    whole = client.get(OVERVIEW).json()
    body = client.get(OVERVIEW, params={"max_nodes": 40}).json()
    assert len(body["nodes"]) == 40 and body["sampled"] and body["matched"] == whole["matched"]
    assert len({n["community"] for n in body["nodes"]}) >= 5  # several communities, not one hub's star
    hub = max(whole["nodes"], key=lambda n: n["degree"])
    assert hub["id"] in {n["id"] for n in body["nodes"]}
    assert len(body["edges"]) <= 3 * 40


def test_filters_by_type_degree_and_community(client: TestClient) -> None:
    whole = client.get(OVERVIEW).json()
    people = client.get(OVERVIEW, params={"type": "person"}).json()
    expected = next(t["count"] for t in whole["types"] if t["type"] == "person")
    assert people["matched"] == len(people["nodes"]) == expected
    assert {n["type"] for n in people["nodes"]} == {"person"}
    hubs = client.get(OVERVIEW, params={"min_degree": 10}).json()
    assert hubs["nodes"] and min(n["degree"] for n in hubs["nodes"]) >= 10
    assert hubs["matched"] == sum(1 for n in whole["nodes"] if n["degree"] >= 10)
    biggest = whole["communities"][0]
    inside = client.get(OVERVIEW, params={"community": biggest["id"]}).json()
    assert len(inside["nodes"]) == biggest["matched"]
    none = client.get(OVERVIEW, params={"type": "no-such-type"}).json()
    assert none["nodes"] == [] and none["matched"] == 0
    assert client.get(OVERVIEW, params={"max_nodes": 0}).status_code == 422


def test_stored_communities_colour_the_nodes_and_the_view_follows_the_generation(
    sample_dir: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "sample"
    shutil.copytree(sample_dir, copy)
    with Workspace.open(copy) as ws:
        before = ws.graph.overview(OverviewQuery())
        assert ws.graph.overview(OverviewQuery()) is before  # the same generation: computed once
        ws.communities.build()
        levels = ws.communities.levels()
        after = ws.graph.overview(OverviewQuery())
        assert after is not before and after["community_source"] == "stored"
        assert [row["level"] for row in after["levels"]] == [s.level for s in levels]
        finest = ws.graph.overview(OverviewQuery(level=0))
        members = {c.id: set(c.entity_ids) for c in ws.communities.communities(0)}
        assert all(n["id"] in members[n["community"]] for n in finest["nodes"] if n["community"])
        assert any(row["title"] for row in finest["communities"])  # report titles name the communities
        chosen = finest["communities"][0]["id"]
        only = ws.graph.overview(OverviewQuery(community=chosen))
        assert {n["id"] for n in only["nodes"]} == members[chosen]
        with TestClient(base_url="http://127.0.0.1", app=create_app({"sample": ws})) as client:
            levels_seen = Counter(n["community"] for n in client.get(OVERVIEW, params={"level": 0}).json()["nodes"])
            assert len(levels_seen) == len({n["community"] for n in finest["nodes"]})


def test_the_page_loads_vis_network_from_the_installed_package(client: TestClient) -> None:
    page = client.get("/")
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert "/vendor/vis-network/vis-network.min.js" in page.text
    script = client.get("/vendor/vis-network/vis-network.min.js")
    assert script.status_code == 200 and "vis" in script.text[:2000] and len(script.content) > 100_000
    assert client.get("/vendor/vis-network/vis-network.css").status_code == 200
    for module in ("main", "api", "graph", "entity", "ask", "markdown", "passage", "documents", "eval", "plot"):
        assert client.get(f"/static/js/{module}.js").status_code == 200, module


def test_serve_warms_the_default_view_in_the_background(sample_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    with Workspace.open(sample_dir) as ws:
        app = create_app({"sample": ws})
        hosted = list(app.state.kgrag.workspaces.values())
        warm_graph_views(hosted).join(60)
        assert any(key[1] == OverviewQuery() for key in ws.graph._overviews)  # computed before any request

        def broken(query: OverviewQuery) -> dict[str, object]:
            raise RuntimeError("no graph today")

        ws.graph.overview = broken  # type: ignore[method-assign]
        with caplog.at_level(logging.WARNING, logger="kgrag.server.warm"):
            warm_graph_views(hosted).join(60)  # a failing warm-up is logged, never raised
        assert "could not prepare the graph view of workspace sample" in caplog.text
