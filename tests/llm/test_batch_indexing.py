"""``kgrag index --batch`` against the fake Batch API (real HTTP, the scripted extraction responder behind
it): a run killed while a batch is pending resumes polling and submits nothing twice; batches that fail
lines, expire or are refused fall back to live calls; in every case the graph is the one a live run
builds, and the ledger prices what the batches answered at the batch share."""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.reliability.crash import _env
from tests.reliability.harness import DB_NAME, differences, dump_tables, llm_workspace
from tests.services import scaled
from tests.store.pg_fixture import SchemaUrl

from kgrag import Workspace
from kgrag.core.llm_types import Prices
from kgrag.testing import BatchPlan, FakeBatchServer, FakeOpenAIServer
from kgrag.testing.extraction_responder import ExtractionResponder

RUN_TIMEOUT_S = scaled(240.0)
PRICES = {"llm.price_prompt_per_1m": "2.0", "llm.price_completion_per_1m": "8.0"}
BATCH = {"llm.batch_poll_s": "0.02", "llm.batch_poll_max_s": "0.05", **PRICES}
GRAPHRAG = {"indexing.pipeline": '"graphrag"'}


@pytest.fixture(scope="module")
def docs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("docs")
    for path in sorted(SAMPLE_DOCS.glob("*.md"))[:4]:
        shutil.copy(path, target / path.name)
    return target


def _responder() -> ExtractionResponder:
    return ExtractionResponder(first_pass_share=0.05)  # thin first passes: gleaning gets a round of its own


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "kgrag.cli", *args]
    return subprocess.run(command, env=_env(), capture_output=True, text=True, timeout=RUN_TIMEOUT_S)


def _index(workspace: Path, docs: Path, *extra: str) -> str:
    done = _cli("index", str(docs), "-w", str(workspace), *extra)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return done.stdout + done.stderr


