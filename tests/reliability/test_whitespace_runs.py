"""A megabyte of whitespace in a document or in a model's reply is counted, not a crash: tiktoken panics on
such runs when given them whole, so both paths count in bounded pieces (:mod:`kgrag.documents.tokens`)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import REPO
from tests.reliability.harness import llm_workspace
from tests.services import scaled

from kgrag import Workspace
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder

RUN = 1_000_000
TIMEOUT_S = scaled(300.0)


def _index(docs: Path, workspace: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "HF_HUB_OFFLINE": "1", "KGRAG_TEST_KEY": "sk-test"}
    command = [sys.executable, "-m", "kgrag.cli", "index", str(docs), "-w", str(workspace)]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=TIMEOUT_S)


def test_a_document_with_a_megabyte_of_spaces_is_indexed(tmp_path: Path) -> None:
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "s.txt").write_text("a" + " " * RUN + "b", encoding="utf-8")  # a run with text after it
    (docs / "herons.md").write_text("# Herons\n\nGrey herons hunt fish in the Thames.\n", encoding="utf-8")
    workspace = tmp_path / "ws"
    Workspace.init(workspace, embedding={"provider": "fake"}).close()
    done = _index(docs, workspace)
    output = done.stdout + done.stderr
    assert done.returncode == 0 and "Traceback" not in output, output[-3000:]


def test_replies_with_a_megabyte_of_whitespace_do_not_stop_indexing(tmp_path: Path) -> None:
    docs = tmp_path / "d"
    docs.mkdir()
    (docs / "herons.md").write_text("# Herons\n\nGrey herons hunt fish in the Thames estuary.\n", encoding="utf-8")
    responder = ExtractionResponder()

    def padded(body: dict[str, Any]) -> str:
        reply = responder.for_server(body)
        return reply[:1] + " " * RUN + reply[1:]  # still the same JSON, with the run inside it

    with FakeOpenAIServer(padded) as server:
        workspace = llm_workspace(tmp_path / "ws", server.base_url, **{"llm.max_output_tokens": "512"})
        done = _index(docs, workspace)
        assert server.stats.chat_requests >= 1
    output = done.stdout + done.stderr
    assert done.returncode == 0 and "Traceback" not in output, output[-3000:]
