"""Evaluation through the API: a retrieval evaluation as a job stored as a run, the per-question
drill-down (from scores alone, from a retrieval run's payload, from stored provenance), bad input, 404s."""

from __future__ import annotations

import io
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.conftest import SAMPLE_DOCS, SAMPLE_QUESTIONS
from tests.server.conftest import WRITE, build_workspace

from kgrag import Workspace
from kgrag.core.eval_records import EvalRunRecord, EvalScore
from kgrag.server import create_app

WS = "/v1/workspaces/ev"


@pytest.fixture(scope="module")
def ev(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Workspace, TestClient]]:
    path = build_workspace(tmp_path_factory.mktemp("ev") / "ev", [SAMPLE_DOCS], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"ev": ws})) as c:
        yield ws, c


def questions_file(n: int = 4) -> bytes:
    items = json.loads(SAMPLE_QUESTIONS.read_text(encoding="utf-8"))[:n]
    return "\n".join(json.dumps(i) for i in items).encode("utf-8")


def start(c: TestClient, data: bytes, name: str = "qs.jsonl", **form: str) -> Any:
    fields = {"pipelines": "dense,bm25", "k": "5", **form}
    return c.post(f"{WS}/eval/retrieval", files={"file": (name, io.BytesIO(data))}, data=fields, headers=WRITE)


def wait(c: TestClient, job_id: str) -> dict[str, Any]:
    for _ in range(1200):
        job: dict[str, Any] = c.get(f"{WS}/jobs/{job_id}").json()
        if job["state"] not in ("queued", "running"):
            return job
        time.sleep(0.05)
    raise AssertionError("job did not finish")


def test_retrieval_evaluation_runs_as_a_job_and_drills_down_per_question(ev: tuple[Workspace, TestClient]) -> None:
    _, c = ev
    started = start(c, questions_file())
    assert started.status_code == 202, started.json()
    job = wait(c, started.json()["job_id"])
    assert job["state"] == "succeeded", job
    assert job["stages"][0]["stage"] == "questions" and job["stages"][0]["done"] == 4
    run_id = job["result"]["run_id"]
    assert run_id in [r["id"] for r in c.get(f"{WS}/eval/runs").json()]
    listed = c.get(f"{WS}/eval/runs/{run_id}/questions").json()
    assert len(listed) == 4
    first = listed[0]
    assert first["id"] == "sample-a-001" and first["question"].startswith("Who wrote Shale")
    assert first["pipelines"] == ["dense", "bm25"]
    detail = c.get(f"{WS}/eval/runs/{run_id}/questions/sample-a-001").json()
    assert detail["reference"].startswith("Shale") and detail["evidence"] and detail["type"] == "Fact Retrieval"
    dense = detail["pipelines"]["dense"]
    assert 0.0 <= dense["scores"]["evidence-recall"] <= 1.0 and dense["runs"] == 1
    assert len(dense["context"]) == 5 and all(i["text"] and i["kind"] == "chunk" for i in dense["context"])
    check = c.get(f"{WS}/eval/runs/{run_id}").json()["record"]["payload"]["evidence_check"]
    assert check["questions"] == 4 and check["sentences"] >= 4 and check["unscored"] == []
    assert dense["answer"] is None  # a retrieval evaluation answers nothing
    assert c.get(f"{WS}/eval/runs/{run_id}").json()["record"]["label"] == "retrieval"


def test_a_run_with_scores_only_lists_ids_and_types(ev: tuple[Workspace, TestClient]) -> None:
    ws, c = ev
    rows = [
        EvalScore("run-scores", 0, "dense", "q1", "Fact Retrieval", "rouge-l", 0.5),
        EvalScore("run-scores", 1, "dense", "q1", "Fact Retrieval", "rouge-l", 0.7),
        EvalScore("run-scores", 0, "dense", "q1", "Fact Retrieval", "faithfulness", None, "judge failed"),
        EvalScore("run-scores", 0, "dense", "q2", "Complex Reasoning", "rouge-l", 0.1),
    ]
    ws.store.eval_runs.save(EvalRunRecord("run-scores", "run", 2.0, "qa.json"), rows)
    listed = c.get(f"{WS}/eval/runs/run-scores/questions").json()
    assert [(q["id"], q["type"], q["question"]) for q in listed] == [
        ("q1", "Fact Retrieval", None),
        ("q2", "Complex Reasoning", None),
    ]
    detail = c.get(f"{WS}/eval/runs/run-scores/questions/q1").json()
    assert not detail["provenance"] and detail["question"] is None
    dense = detail["pipelines"]["dense"]
    assert dense["scores"] == {"faithfulness": None, "rouge-l": pytest.approx(0.6)} and dense["runs"] == 2
    assert dense["unmeasured"] == {"faithfulness": "judge failed"} and dense["context"] == []


