"""30% mixed faults (HTTP errors, disconnects, broken bodies, cut and wrong-shape replies, a number or null
as the message content from the server; cut JSON, missing and invalid fields, garbage from the model), over
the ``graphrag`` pipeline (extraction, summaries, community reports): re-running until the report says
nothing is left ends with exactly the database of a fault-free run (graph, descriptions, reports), nothing
lost and nothing reported as success that was not, and answers come back the same."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.reliability.harness import DB_NAME, differences, dump_tables, health_problems, llm_workspace
from tests.reliability.totals import record

from kgrag import Workspace
from kgrag.testing import FakeOpenAIServer, FaultPlan
from kgrag.testing.extraction_responder import ExtractionResponder

DOCS = sorted(SAMPLE_DOCS.glob("*.md"))[:8]
# The server's wrong_schema fault turns any reply into a JSON object; for a plain-text summary or answer that
# is a (strange) valid text that nothing could tell from a real one, so wrong shapes come from the model
# side, where only extraction replies (which have a shape) get them.
SERVER_FAULTS = (
    "rate_limit",
    "server_error",
    "disconnect",
    "malformed_body",
    "truncated",
    "non_string_content",
    "null_content",
)
MODEL_FAULTS = (
    "truncated",
    "missing_fields",
    "invalid_fields",
    "garbage",
    "wrong_schema",
    "truncated",
    "missing_fields",
)
# of all requests (exactly: 3 in every 10, see FaultPlan.block) / of first extraction replies: together > 30%
SERVER_RATE, MODEL_RATE = 0.3, 0.5
# Runs until nothing is left: a summary or report whose call faults again on a rerun stays pending, so
# the count has a tail (measured over 73 runs of seed 11: 2 runs 66 times, 3 four times, 4 twice, 5
# once, and 6 in about one test run in ten over three seeds); 10 leaves the tail out without hiding a
# run that makes no progress at all.
MAX_RUNS = 10
SEEDS = (11, 12, 13, 14, 15, 16) if os.environ.get("KGRAG_SOAK") else (11, 12, 13)  # `make soak` sets KGRAG_SOAK
PIPELINE = {"indexing.pipeline": '"graphrag"'}
QUESTION = "Who was the incident commander for INC-2024-031?"


class Responder:
    """The extraction responder, plus a fixed answer for answer prompts (so answers can be compared)."""

    def __init__(self, **faults: Any) -> None:
        self.extraction = ExtractionResponder(**faults)

    def __call__(self, body: dict[str, Any]) -> str:
        user = body["messages"][-1]["content"] if body.get("messages") else ""
        if "Question:" in user:
            return "The incident commander was named in the incident report."
        return self.extraction.for_server(body)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KGRAG_TEST_KEY", "sk-test")


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("docs")
    for path in DOCS:
        shutil.copy(path, target / path.name)
    return target


def _index_until_complete(ws_path: Path, docs: Path) -> tuple[int, list[Any]]:
    """Index, then re-run while the report says something failed or is pending; returns the runs
    needed and every report."""
    reports = []
    for _ in range(MAX_RUNS):
        with Workspace.open(ws_path) as ws:
            report = ws.index([docs])
        reports.append(report)
        if not report.incomplete:
            break
    return len(reports), reports


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory: pytest.TempPathFactory, docs: Path) -> Iterator[dict[str, Any]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KGRAG_TEST_KEY", "sk-test")
        with FakeOpenAIServer(Responder()) as server:
            path = llm_workspace(tmp_path_factory.mktemp("clean") / "ws", server.base_url, **PIPELINE)
            runs, reports = _index_until_complete(path, docs)
            assert runs == 1 and reports[0].entities > 20
            with Workspace.open(path) as ws:
                answer = ws.query(QUESTION).answer.text
            yield {"tables": dump_tables(path / DB_NAME), "answer": answer, "requests": server.stats.chat_requests}


@pytest.mark.parametrize("seed", SEEDS)
def test_mixed_faults_end_in_the_fault_free_database(
    tmp_path: Path, docs: Path, clean_run: dict[str, Any], seed: int
) -> None:
    responder = Responder(random_faults=MODEL_FAULTS, rate=MODEL_RATE, seed=seed)
    faults = FaultPlan(rate=SERVER_RATE, kinds=SERVER_FAULTS, retry_after_s=0.001, seed=seed, block=10)
    with FakeOpenAIServer(responder, faults=faults) as server:
        path = llm_workspace(tmp_path / "ws", server.base_url, **PIPELINE)
        runs, reports = _index_until_complete(path, docs)
        injected = sum(server.stats.faults.values()) + sum(responder.extraction.malformed.values())
        requests = server.stats.chat_requests
        # The answer is compared with the fault-free run's, as a check of the index the faults left; the
        # query itself is sent fault-free: an answer cut twice is shown as cut, by design
        # (test_an_answer_the_server_cuts_is_asked_once_more_then_shown_cut).
        server.set_faults(FaultPlan())
        with Workspace.open(path) as ws:
            answer = ws.query(QUESTION).answer.text
    kinds = {**server.stats.faults, **{f"model {k}": v for k, v in responder.extraction.malformed.items()}}
    print(f"faults injected {injected} in {requests} requests, absorbed in {runs} run(s): {kinds}")
    assert injected >= 0.3 * requests
    assert "truncated" in kinds and {"model missing_fields", "model invalid_fields"} & set(kinds)
    assert runs < MAX_RUNS, "faults were still reported after every run"
    assert not health_problems(path / DB_NAME)
    # vectors are cached by text: those of a fallback summary that a retry replaced may stay. The answer's
    # own cached request is left out of the comparison (its text is compared below): retrieval breaks score
    # ties by storage order, which a run that recovered from faults wrote differently, so the same answer
    # can come from the same passages listed in another order.
    diffs = differences(
        _index_only(clean_run["tables"]), _index_only(dump_tables(path / DB_NAME)), caches=("embeddings", "llm_cache")
    )
    record("faults", tried=injected, held=injected if not diffs else 0)
    assert diffs == [], "\n".join(diffs)
    assert answer == clean_run["answer"]
    for report in reports[:-1]:  # a run that left something undone said so
        assert report.incomplete
    assert any(r.communities.get("reports_written") for r in reports)


def _index_only(tables: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """The tables without the query's cached answer (``llm_cache`` rows of the ``answer`` prompt)."""
    return {**tables, "llm_cache": [row for row in tables.get("llm_cache", []) if row[2] != "answer"]}


