"""The /v1 API through FastAPI's test client: every resource answers from the workspace sub-APIs with
the shapes the page and clients rely on."""

from __future__ import annotations

import io
import time
from pathlib import Path

from fastapi.testclient import TestClient
from tests.conftest import SAMPLE_DOCS
from tests.server.conftest import WRITE, build_workspace

from kgrag import Workspace
from kgrag.core.eval_records import EvalRunRecord
from kgrag.server import create_app

QUESTION = "Who leads the Platform team?"


def test_openapi_is_published_with_every_resource(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = set(schema["paths"])
    for path in (
        "/v1/health",
        "/v1/metrics",
        "/v1/workspaces",
        "/v1/workspaces/{workspace}/query",
        "/v1/workspaces/{workspace}/compare",
        "/v1/workspaces/{workspace}/documents",
        "/v1/workspaces/{workspace}/documents/{doc_id}",
        "/v1/workspaces/{workspace}/jobs",
        "/v1/workspaces/{workspace}/jobs/{job_id}/cancel",
        "/v1/workspaces/{workspace}/graph/entities",
        "/v1/workspaces/{workspace}/graph/entities/{entity_id}/neighbourhood",
        "/v1/workspaces/{workspace}/graph/communities",
        "/v1/workspaces/{workspace}/graph/stats",
        "/v1/workspaces/{workspace}/eval/runs",
    ):
        assert path in paths, path
    assert client.get("/docs").status_code == 200


def test_query_returns_answer_cited_passages_trace_and_cost(client: TestClient, sample_served: Workspace) -> None:
    body = client.post("/v1/workspaces/sample/query", json={"question": QUESTION, "pipeline": "bm25", "k": 4}).json()
    expected = sample_served.query(QUESTION, pipeline="bm25", k=4)
    assert body["answer"] == expected.answer.text
    assert body["citations"] == expected.answer.citations and body["citations"]
    cited = [p for p in body["passages"] if p["cited"]]
    assert {p["chunk_id"] for p in cited} == set(body["citations"])
    assert all(p["text"] and p["source"] for p in body["passages"])
    assert [step["step"] for step in body["trace"]][-1] == "generate"
    assert body["cost"]["cost_usd"] == 0.0 and "no LLM call" in body["cost"]["line"]
    assert len([p for p in body["passages"]]) == 4


def test_query_budget_limits_the_context(client: TestClient) -> None:
    small = client.post("/v1/workspaces/sample/query", json={"question": QUESTION, "pipeline": "bm25"}).json()
    assert small["mode"] == "extractive"  # budgets apply to the LLM context; accepted and validated here
    bad = client.post("/v1/workspaces/sample/query", json={"question": QUESTION, "context_tokens": 0})
    assert bad.status_code == 422 and "context_tokens" in bad.json()["error"]["message"]


def test_a_body_that_is_not_json_is_named_as_such(client: TestClient) -> None:
    cut = client.post(
        "/v1/workspaces/sample/query", content=b'{"question": "x",', headers={"Content-Type": "application/json"}
    )
    assert cut.status_code == 422
    message = cut.json()["error"]["message"]
    assert message.startswith("request body: not valid JSON at character 17 (") and message.endswith(")")


def test_compare_answers_side_by_side_and_reports_per_pipeline_errors(client: TestClient) -> None:
    body = client.post(
        "/v1/workspaces/sample/compare",
        json={"question": QUESTION, "pipelines": ["dense", "graph-local", "no-such-pipeline"]},
    ).json()
    by_name = {o["pipeline"]: o for o in body["outcomes"]}
    assert by_name["dense"]["result"]["answer"] and by_name["graph-local"]["result"]["answer"]
    assert any(i["kind"] == "entity" for i in by_name["graph-local"]["result"]["items"])
    assert by_name["no-such-pipeline"]["result"] is None and "no-such-pipeline" in by_name["no-such-pipeline"]["error"]


def test_graph_search_neighbourhood_and_stats(client: TestClient) -> None:
    found = client.get("/v1/workspaces/sample/graph/entities", params={"q": "aisha"}).json()
    assert found and all("aisha" in e["name"].lower() for e in found)
    center = found[0]["id"]
    hood = client.get(f"/v1/workspaces/sample/graph/entities/{center}/neighbourhood", params={"depth": 2}).json()
    ids = {e["id"] for e in hood["entities"]}
    assert hood["center"] == center and center in ids and len(ids) > 1
    assert hood["relations"] and all(r["source"] in ids and r["target"] in ids for r in hood["relations"])
    missing = client.get("/v1/workspaces/sample/graph/entities/nope/neighbourhood")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    stats = client.get("/v1/workspaces/sample/graph/stats").json()
    assert stats["counts"]["entities"] == stats["stats"]["nodes"] > 0


def test_community_levels_and_reports(tmp_path: Path) -> None:
    """Empty before communities are built (not an error), then levels and reports, most important first."""
    path = build_workspace(tmp_path / "c", [SAMPLE_DOCS / "team-platform.md", SAMPLE_DOCS / "product-kestrel.md"])
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"c": ws})) as client:
        before = client.get("/v1/workspaces/c/graph/communities").json()
        assert before["overview"]["levels"] == [] and before["reports"] == []
        ws.communities.build()
        after = client.get("/v1/workspaces/c/graph/communities", params={"limit": 5}).json()
    assert after["overview"]["levels"] and after["overview"]["report_count"] > 0
    ratings = [r["rating"] for r in after["reports"]]
    assert 0 < len(ratings) <= 5 and ratings == sorted(ratings, reverse=True)
    assert all(r["text"].startswith("# ") and r["community_id"] for r in after["reports"])