@dataclass
class Trace:
    run_index: int
    pipeline: str
    question_id: str
    record: dict[str, Any] = field(default_factory=dict)


def test_stored_provenance_fills_answers_contexts_and_judge_replies(
    ev: tuple[Workspace, TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    ws, c = ev
    ws.store.eval_runs.save(
        EvalRunRecord("run-traced", "run", 3.0, "qa.json"),
        [EvalScore("run-traced", 0, "hybrid", "q9", "Fact Retrieval", "rouge-l", 0.4)],
    )
    record = {
        "question": "Who owns Heron?",
        "reference": "The Apps team.",
        "question_type": "Fact Retrieval",
        "answer": "Heron is owned by the Apps team [c1].",
        "citations": ["c1"],
        "contexts": [{"id": "c1", "kind": "chunk", "text": "Heron is owned by the Apps team.", "score": 0.9}],
        "judge_calls": [{"judge": "faithfulness", "reply": "supported"}],
    }

    def traces(run_id: str, question_id: str | None = None) -> list[Trace]:
        found = [Trace(0, "hybrid", "q9", record)] if run_id == "run-traced" else []
        return [t for t in found if question_id in (None, t.question_id)]

    monkeypatch.setattr(ws.eval, "traces", traces, raising=False)
    listed = c.get(f"{WS}/eval/runs/run-traced/questions").json()
    assert listed[0]["question"] == "Who owns Heron?"
    detail = c.get(f"{WS}/eval/runs/run-traced/questions/q9").json()
    hybrid = detail["pipelines"]["hybrid"]
    assert detail["question"] == "Who owns Heron?" and detail["reference"] == "The Apps team." and detail["provenance"]
    assert hybrid["answer"].startswith("Heron") and hybrid["context"][0]["text"].startswith("Heron")
    assert hybrid["judge_calls"] == [{"judge": "faithfulness", "reply": "supported"}]
    assert hybrid["scores"] == {"rouge-l": 0.4}


def test_unknown_runs_and_questions_are_404(ev: tuple[Workspace, TestClient]) -> None:
    _, c = ev
    for path in ("/eval/runs/nope/questions", "/eval/runs/nope/questions/q1", "/eval/runs/run-scores/questions/zz"):
        response = c.get(WS + path)
        assert response.status_code == 404 and response.json()["error"]["code"] == "not_found", path


def test_bad_evaluation_input_is_one_clear_line(ev: tuple[Workspace, TestClient]) -> None:
    _, c = ev
    wrong_type = start(c, b"hello", name="questions.txt")
    assert wrong_type.status_code == 415 and "questions.txt" in wrong_type.json()["error"]["message"]
    broken = start(c, b"[{not json", name="broken.json")
    assert broken.status_code == 400
    message = broken.json()["error"]["message"]
    assert "broken.json" in message and "kgrag-eval-" not in message and "/tmp" not in message
    unknown = start(c, questions_file(1), pipelines="dense,nonesuch")
    assert unknown.status_code == 400 and "nonesuch" in unknown.json()["error"]["message"]
    assert start(c, questions_file(1), pipelines=" , ").status_code == 422
    assert start(c, questions_file(1), k="0").status_code == 422
    empty = start(c, b"[]", name="empty.json")
    assert empty.status_code == 400 and "no questions" in empty.json()["error"]["message"]
    missing = c.post(f"{WS}/eval/retrieval", data={"pipelines": "dense"}, headers=WRITE)
    assert missing.status_code == 422 and "file" in missing.json()["error"]["message"]


def test_retrieval_evaluation_on_an_empty_workspace_says_what_to_do(tmp_path: Path) -> None:
    path = build_workspace(tmp_path / "ev", [], graph=False)
    with Workspace.open(path) as ws, TestClient(base_url="http://127.0.0.1", app=create_app({"ev": ws})) as c:
        response = start(c, questions_file(1))
    assert response.status_code == 400 and "kgrag index" in response.json()["error"]["message"]