def test_a_loss_is_reported_and_retried_not_reported_as_success(tmp_path: Path, docs: Path) -> None:
    """Every reply for one document stays unusable: its chunks are counted as failed (never merged half),
    the finalize stage keeps it out of ``indexed``, and the next run with a healthy model completes it."""
    marker = "INC-2024-031"
    with FakeOpenAIServer(Responder(fail_markers=[marker], clean_reasks=False)) as server:
        path = llm_workspace(tmp_path / "ws", server.base_url)
        with Workspace.open(path) as ws:
            report = ws.index([docs])
            failed = report.chunks_extraction_failed
            assert failed > 0
            assert "embedded" in ws.store.documents.count_by_status()
    with FakeOpenAIServer(Responder()) as server:
        llm_workspace_url(path, server.base_url)
        with Workspace.open(path) as ws:
            again = ws.index([docs])
            assert again.chunks_extracted == failed and again.chunks_extraction_failed == 0
            assert ws.store.documents.count_by_status() == {"indexed": len(DOCS)}


def llm_workspace_url(path: Path, base_url: str) -> None:
    """Point an existing workspace at another server (ports differ between servers)."""
    config = path / "kgrag.toml"
    lines = [
        f'providers.openai.base_url = "{base_url}"' if line.startswith("providers.openai.base_url") else line
        for line in config.read_text().splitlines()
    ]
    config.write_text("\n".join(lines) + "\n", encoding="utf-8")
