"""An estimate sends nothing, so nothing can have failed: it must not announce failed chunks (#8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.reliability.harness import llm_workspace

from kgrag import Workspace
from kgrag.core.progress import SilentProgress
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder


class Notes(SilentProgress):
    def __init__(self) -> None:
        self.notes: list[str] = []

    def note(self, message: str) -> None:
        self.notes.append(message)


def test_estimate_reports_no_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGRAG_TEST_KEY", "sk-test")
    with FakeOpenAIServer(ExtractionResponder().for_server) as server:
        path = llm_workspace(tmp_path / "ws", server.base_url)
        progress = Notes()
        with Workspace.open(path) as ws:
            report, estimate = ws.indexing.estimate(sorted(SAMPLE_DOCS.glob("*.md"))[:3], progress)
        assert server.stats.requests == 0 and estimate.calls > 0
    assert report.chunks_extraction_failed == 0
    assert not [note for note in progress.notes if "failed" in note]
