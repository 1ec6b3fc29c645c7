"""Unusable output paths are user errors (not tracebacks); failed opens close the store. (A locked database:
tests/store/test_sqlite_only.py.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import kgrag.workspace
from kgrag.config import StoreConfig
from kgrag.core.errors import KgragError, WorkspaceError
from kgrag.evaluation.retrieval_eval import QuestionOutcome, RetrievalEvalReport
from kgrag.evaluation.retrieval_report import write_report
from kgrag.prompts import export_prompts
from kgrag.store import Store
from kgrag.workspace import Workspace


def _blocker(tmp_path: Path) -> Path:
    """A regular file: nothing can be created below it (works as root too, unlike chmod)."""
    path = tmp_path / "a-file"
    path.write_text("not a directory", encoding="utf-8")
    return path


def _report() -> RetrievalEvalReport:
    outcome = QuestionOutcome(id="q1", question_type="Fact", pipeline="bm25", recall=1.0, latency_ms=1.0, retrieved=[])
    return RetrievalEvalReport(k=5, threshold=0.7, pipelines=["bm25"], outcomes=[outcome])


def test_eval_report_into_unusable_directory_names_it(tmp_path: Path) -> None:
    target = _blocker(tmp_path) / "reports"
    with pytest.raises(KgragError, match="cannot create the report directory") as caught:
        write_report(_report(), target, "questions.json")
    assert str(target) in str(caught.value)


def test_eval_report_file_that_cannot_be_written_names_it(tmp_path: Path) -> None:
    (tmp_path / "retrieval_eval.md").mkdir()  # a directory where the markdown file should go
    with pytest.raises(KgragError, match="cannot write the evaluation report") as caught:
        write_report(_report(), tmp_path, "questions.json")
    assert "retrieval_eval.md" in str(caught.value)


def test_prompt_export_into_unusable_directory_is_a_user_error(tmp_path: Path) -> None:
    target = _blocker(tmp_path) / "prompts"
    with pytest.raises(KgragError, match="cannot export prompts") as caught:
        export_prompts(target)
    assert str(target) in str(caught.value)


def test_open_with_another_model_closes_the_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ws_dir = tmp_path / "ws"
    with Workspace.init(ws_dir, embedding={"provider": "fake"}) as ws:
        ws.components.embedder().inner()  # loading the model records it in the database
    opened: list[Store] = []
    real_open = kgrag.workspace.facade.open_store

    def recording_open(config: StoreConfig, location: Path, registry: Any = None) -> Store:
        opened.append(real_open(config, location, registry))
        return opened[-1]

    monkeypatch.setattr(kgrag.workspace.facade, "open_store", recording_open)
    with pytest.raises(WorkspaceError, match="reindex --embeddings"):
        Workspace.open(ws_dir, embedding={"provider": "fake", "model": "other"})
    assert len(opened) == 1
    with pytest.raises(sqlite3.ProgrammingError, match="closed"):
        opened[0].documents.count_by_status()