def test_status_pipelines_health_and_metrics(client: TestClient, sample_dir: Path) -> None:
    status = client.get("/v1/workspaces/sample").json()
    assert status["workspace"] == "sample" and str(sample_dir) not in str(status)
    pipelines = {p["name"]: p for p in client.get("/v1/workspaces/sample/pipelines").json()}
    assert pipelines["graph-local"]["ready"] and pipelines["dense"]["ready"]
    assert client.get("/v1/health").json()["status"] == "ok"
    client.get("/v1/workspaces/sample/documents")
    metrics = client.get("/v1/metrics").text
    assert 'route="/v1/workspaces/{workspace}/documents"' in metrics
    assert 'kgrag_chunks{workspace="sample"}' in metrics


def test_eval_runs_are_listed_and_read(tmp_path: Path) -> None:
    """Stored evaluation runs (``kgrag eval run`` writes them) are listed newest first and read by id."""
    path = build_workspace(tmp_path / "ev", [], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"ev": ws})) as c:
        record = EvalRunRecord("run-nightly", "run", 1.0, "qa.json", "nightly", {"pipelines": ["dense"]})
        ws.store.eval_runs.save(record, [])
        runs = c.get("/v1/workspaces/ev/eval/runs").json()
        assert [(r["id"], r["kind"], r["label"]) for r in runs] == [("run-nightly", "run", "nightly")]
        assert c.get("/v1/workspaces/ev/eval/runs", params={"kind": "pairwise"}).json() == []
        one = c.get("/v1/workspaces/ev/eval/runs/run-nightly").json()
        assert one["record"]["dataset"] == "qa.json" and one["record"]["payload"]["pipelines"] == ["dense"]
        missing = c.get("/v1/workspaces/ev/eval/runs/nope")
        assert missing.status_code == 404 and "no evaluation run" in missing.json()["error"]["message"]


def _wait(c: TestClient, url: str) -> dict[str, object]:
    for _ in range(600):
        job: dict[str, object] = c.get(url).json()
        if job["state"] not in ("queued", "running"):
            return job
        time.sleep(0.05)
    raise AssertionError("job did not finish")