def _graph(workspace: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table but the batch records in the meta table (the only rows a batched run adds)."""
    tables = dump_tables(workspace / DB_NAME)
    tables["meta"] = [row for row in tables["meta"] if not str(row[0]).startswith("llm.batch")]
    return tables


def _sources(workspace: Path) -> dict[str, int]:
    with sqlite3.connect(workspace / DB_NAME) as conn:
        return dict(conn.execute("SELECT usage_source, COUNT(*) FROM llm_calls GROUP BY usage_source").fetchall())


def _live_graph(root: Path, docs: Path, server: FakeOpenAIServer) -> tuple[dict[str, list[tuple[Any, ...]]], int]:
    live = llm_workspace(root / "live", server.base_url, **GRAPHRAG, **PRICES)
    before = server.stats.chat_requests
    _index(live, docs)
    return _graph(live), server.stats.chat_requests - before


def _kill_while_pending(workspace: Path, docs: Path, server: FakeBatchServer, batches: int) -> None:
    """Start ``kgrag index --batch`` and SIGKILL it once it polls its ``batches``-th batch, held pending."""
    target = server.batch_stats.creates + batches
    server.hold(after=target - 1)
    polls_when_created = -1
    process = subprocess.Popen(
        [sys.executable, "-m", "kgrag.cli", "index", str(docs), "-w", str(workspace), "--batch"],
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + RUN_TIMEOUT_S
        while process.poll() is None and time.monotonic() < deadline:
            if server.batch_stats.creates >= target and server.pending() and polls_when_created < 0:
                polls_when_created = server.batch_stats.polls
            if polls_when_created >= 0 and server.batch_stats.polls > polls_when_created + 1:
                process.send_signal(signal.SIGKILL)  # the batch is pending and being polled
                process.wait()
                return
            time.sleep(0.005)
        raise AssertionError(f"kgrag index --batch ended ({process.poll()}) before its batch was pending")
    finally:
        server.release()
        if process.poll() is None:
            process.kill()
            process.wait()


def test_a_killed_batch_run_resumes_polling_submits_nothing_twice_and_builds_the_live_graph(
    tmp_path: Path, docs: Path
) -> None:
    with FakeBatchServer(_responder().for_server, plan=BatchPlan(polls_to_complete=2)) as server:
        live_graph, live_requests = _live_graph(tmp_path, docs, server)

        clean = llm_workspace(tmp_path / "clean", server.base_url, **GRAPHRAG, **BATCH)
        creates, lines = server.batch_stats.creates, server.batch_stats.lines
        output = _index(clean, docs, "--batch")
        rounds = server.batch_stats.creates - creates
        assert rounds >= 4, output  # extraction, gleaning, summaries, reports: one batch each
        assert server.batch_stats.lines - lines == live_requests  # every live request went into a batch

        killed = llm_workspace(tmp_path / "killed", server.base_url, **GRAPHRAG, **BATCH)
        chat, creates = server.stats.chat_requests, server.batch_stats.creates
        _kill_while_pending(killed, docs, server, batches=2)  # killed while round 2 is pending
        assert server.batch_stats.creates - creates == 2
        status = _cli("status", "-w", str(killed))
        assert "1 batch pending (`kgrag index --batch` resumes)" in " ".join(status.stdout.split()), status.stdout
        output = _index(killed, docs, "--batch")
        assert "resuming batch" in output and "in_progress" in output  # a progress line per poll, not a tty
        assert server.batch_stats.creates - creates == rounds, "a batch was submitted again"
        assert server.stats.chat_requests == chat, "nothing may go live when every batch answers"

    assert differences(live_graph, _graph(clean)) == []
    assert differences(live_graph, _graph(killed)) == []
    sources = _sources(killed)
    assert sources.get("batch") == live_requests and "api" not in sources
    with Workspace.open(killed) as ws:
        usage = ws.llm_usage()
    prices = Prices(2.0, 8.0)
    billed = usage.total
    assert billed.batch_calls == live_requests
    assert billed.cost_usd == pytest.approx(
        prices.cost(billed.billed_prompt_tokens, billed.billed_completion_tokens) * 0.5
    )
    cost = _cli("cost", "-w", str(killed))
    assert cost.returncode == 0 and "batch" in cost.stdout and f"{live_requests} batch" in cost.stdout


@pytest.mark.parametrize(
    ("plan", "sent_live"),
    [
        (BatchPlan(fail_every=3), "failed_lines"),
        (BatchPlan(expire_after=2), "expired_lines"),
        (BatchPlan(refuse=True), "all"),
    ],
    ids=["failed-lines", "expiry", "refused"],
)
def test_what_a_batch_does_not_answer_is_sent_live_and_the_graph_is_the_live_one(
    tmp_path: Path, docs: Path, plan: BatchPlan, sent_live: str
) -> None:
    with FakeBatchServer(_responder().for_server, plan=BatchPlan()) as server:
        live_graph, live_requests = _live_graph(tmp_path, docs, server)
        server.plan = plan
        batched = llm_workspace(tmp_path / "batched", server.base_url, **GRAPHRAG, **BATCH)
        chat = server.stats.chat_requests
        with Workspace.open(batched, llm={"batch": True}) as ws:
            report = ws.index([docs])
        stats = server.batch_stats
        live = server.stats.chat_requests - chat
    expected = {"failed_lines": stats.failed_lines, "expired_lines": stats.expired_lines}.get(sent_live)
    if sent_live == "all":
        assert stats.lines == 0 and live == live_requests
    else:
        assert expected and live == expected, report.llm_lines
    assert differences(live_graph, _graph(batched)) == []
    sources = _sources(batched)
    sent = sources.get("api", 0) + sources.get("distrusted", 0)  # live calls, whether or not usage was believed
    assert sent == live and sources.get("batch", 0) == live_requests - live
    assert report.incomplete == []


def test_a_server_without_the_batch_api_stops_with_one_line(tmp_path: Path, docs: Path) -> None:
    with FakeOpenAIServer(_responder().for_server) as server:
        workspace = llm_workspace(tmp_path / "ws", server.base_url, **BATCH)
        done = _cli("index", str(docs), "-w", str(workspace), "--batch")
        assert server.stats.chat_requests == 0
    assert done.returncode != 0
    assert "has no Batch API" in done.stderr and "without --batch" in done.stderr
    assert "Traceback" not in done.stderr


def test_the_estimate_shows_live_and_batch_prices(tmp_path: Path, docs: Path) -> None:
    with FakeBatchServer(_responder().for_server) as server:
        workspace = llm_workspace(tmp_path / "ws", server.base_url, **PRICES)
        done = _cli("index", str(docs), "-w", str(workspace), "--estimate")
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if "price: live" in x)
    live, batch = (float(part.split("$")[1].split(",")[0].split(" ")[0]) for part in line.split("~")[1:3])
    assert live > 0 and batch == pytest.approx(live / 2, abs=1e-4)


def _graph_rows(workspace: Path) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]], list[tuple[str, str]]]:
    """Entities, relations and community reports through the store API (any backend)."""
    with Workspace.open(workspace) as ws:
        store = ws.store
        entities = sorted((e.key, e.name, e.type, e.description, *sorted(e.chunk_ids)) for e in store.graph.entities())
        relations = sorted((r.id, r.description) for r in store.graph.relations())
        reports = sorted((r.community_id, r.summary) for r in store.communities.reports())
    return entities, relations, reports


def test_a_killed_batch_run_on_postgresql_resumes_from_its_records(
    tmp_path: Path, docs: Path, pg_schema_url: SchemaUrl
) -> None:
    with FakeBatchServer(_responder().for_server, plan=BatchPlan(polls_to_complete=2)) as server:
        live = llm_workspace(tmp_path / "live", server.base_url, **GRAPHRAG, **PRICES)
        _index(live, docs)
        live_requests = server.stats.chat_requests
        store = {"store.backend": '"postgresql"', "store.url": f'"{pg_schema_url(tmp_path / "pg")}"'}
        killed = llm_workspace(tmp_path / "pg", server.base_url, **GRAPHRAG, **BATCH, **store)
        _kill_while_pending(killed, docs, server, batches=1)
        output = _index(killed, docs, "--batch")
        assert "resuming batch" in output
        assert server.stats.chat_requests == live_requests  # the batched run sent nothing live
        assert server.batch_stats.lines == live_requests  # every request batched exactly once
    assert _graph_rows(killed) == _graph_rows(live)
    with Workspace.open(killed) as ws:
        assert ws.llm_usage().total.batch_calls == live_requests


def test_a_batch_reply_the_stage_parser_rejects_is_not_cached_but_sent_live(tmp_path: Path, docs: Path) -> None:
    clean = _responder()
    broken = {"left": 2}

    def first_replies_broken(body: dict[str, Any]) -> str:
        if broken["left"] > 0:  # the first lines of the first batch: extraction replies that are not JSON
            broken["left"] -= 1
            return "Sorry, I cannot help with that."
        return clean.for_server(body)

    with FakeBatchServer(first_replies_broken, plan=BatchPlan()) as server:
        broken["left"] = 0
        live_graph, live_requests = _live_graph(tmp_path, docs, server)
        broken["left"] = 2
        batched = llm_workspace(tmp_path / "batched", server.base_url, **GRAPHRAG, **BATCH)
        chat = server.stats.chat_requests
        with Workspace.open(batched, llm={"batch": True}) as ws:
            report = ws.index([docs])
        live = server.stats.chat_requests - chat
    assert live == 2, report.llm_lines
    assert any("2 unusable in the batch" in line for line in report.llm_lines)
    assert differences(live_graph, _graph(batched)) == []
    assert _sources(batched) == {"api": 2, "batch": live_requests - 2, "cache": live_requests}
