"""No response of any endpoint names a server path: every route of the app (enumerated from
``app.routes``, so a new endpoint is covered without editing this test) is called with real and missing
ids after uploads that the indexer refuses (latin-1, a broken PDF), a refused type, a job that fails
with a path in its exception, an evaluation run whose dataset was a full path, and a document indexed
from a directory outside the workspace; no body may contain the workspace, its uploads, the temporary or
the home directory, or that outside directory."""

from __future__ import annotations

import io
import json
import re
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from tests.conftest import SAMPLE_DOCS
from tests.server.conftest import WRITE, build_workspace

from kgrag import Workspace
from kgrag.core.eval_records import EvalRunRecord, EvalScore
from kgrag.core.records import DocumentRecord, DocumentStatus
from kgrag.server import create_app

LATIN1 = "Caf\xe9 cr\xe8me is served on Fridays.\n".encode("latin-1")
OUTSIDE = Path("/srv/kgrag-corpus/reports")  # never created: a document record may name any directory
BODIES = {
    "/query": {"question": "Who leads the Platform team?", "pipeline": "bm25"},
    "/compare": {"question": "Who leads the Platform team?", "pipelines": ["bm25", "community", "nonesuch"]},
    "/jobs": {"kind": "index"},
}


def _wait(c: TestClient, url: str) -> dict[str, Any]:
    for _ in range(1200):
        job: dict[str, Any] = c.get(url).json()
        if job["state"] not in ("queued", "running"):
            return job
        time.sleep(0.05)
    raise AssertionError("job did not finish")


@pytest.fixture
def busy(tmp_path: Path) -> Iterator[tuple[TestClient, Workspace, dict[str, str]]]:
    """A workspace with everything that could carry a path: failed uploads, a failed job, an outside
    document with an error, an evaluation run over a dataset named by its full path."""
    path = build_workspace(tmp_path / "ws", [SAMPLE_DOCS / "team-platform.md", SAMPLE_DOCS / "product-kestrel.md"])
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
        files = [("notes-latin1.txt", LATIN1), ("broken.pdf", b"%PDF-1.4 broken"), ("tool.exe", b"MZ")]
        sent = c.post(
            "/v1/workspaces/w/documents", files=[("files", (n, io.BytesIO(b))) for n, b in files], headers=WRITE
        )
        _wait(c, f"/v1/workspaces/w/jobs/{sent.json()['job_id']}")
        uploads = path / "uploads"
        original = ws.indexing.run

        def failing(*args: Any, **kwargs: Any) -> Any:
            stored = next(uploads.iterdir())
            raise PermissionError(13, "Permission denied", str(stored))

        ws.indexing.run = failing  # type: ignore[method-assign]
        failed_job = c.post("/v1/workspaces/w/jobs", json={"kind": "index"}).json()
        _wait(c, f"/v1/workspaces/w/jobs/{failed_job['id']}")
        ws.indexing.run = original  # type: ignore[method-assign]
        outside = str(OUTSIDE / "q3.md")
        ws.store.documents.upsert(
            DocumentRecord(
                "d-outside", outside, "q3.md", "h", DocumentStatus.FAILED, f"{outside}: cannot read {outside}"
            )
        )
        c.app.state.kgrag.workspaces["w"].forget_roots()  # type: ignore[attr-defined]  # as after the server's writes
        dataset = str(tmp_path / "datasets" / "questions.json")
        ws.store.eval_runs.save(
            EvalRunRecord("run-paths", "run", 1.0, dataset, "nightly", {"dataset": dataset, "out": str(Path.home())}),
            [EvalScore("run-paths", 0, "bm25", "q1", "Fact Retrieval", "rouge-l", None, f"judge failed: {dataset}")],
        )
        chunk = ws.documents.chunks([c.id for c in ws.store.chunks.iter_all()][:1])[0]
        entity = ws.store.graph.entities()[0]
        ids = {
            "workspace": "w",
            "doc_id": "d-outside",
            "chunk_id": chunk.id,
            "entity_id": entity.id,
            "job_id": failed_job["id"],
            "run_id": "run-paths",
            "question_id": "q1",
        }
        yield c, ws, ids


def _forbidden(ws: Workspace) -> list[str]:
    roots = {ws.path, ws.path / "uploads", Path(tempfile.gettempdir()), Path.home(), OUTSIDE}
    return sorted({str(p) for root in roots for p in (root, root.resolve())})