def test_upload_index_list_and_delete(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "up", [], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"up": ws})) as c:
        text = b"# Falcon\n\nFalcon is the codename of the new telemetry gateway owned by Team Harrier.\n"
        created = c.post(
            "/v1/workspaces/up/documents", files=[("files", ("falcon.md", io.BytesIO(text)))], headers=WRITE
        )
        assert created.status_code == 201
        body = created.json()
        assert body["files"][0]["name"] == "falcon.md" and body["job"]["state"] in ("queued", "running")
        job = _wait(c, f"/v1/workspaces/up/jobs/{body['job']['id']}")
        assert job["state"] == "succeeded" and job["result"]["documents_new"] == 1, job
        assert any(s["stage"] for s in job["stages"])  # progress was reported per stage
        docs = c.get("/v1/workspaces/up/documents").json()
        assert docs["counts"] == {"indexed": 1} and docs["documents"][0]["uploaded"]
        answer = c.post("/v1/workspaces/up/query", json={"question": "What is Falcon?", "pipeline": "bm25"}).json()
        assert "telemetry gateway" in answer["answer"]
        doc_id = docs["documents"][0]["id"]
        assert c.get(f"/v1/workspaces/up/documents/{doc_id}").json()["name"] == "falcon.md"
        deleted = c.delete(f"/v1/workspaces/up/documents/{doc_id}", headers=WRITE).json()
        assert deleted["file_deleted"] and not list((path / "uploads").iterdir())
        assert c.get("/v1/workspaces/up/documents").json()["documents"] == []
        assert c.delete(f"/v1/workspaces/up/documents/{doc_id}", headers=WRITE).status_code == 404


def test_delete_keeps_files_the_server_did_not_upload(tmp_path: Path) -> None:
    outside = tmp_path / "mine.md"
    outside.write_text("# Mine\n\nThis file belongs to the user, not to the server.\n", encoding="utf-8")
    path = build_workspace(tmp_path / "cli", [outside], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"cli": ws})) as c:
        doc_id = c.get("/v1/workspaces/cli/documents").json()["documents"][0]["id"]
        assert c.delete(f"/v1/workspaces/cli/documents/{doc_id}", headers=WRITE).json()["file_deleted"] is False
    assert outside.exists()


def test_jobs_can_be_cancelled_and_resume(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    path = build_workspace(tmp_path / "cj", [], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"cj": ws})) as c:
        hosted = c.app.state.kgrag.workspaces["cj"]  # type: ignore[attr-defined]
        for i in range(40):
            (hosted.uploads.directory).mkdir(exist_ok=True)
            (hosted.uploads.directory / f"doc{i}.md").write_text(f"# Doc {i}\n\nNumber {i} is here.\n")
        gate = {"ticks": 0}
        original = ws.indexing.run

        def slow_run(paths, progress=None, *, pipeline=None, prune=True):  # type: ignore[no-untyped-def]
            class Slow:
                def start(self, stage: str, total: int | None) -> None:
                    progress.start(stage, total)

                def advance(self, stage: str, amount: int = 1) -> None:
                    gate["ticks"] += 1
                    time.sleep(0.02)
                    progress.advance(stage, amount)

                def note(self, message: str) -> None:
                    progress.note(message)

                def finish(self, stage: str) -> None:
                    progress.finish(stage)

            return original(paths, Slow(), pipeline=pipeline, prune=prune)

        ws.indexing.run = slow_run  # type: ignore[method-assign]
        job = c.post("/v1/workspaces/cj/jobs", json={"kind": "index"}).json()
        while gate["ticks"] < 3:
            time.sleep(0.01)
        assert c.post("/v1/workspaces/cj/jobs", json={}).status_code == 409  # one job at a time
        assert c.post(f"/v1/workspaces/cj/jobs/{job['id']}/cancel", headers=WRITE).status_code == 202
        done = _wait(c, f"/v1/workspaces/cj/jobs/{job['id']}")
        assert done["state"] == "cancelled"
        partial = sum(c.get("/v1/workspaces/cj/documents").json()["counts"].values())
        assert 0 < partial < 40
        ws.indexing.run = original  # type: ignore[method-assign]
        again = _wait(c, f"/v1/workspaces/cj/jobs/{c.post('/v1/workspaces/cj/jobs', json={}).json()['id']}")
        assert again["state"] == "succeeded"
        assert c.get("/v1/workspaces/cj/documents").json()["counts"] == {"indexed": 40}
        assert [j["state"] for j in c.get("/v1/workspaces/cj/jobs").json()] == ["succeeded", "cancelled"]
