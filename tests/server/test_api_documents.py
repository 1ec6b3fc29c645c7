"""Documents through the API: honest per-file results (refused at upload, failed at indexing), the status
table's fields, a delete's dry run, reindexing one document, and 404s."""

from __future__ import annotations

import io
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.conftest import SAMPLE_DOCS
from tests.server.conftest import WRITE, build_workspace

from kgrag import Workspace
from kgrag.server import create_app
from kgrag.server.index_jobs import summary

WS = "/v1/workspaces/w"
GOOD = b"# Falcon\n\nFalcon is the codename of the new telemetry gateway owned by Team Harrier.\n"
LATIN1 = "Caf\xe9 cr\xe8me is served on Fridays. The recipe is from Lyon.\n".encode("latin-1")


def wait(c: TestClient, job_id: str) -> dict[str, Any]:
    for _ in range(1200):
        job: dict[str, Any] = c.get(f"{WS}/jobs/{job_id}").json()
        if job["state"] not in ("queued", "running"):
            return job
        time.sleep(0.05)
    raise AssertionError("job did not finish")


def upload(c: TestClient, *files: tuple[str, bytes]) -> Any:
    return c.post(f"{WS}/documents", files=[("files", (n, io.BytesIO(b))) for n, b in files], headers=WRITE)


