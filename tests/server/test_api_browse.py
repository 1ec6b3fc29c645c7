"""Settings, passages and entity details over the indexed sample corpus: real shapes, 404s, bad input."""

from __future__ import annotations

import itertools
from pathlib import Path

from fastapi.testclient import TestClient
from tests.conftest import SAMPLE_DOCS
from tests.server.conftest import build_workspace

from kgrag import Workspace
from kgrag.core.graph_records import RelationRecord
from kgrag.server import create_app
from kgrag.server.routes_entities import snippet

WS = "/v1/workspaces/sample"


def test_settings_name_the_workspace_default_first_and_only_available_pipelines_to_compare(
    client: TestClient, sample_served: Workspace
) -> None:
    body = client.get(f"{WS}/settings").json()
    assert body["default_pipeline"] == sample_served.config.retrieval.default_pipeline
    assert body["compare_pipelines"][0] == body["default_pipeline"]
    available = {p["name"] for p in body["pipelines"] if p["available"]}
    assert set(body["compare_pipelines"]) <= available and len(body["compare_pipelines"]) >= 2
    community = next(p for p in body["pipelines"] if p["name"] == "community")
    assert not community["available"] and "kgrag graph communities" in community["reason"]
    assert all(p["reason"] == "" for p in body["pipelines"] if p["available"])
    assert body["k"] == sample_served.config.retrieval.k and body["max_compare_pipelines"] >= 1


def test_settings_follow_the_configured_default(client: TestClient, sample_served: Workspace) -> None:
    names = [p["name"] for p in client.get(f"{WS}/pipelines").json()]
    assert client.get(f"{WS}/settings").json()["default_pipeline"] in names


def test_passage_has_full_text_provenance_and_sentence_offsets(client: TestClient) -> None:
    answer = client.post(f"{WS}/query", json={"question": "Who leads the Apps team?", "pipeline": "bm25"}).json()
    chunk_id = answer["passages"][0]["chunk_id"]
    body = client.get(f"{WS}/passages/{chunk_id}").json()
    assert body["id"] == chunk_id and body["text"] and body["source_name"].endswith(".md")
    assert "/" not in body["source_name"] and body["title"]
    assert body["page"] is None and body["page_label"] is None  # Markdown has no pages
    spans = [(s["start"], s["end"]) for s in body["sentences"]]
    assert spans and all(0 <= a < b <= len(body["text"]) for a, b in spans)
    assert all(b1 <= a2 for (_, b1), (a2, _) in itertools.pairwise(spans))  # in order, no overlap
    assert all(body["text"][a:b].strip() for a, b in spans)
    assert body["document_id"] == answer["passages"][0]["doc_id"]


def test_unknown_passage_and_entity_are_404_with_a_message(client: TestClient) -> None:
    for path in ("/passages/nope", "/graph/entities/nope", "/passages/" + "x" * 500):
        response = client.get(WS + path)
        assert response.status_code == 404, path
        error = response.json()["error"]
        assert error["code"] == "not_found" and path.rsplit("/", 1)[1][:20] in error["message"]


def test_entity_detail_lists_passages_with_snippets_and_degree(client: TestClient) -> None:
    hit = client.get(f"{WS}/graph/entities", params={"q": "Kestrel", "limit": 1}).json()[0]
    body = client.get(f"{WS}/graph/entities/{hit['id']}", params={"passages": 2}).json()
    assert body["name"] == hit["name"] and body["degree"] == hit["degree"] and body["type"]
    assert len(body["passages"]) == min(2, body["passages_total"]) and body["passages_total"] >= 1
    assert all("kestrel" in p["snippet"].casefold() for p in body["passages"])
    assert all(p["source_name"].endswith(".md") for p in body["passages"])
    assert body["communities"] == [] and body["aliases"] == []
    assert client.get(f"{WS}/graph/entities/{hit['id']}", params={"passages": -1}).status_code == 422


def test_entity_detail_names_its_communities_and_linked_aliases(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "c", [SAMPLE_DOCS / "team-platform.md", SAMPLE_DOCS / "product-kestrel.md"])
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"c": ws})) as c:
        ws.communities.build()
        hub = c.get("/v1/workspaces/c/graph/entities", params={"q": "Kestrel", "limit": 1}).json()[0]
        near = {i for r in ws.store.graph.relations_of([hub["id"]]) for i in (r.source_id, r.target_id)}
        other = next(e for e in ws.store.graph.entities() if e.id not in near | {hub["id"]})
        ends = sorted([hub["id"], other.id])
        ws.store.graph.save_relations([RelationRecord("r-alias", ends[0], ends[1], "same_as", "", chunk_ids=())])
        body = c.get(f"/v1/workspaces/c/graph/entities/{hub['id']}").json()
    levels = [g["level"] for g in body["communities"]]
    assert levels and levels == sorted(levels) and levels[0] == 0
    assert all(g["title"] and g["summary"] and g["size"] >= 1 for g in body["communities"])
    assert body["aliases"] == [other.name]


def test_snippet_cuts_around_the_name_at_word_boundaries() -> None:
    text = ("word " * 100) + "Lucas Moreau leads the team. " + ("tail " * 100)
    cut = snippet(text, "lucas moreau", 120)
    assert "Lucas Moreau" in cut and cut.startswith("…") and cut.endswith("…") and len(cut) <= 125
    assert not cut[1:].startswith(" ") and "wor…" not in cut
    assert snippet("Short text.", "absent") == "Short text."