def _routes(app: FastAPI) -> list[tuple[str, set[str]]]:
    """Every route with methods (mounts of static files aside), routers included by the app flattened."""
    try:
        from fastapi.routing import iter_route_contexts  # FastAPI versions that keep included routers nested
    except ImportError:
        found: list[Any] = list(app.routes)
    else:
        found = list(iter_route_contexts(app.routes))
    return [(r.path, set(r.methods)) for r in found if getattr(r, "methods", None)]


def _calls(path: str, methods: set[str], ids: dict[str, str]) -> list[tuple[str, str, dict[str, Any]]]:
    names = re.findall(r"{(\w+)(?::\w+)?}", path)
    real = path
    missing = path
    for name in names:
        real = re.sub(rf"{{{name}(?::\w+)?}}", ids.get(name, "nope"), real)
        missing = re.sub(rf"{{{name}(?::\w+)?}}", "w" if name == "workspace" else f"nope-{name}", missing)
    suffix = path.removeprefix("/v1/workspaces/{workspace}")
    calls = []
    for method in sorted(methods - {"HEAD"}):
        options: dict[str, Any] = {"headers": WRITE}
        if method == "POST" and suffix in BODIES:
            options["json"] = BODIES[suffix]
        elif method == "POST" and suffix == "/documents":
            options["files"] = [("files", ("again-latin1.txt", io.BytesIO(LATIN1)))]
        elif method == "POST" and suffix == "/eval/retrieval":
            options["files"] = {"file": ("broken.json", io.BytesIO(b"[{oops"))}
            options["data"] = {"pipelines": "bm25"}
        elif method == "DELETE":
            options["params"] = {"dry_run": "true"}
        calls.append((method, real, options))
        if missing != real:
            calls.append((method, missing, options))
    return calls


def test_no_endpoint_names_a_server_path(busy: tuple[TestClient, Workspace, dict[str, str]]) -> None:
    c, ws, ids = busy
    forbidden = _forbidden(ws)
    routes = _routes(c.app)  # type: ignore[arg-type]
    assert len(routes) >= 30 and ("/v1/workspaces/{workspace}/passages/{chunk_id}", {"GET"}) in routes
    covered: set[str] = set()
    leaks: list[str] = []
    for path, methods in routes:
        for method, url, options in _calls(path, methods, ids):
            response = c.request(method, url, **options)
            assert response.status_code < 500, (method, url, response.text)
            covered.add(path)
            leaks += [f"{method} {url}: {root}" for root in forbidden if root in response.text]
            if method == "POST" and response.status_code == 202 and "job_id" in response.text:
                job = response.json()
                leaks += [f"job of {url}: {root}" for root in forbidden if root in json.dumps(_wait(c, _job(job)))]
    assert covered == {path for path, _ in routes}
    assert leaks == []


def _job(started: dict[str, Any]) -> str:
    return f"/v1/workspaces/w/jobs/{started.get('job_id') or started['id']}"


def test_the_sources_of_the_leaks_are_scrubbed_where_they_arise(
    busy: tuple[TestClient, Workspace, dict[str, str]],
) -> None:
    c, _, ids = busy
    jobs = c.get("/v1/workspaces/w/jobs").json()
    failed = next(j for j in jobs if j["id"] == ids["job_id"])
    assert failed["state"] == "failed" and "Permission denied" in failed["error"]
    assert re.search(r"'[0-9a-f]{16}-|'(notes-latin1\.txt|broken\.pdf)'", failed["error"]), failed["error"]
    first = jobs[-1]
    assert any(n.startswith("skipped notes-latin1.txt: not UTF-8") for n in first["notes"]), first["notes"]
    outside = c.get("/v1/workspaces/w/documents/d-outside").json()
    assert outside["error"] == "cannot read q3.md" and outside["name"] == "q3.md"
    status = c.get("/v1/workspaces/w").json()
    assert {"error": "q3.md: cannot read q3.md"} in status["failed"]
    run = c.get("/v1/workspaces/w/eval/runs/run-paths").json()["record"]
    assert run["dataset"] == "questions.json" and run["payload"]["out"] == Path.home().name
    detail = c.get("/v1/workspaces/w/eval/runs/run-paths/questions/q1").json()
    assert detail["pipelines"]["bm25"]["unmeasured"] == {"rouge-l": "judge failed: questions.json"}