def test_a_file_the_indexer_refuses_is_failed_with_its_reason_in_the_job_and_the_list(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "w", [], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
        created = upload(c, ("notes-latin1.txt", LATIN1), ("falcon.md", GOOD), ("tool.exe", b"MZ"))
        assert created.status_code == 201
        files = {f["name"]: f for f in created.json()["files"]}
        assert files["notes-latin1.txt"]["status"] == files["falcon.md"]["status"] == "accepted"
        assert files["tool.exe"]["status"] == "refused" and "unsupported file type" in files["tool.exe"]["reason"]
        job = wait(c, created.json()["job_id"])
        result = {f["name"]: f for f in job["result"]["files"]}
        assert result["falcon.md"]["status"] == "indexed" and result["falcon.md"]["reason"] is None
        assert result["notes-latin1.txt"]["status"] == "failed"
        assert result["notes-latin1.txt"]["reason"].startswith("not UTF-8 text")
        assert job["result"]["outcome"] == "partial" and "1 of 2" in job["result"]["summary"]
        assert any("notes-latin1.txt: not UTF-8" in note for note in job["notes"]), job["notes"]
        listed = {d["name"]: d for d in c.get(f"{WS}/documents").json()["documents"]}
        latin = listed["notes-latin1.txt"]
        assert latin["status"] == "failed" and latin["error"].startswith("not UTF-8 text") and latin["chunks"] == 0
        assert "\n" not in latin["error"] and latin["source_name"] == "notes-latin1.txt"
        falcon = listed["falcon.md"]
        assert falcon["status"] == "indexed" and falcon["error"] is None and falcon["chunks"] == 1
        assert falcon["entities"] == 0 and falcon["stage"] == "indexed" and falcon["uploaded"]
        failed = c.get(f"{WS}/documents", params={"status": "failed"}).json()["documents"]
        assert [d["name"] for d in failed] == ["notes-latin1.txt"]


def test_a_job_where_no_file_could_be_indexed_fails_with_the_reasons(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "w", [], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
        created = upload(c, ("broken.pdf", b"%PDF-1.4 not really a pdf"), ("empty.md", b""))
        job = wait(c, created.json()["job_id"])
        assert job["state"] == "failed" and job["result"]["outcome"] == "failed"
        assert (
            "no file could be indexed" in job["error"] and "broken.pdf" in job["error"] and "empty.md" in job["error"]
        )
        assert {f["status"] for f in job["result"]["files"]} == {"failed"}


def test_only_refused_files_answer_415_naming_each(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "w", [], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
        refused = upload(c, ("tool.exe", b"MZ"), ("data.tar", b"x"))
        assert refused.status_code == 415
        message = refused.json()["error"]["message"]
        assert "tool.exe: unsupported file type" in message and "data.tar: only .zip archives" in message
        assert not list((path / "uploads").glob("*"))


def test_delete_dry_run_counts_what_would_go_and_changes_nothing(tmp_path: Path) -> None:
    docs = [SAMPLE_DOCS / "team-platform.md", SAMPLE_DOCS / "product-kestrel.md"]
    path = build_workspace(tmp_path / "w", docs)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
        ws.communities.build()
        listed = c.get(f"{WS}/documents").json()["documents"]
        doc = next(d for d in listed if d["name"] == "product-kestrel.md")
        assert doc["chunks"] >= 1 and doc["entities"] >= 1
        before = ws.graph.counts()
        preview = c.delete(f"{WS}/documents/{doc['id']}", params={"dry_run": "true"}, headers=WRITE).json()
        assert preview["dry_run"] and preview["document"]["id"] == doc["id"] and preview["removed"] == []
        assert preview["chunks"] == doc["chunks"] and 0 < preview["entities"] <= doc["entities"]
        assert preview["entities_touched"] == doc["entities"] and preview["communities_stale"] is True
        assert ws.graph.counts() == before and ws.documents.get(doc["id"]) is not None
        deleted = c.delete(f"{WS}/documents/{doc['id']}", headers=WRITE).json()
        assert not deleted["dry_run"] and deleted["removed"] == ["product-kestrel.md"]
        assert not deleted["file_deleted"]  # the CLI indexed it from elsewhere: the file stays
        after = ws.graph.counts()
    assert before["entities"] - after["entities"] == preview["entities"]
    assert before["relations"] - after["relations"] == preview["relations"]


def test_reindex_runs_one_document_again_as_a_job(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "w", [], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
        wait(c, upload(c, ("notes-latin1.txt", LATIN1)).json()["job_id"])
        doc = c.get(f"{WS}/documents").json()["documents"][0]
        stored = next((path / "uploads").iterdir())
        stored.write_bytes(LATIN1.decode("latin-1").encode("utf-8"))  # the user fixed the file
        started = c.post(f"{WS}/documents/{doc['id']}/reindex", headers=WRITE)
        assert started.status_code == 202 and started.json()["job"]["kind"] == "reindex"
        job = wait(c, started.json()["job_id"])
        assert job["state"] == "succeeded" and job["result"]["files"][0]["status"] == "indexed", job
        again = c.get(f"{WS}/documents/{doc['id']}").json()
        assert again["status"] == "indexed" and again["error"] is None and again["chunks"] == 1
        stored.unlink()
        gone = c.post(f"{WS}/documents/{doc['id']}/reindex", headers=WRITE)
        assert gone.status_code == 409 and "upload it again" in gone.json()["error"]["message"]


def test_unknown_documents_are_404_for_every_verb(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "w", [], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"w": ws})) as c:
        for response in (
            c.get(f"{WS}/documents/nope"),
            c.delete(f"{WS}/documents/nope", headers=WRITE),
            c.delete(f"{WS}/documents/nope", params={"dry_run": "true"}, headers=WRITE),
            c.post(f"{WS}/documents/nope/reindex", headers=WRITE),
        ):
            assert response.status_code == 404 and "no document 'nope'" in response.json()["error"]["message"]
        assert c.delete(f"{WS}/documents/x", params={"dry_run": "maybe"}, headers=WRITE).status_code == 422


@pytest.mark.parametrize(
    ("statuses", "outcome", "words"),
    [
        ([], "indexed", "nothing new"),
        (["indexed", "indexed"], "indexed", "indexed 2 file(s)"),
        (["indexed", "failed"], "partial", "indexed 1 of 2 file(s); 1 failed (f1: bad)"),
        (["failed", "failed"], "failed", "no file could be indexed (f0: bad; f1: bad)"),
        (["indexed", "pending"], "partial", "indexed 1 of 2 file(s); 1 pending"),
        (["pending", "failed"], "partial", "1 pending (a later job completes them); 1 failed"),
    ],
)
def test_the_job_summary_never_calls_a_failed_or_pending_file_indexed(
    statuses: list[str], outcome: str, words: str
) -> None:
    files = [{"name": f"f{i}", "status": s, "reason": "bad" if s == "failed" else None} for i, s in enumerate(statuses)]
    got_outcome, line = summary(files)
    assert got_outcome == outcome and words in line
