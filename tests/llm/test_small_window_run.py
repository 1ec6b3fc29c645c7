"""A 2048-token window whose replies run to the token limit: the run goes on with smaller requests.

The stand-in behaves like llama-cpp-python's server (it cuts a reply at ``max_tokens`` or where the window
is full, with ``finish_reason: "length"``), and its model writes about four reply words per word of text,
so a full extraction unit's reply is always cut while a short document's is not. The run must finish:
the cut units retried smaller (halves, then quarters), never a request past the window, every chunk
extracted, and a rerun that has nothing left to do.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.models.llm.request_fit import CUT_REPLY
from kgrag.models.llm.tokens import count_message_tokens, default_token_counter
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder, request_kind

pytestmark = pytest.mark.slow
WINDOW = 2048
SHORT_DOC = (
    "Mirelle Okafor leads the Harbour Sensors team in Lisbon. The team maintains the Tidewatch gauge "
    "network for the port authority.\n"
)


class RecordingResponder:
    """The realistic extraction responder, remembering every extraction request it answered."""

    def __init__(self) -> None:
        self.inner = ExtractionResponder()
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> str:
        kind, _ = request_kind(body.get("messages", []))
        if kind in ("extract", "glean"):
            with self.lock:
                self.requests.append(body)
        return self.inner.for_server(body)


def _workspace(tmp_path: Path, server: FakeOpenAIServer) -> tuple[Path, Path]:
    path = tmp_path / "ws"
    Workspace.init(path).close()
    (path / "kgrag.toml").write_text(
        '[embedding]\nprovider = "fake"\n[graph]\nextractor = "llm"\ngleaning = false\n'
        f'[llm]\nprovider = "openai"\nproviders.openai.base_url = "{server.base_url}"\nmodel = "qwen2.5-0.5b"\n'
        f'context_window = {WINDOW}\njson_mode = "json_object"\n'
    )
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(SAMPLE_DOCS / "incident-inc-2024-031.md", docs / "incident.md")
    (docs / "short.md").write_text(SHORT_DOC, encoding="utf-8")
    return path, docs


def _tokens(body: dict[str, Any]) -> int:
    """Prompt tokens as kgrag counts them, plus the reply room the request asked for."""
    return count_message_tokens(default_token_counter(), body["messages"]) + int(body.get("max_tokens") or 0)


def test_cut_replies_are_retried_smaller_and_the_run_finishes(tmp_path: Path) -> None:
    responder = RecordingResponder()
    with FakeOpenAIServer(responder, behaviour="llama-cpp-python", context_window=WINDOW) as server:
        ws, docs = _workspace(tmp_path, server)
        first = CliRunner().invoke(app, ["index", str(docs), "-w", str(ws)])
        assert first.exit_code == 0, first.output
        sent = list(responder.requests)
        assert sent, "no extraction request reached the server"
        assert max(map(_tokens, sent)) <= WINDOW  # every request fitted the window, re-asks included
        reasks = [b for b in sent if any(m["role"] == "assistant" for m in b["messages"])]
        assert reasks and all(b["messages"][-2]["content"] == CUT_REPLY for b in reasks)  # no half reply quoted
        texts = [str(b["messages"][-1]["content"]) for b in sent if b not in reasks]
        longest, shortest = max(map(len, texts)), min(len(t) for t in texts if "Mirelle" not in t)
        assert shortest < longest / 2  # the cut units went again, smaller
        assert "0 failed" in first.output
        with Workspace.open(ws) as opened:
            names = {e.name for e in opened.store.graph.entities()}
            statuses = {d.status for d in opened.store.documents.list()}
        assert {"Mirelle Okafor", "Tidewatch"} <= names and len(names) > 10
        assert statuses == {"indexed"}

        responder.requests.clear()
        again = CliRunner().invoke(app, ["index", str(docs), "-w", str(ws)])
        assert again.exit_code == 0, again.output
        assert responder.requests == []  # nothing left to extract: the rerun has nothing to redo


def test_an_estimate_with_a_probe_predicts_the_cut_units_follow_ups(tmp_path: Path) -> None:
    responder = RecordingResponder()
    # no usage block: the stand-in counts words, kgrag then counts tokens, as the estimate does
    standin = FakeOpenAIServer(responder, behaviour="llama-cpp-python", context_window=WINDOW, include_usage=False)
    with standin as server:
        ws, docs = _workspace(tmp_path, server)
        shutil.copy(SAMPLE_DOCS / "team-platform.md", docs / "team.md")
        blind = CliRunner().invoke(app, ["index", str(docs), "--estimate", "-w", str(ws)])
        assert blind.exit_code == 0 and not responder.requests, blind.output  # no probe: nothing sent
        probed = CliRunner().invoke(app, ["index", str(docs), "--estimate", "--probe", "-w", str(ws)])
        assert probed.exit_code == 0, probed.output
        assert "probe: " in probed.output and "sent for real" in probed.output and responder.requests
        with Workspace.open(ws) as opened:
            _, estimate = opened.estimate_index([docs])
            assert any("re-asks and retries per extraction call" in line for line in estimate.assumptions)
            before = {run for run in opened.store.llm_ledger.run_ids()}
        run = CliRunner().invoke(app, ["index", str(docs), "-w", str(ws)])
        assert run.exit_code == 0, run.output
        with Workspace.open(ws) as opened:
            ledger = opened.store.llm_ledger
            (run_id,) = [r for r in ledger.run_ids() if r not in before]
            actual = ledger.summary(run_id).total
    sent = actual.calls - actual.cache_hits
    print(f"\n[probe estimate] {estimate.line()}; actual {sent} calls, {actual.billed_prompt_tokens} prompt + "
          f"{actual.billed_completion_tokens} completion tokens")  # fmt: skip
    for predicted, measured in (
        (estimate.calls, sent),
        (estimate.prompt_tokens, actual.billed_prompt_tokens),
        (estimate.completion_tokens, actual.billed_completion_tokens),
    ):
        assert 0.5 * measured <= predicted <= 1.5 * measured
