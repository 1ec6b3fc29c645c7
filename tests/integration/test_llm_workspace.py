"""A workspace configured with a real OpenAI-compatible endpoint (the fake server, over HTTP):
LLM graph extraction, answers with citations and cost, estimate mode and token budgets, via the CLI."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.generation.answer import IDK_SENTENCE
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder

DOCS = ("incident-inc-2024-031.md", "team-sre.md", "on-call-handbook.md", "product-kestrel.md")
LABEL = re.compile(r"\[c:(c[0-9a-f]+)\]")


class Responder:
    """Extraction JSON for extraction prompts; a cited one-sentence answer for answer prompts."""

    def __init__(self) -> None:
        self.extraction = ExtractionResponder()

    def __call__(self, body: dict[str, Any]) -> str:
        messages = body.get("messages", [])
        user = messages[-1]["content"] if messages else ""
        if "Question:" not in user:
            return self.extraction.for_server(body)
        labels = LABEL.findall(user)
        if not labels:
            return IDK_SENTENCE
        return f"Daniel Park was the incident commander [c:{labels[0]}] [c:cdeadbeef00000000]."


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer(Responder()) as running:
        yield running


@pytest.fixture
def llm_ws(tmp_path: Path, server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("KGRAG_TEST_KEY", "sk-test")
    ws = tmp_path / "ws"
    Workspace.init(ws).close()
    (ws / "kgrag.toml").write_text(
        '[embedding]\nprovider = "fake"\n'
        f'[llm]\nprovider = "openai"\nproviders.openai.base_url = "{server.base_url}"\nmodel = "test-model"\n'
        'providers.openai.api_key_env = "KGRAG_TEST_KEY"\nbackoff_base_s = 0.001\nprice_prompt_per_1m = 1.0\n'
        "price_completion_per_1m = 2.0\n"
    )
    return ws


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    target = tmp_path / "docs"
    target.mkdir()
    for name in DOCS:
        shutil.copy(SAMPLE_DOCS / name, target / name)
    return target


def _invoke(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result


def test_llm_index_query_cost_and_status(llm_ws: Path, docs: Path, server: FakeOpenAIServer) -> None:
    output = _invoke("index", str(docs), "-w", str(llm_ws)).output
    assert "llm index.extract:" in output
    ratio = float(re.search(r"extraction cost: ([0-9.]+) prompt tokens per corpus token", output).group(1))  # type: ignore[union-attr]
    assert 0.5 < ratio <= 2.5
    with Workspace.open(llm_ws) as ws:
        assert ws.store.graph.counts()["entities"] > 20
        assert ws.store.documents.count_by_status() == {"indexed": len(DOCS)}
    query = json.loads(
        _invoke("query", "Who was the incident commander for INC-2024-031?", "-w", str(llm_ws), "--json").output
    )
    answer = query["answer"]
    retrieved = {item["id"] for item in query["retrieval"]["items"]}
    assert answer["mode"] == "llm" and answer["citations"] and set(answer["citations"]) <= retrieved
    assert "cdeadbeef" not in answer["text"]  # invented citation removed
    assert "$" in answer["cost_line"]
    assert query["retrieval"]["trace"][-1]["step"] == "generate"
    requests_before = server.stats.chat_requests
    _invoke("query", "Who was the incident commander for INC-2024-031?", "-w", str(llm_ws))
    assert server.stats.chat_requests == requests_before  # answered from the response cache
    usage = json.loads(_invoke("cost", "--json", "-w", str(llm_ws)).output)
    assert {"index.extract", "query.generate"} <= set(usage["by_stage"])
    assert usage["total"]["cache_hits"] >= 1 and usage["total"]["cost_usd"] > 0
    status = json.loads(_invoke("status", "--json", "-w", str(llm_ws)).output)
    assert status["llm"]["cache_hit_rate"] > 0 and status["llm"]["cache_entries"] > 0


def test_estimate_calls_nothing_and_changes_nothing(llm_ws: Path, docs: Path, server: FakeOpenAIServer) -> None:
    output = _invoke("index", str(docs), "--estimate", "-w", str(llm_ws)).output
    match = re.search(r"(\d+) LLM calls, ~(\d+) prompt", output)
    assert match and int(match.group(1)) > 0 and int(match.group(2)) > 1000
    assert server.stats.requests == 0
    with Workspace.open(llm_ws) as ws:
        assert ws.store.chunks.count() == 0 and ws.store.documents.list() == []


def test_estimate_counts_cached_replies_as_free(llm_ws: Path, docs: Path, server: FakeOpenAIServer) -> None:
    """A dry run of the store: the removed documents' replies are still cached, so re-indexing them
    would cost nothing, and the estimate changes nothing (documents, cache, ledger)."""
    with Workspace.open(llm_ws) as ws:
        ws.index([docs])
        ws.remove([str(path) for path in sorted(docs.iterdir())])
        sent = server.stats.requests

        def state() -> tuple[object, ...]:
            return (
                ws.store.documents.count_by_status(),
                ws.store.chunks.count(),
                ws.store.graph.counts(),
                ws.store.llm_cache.count(),
                ws.store.llm_ledger.run_ids(),
                ws.store.llm_ledger.summary().total,
            )

        before = state()
        report, estimate = ws.estimate_index([docs])
        assert report.chunks_extracted > 0 and estimate.calls == 0 and estimate.cost_usd == 0.0
        assert server.stats.requests == sent
        assert state() == before


def test_budget_stops_cleanly_then_resumes(llm_ws: Path, docs: Path) -> None:
    # the stand-in sends each reply whole and ignores max_tokens; room for its longest extraction reply
    # makes it a server that stays within max_tokens, as real ones do (a runaway server is
    # tests/llm/test_budget_in_flight.py's case), so the reservations bound every reply and the cap holds
    toml = llm_ws / "kgrag.toml"
    toml.write_text(toml.read_text() + "max_output_tokens = 7000\n")
    result = CliRunner().invoke(app, ["index", str(docs), "--budget-tokens", "12000", "-w", str(llm_ws)])
    assert result.exit_code == 3, result.output  # finished, but incomplete: a script must see that
    assert "incomplete: " in result.output and "chunks failed extraction" in result.output
    assert "token budget" in result.output
    with Workspace.open(llm_ws) as ws:
        statuses = ws.store.documents.count_by_status()
        assert statuses.get("embedded", 0) >= 1  # not all extracted: not marked indexed
        usage = ws.llm_usage()
        assert 0 < usage.total.prompt_tokens + usage.total.completion_tokens <= 12000
    _invoke("index", str(docs), "-w", str(llm_ws))
    with Workspace.open(llm_ws) as ws:
        assert ws.store.documents.count_by_status() == {"indexed": len(DOCS)}


def test_prompts_list_and_export(tmp_path: Path, llm_ws: Path) -> None:
    listing = _invoke("prompts", "list", "-w", str(llm_ws)).output
    assert "answer" in listing and "extract_graph" in listing
    out = tmp_path / "prompts"
    _invoke("prompts", "export", str(out))
    assert (out / "answer.toml").exists() and (out / "extract_graph.toml").exists()


def test_a_small_context_window_is_fitted_not_refused(llm_ws: Path, docs: Path, server: FakeOpenAIServer) -> None:
    toml = llm_ws / "kgrag.toml"
    toml.write_text(toml.read_text() + "context_window = 2048\n")
    result = CliRunner().invoke(app, ["index", str(docs), "-w", str(llm_ws)])
    assert result.exit_code == 0, result.output
    assert "fitted to the model's 2048-token context window" in result.output
    assert "graph.extractors.llm.unit_tokens 1200 -> " in result.output
    assert server.stats.requests > 0


def test_a_window_too_small_for_any_request_fails_before_any_call(
    llm_ws: Path, docs: Path, server: FakeOpenAIServer
) -> None:
    toml = llm_ws / "kgrag.toml"
    toml.write_text(toml.read_text() + "context_window = 512\n")
    result = CliRunner().invoke(app, ["index", str(docs), "-w", str(llm_ws)])
    assert result.exit_code == 1
    assert "llm.context_window is 512" in result.output and "num_ctx" in result.output
    assert server.stats.requests == 0


def _graph_snapshot(ws: Workspace) -> tuple[object, ...]:
    entities = sorted((e.key, e.type, e.chunk_ids) for e in ws.store.graph.entities())
    relations = sorted((r.source_id, r.target_id, r.label, r.chunk_ids) for r in ws.store.graph.relations())
    return entities, relations


def test_graph_under_30_percent_faults_equals_the_clean_graph(
    tmp_path: Path, docs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """End to end through the workspace: HTTP faults of every kind and malformed replies never lose
    entities silently; whatever fails is retried by the next run, and the result equals a clean run."""
    from kgrag.testing import FaultPlan

    monkeypatch.setenv("KGRAG_TEST_KEY", "sk-test")
    graphs = []
    for name, faults in (("clean", FaultPlan()), ("faulty", FaultPlan(rate=0.3, slow_s=0.3, seed=7))):
        with FakeOpenAIServer(Responder(), faults) as server:
            ws = Workspace.init(
                tmp_path / name,
                embedding={"provider": "fake"},
                llm={
                    "provider": "openai",
                    "providers": {"openai": {"base_url": server.base_url, "api_key_env": "KGRAG_TEST_KEY"}},
                    "model": "m",
                    "timeout_s": 0.2,
                    "backoff_base_s": 0.001,
                    "backoff_max_s": 0.01,
                    "cache_enabled": False,
                },
            )
            reports = [ws.index([docs])]
            while reports[-1].chunks_extraction_failed and len(reports) < 4:
                reports.append(ws.index([docs]))  # failed chunks are retried, never dropped
            assert reports[-1].chunks_extraction_failed == 0
            assert ws.store.documents.count_by_status() == {"indexed": len(DOCS)}
            if name == "faulty":
                assert sum(server.stats.faults.values()) > 5
                assert ws.llm_usage().total.retries > 0
            graphs.append(_graph_snapshot(ws))
            ws.close()
    assert graphs[0] == graphs[1]


def test_an_answer_the_server_cuts_is_asked_once_more_then_shown_cut(
    llm_ws: Path, docs: Path, server: FakeOpenAIServer
) -> None:
    """A reply that stops at the token limit (``finish_reason: length``) is asked once more; a second cut
    reply is kept as it came, saying it was cut and how to get all of it."""
    from kgrag.generation.answer import CUT_NOTE
    from kgrag.testing import FaultPlan

    question = "Who was the incident commander for INC-2024-031?"
    with Workspace.open(llm_ws) as ws:
        ws.index([docs])
        answers = []
        for cuts in (["truncated", "truncated"], ["truncated", None]):  # a cut reply is never cached
            server.set_faults(FaultPlan(sequence=list(cuts)))
            before = server.stats.chat_requests
            answers.append(ws.query(question, "hybrid").answer.text)  # hybrid: the answer is the only call
            assert server.stats.chat_requests == before + 2
    assert answers[0].endswith(CUT_NOTE) and len(answers[0].removesuffix(CUT_NOTE).strip()) < len(answers[1])
    assert answers[1].startswith("Daniel Park was the incident commander") and CUT_NOTE not in answers[1]
