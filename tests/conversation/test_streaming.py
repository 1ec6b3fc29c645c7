"""Streamed answers equal unstreamed ones, through the real HTTP transport of the fake OpenAI server: the
same text and citations, the same cache entry and the same ledger row; a stopped stream stops the request."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from tests.conversation.conftest import llm_workspace
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.core.errors import StreamCancelled
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.answer_responder import answer_responder

QUESTION = "Who leads the Platform team?"
LEDGER_FIELDS = ("stage", "provider", "model", "prompt_tokens", "completion_tokens", "usage_source", "cache_hit",
                 "attempts", "prompt_name", "prompt_version", "error")  # fmt: skip


def _ledger_row(ws: Workspace) -> dict[str, Any]:
    calls = [c for c in ws.store.llm_ledger.calls() if c.stage == "query.generate"]
    assert len(calls) == 1
    return {name: getattr(calls[0], name) for name in LEDGER_FIELDS}


def _cached(ws: Workspace) -> list[tuple[Any, ...]]:
    rows = ws.store.db.query("SELECT key, response, finish_reason, prompt_tokens, completion_tokens FROM llm_cache")
    return [tuple(r) for r in rows]


def test_a_streamed_answer_is_the_unstreamed_one_with_the_same_cache_and_ledger_rows(
    indexed_sample: Path, tmp_path: Path, llm_server: FakeOpenAIServer
) -> None:
    answers, ledgers, caches, pieces = [], [], [], []
    for name, sink in (("plain", None), ("streamed", pieces.append)):
        with Workspace.open(llm_workspace(indexed_sample, tmp_path / name, llm_server.base_url)) as ws:
            response = ws.querying.query(QUESTION, sink=sink)
            answers.append((response.answer.text, response.answer.citations, response.cost.prompt_tokens))
            ledgers.append(_ledger_row(ws))
            caches.append(_cached(ws))
    assert llm_server.stats.streams == 1 and llm_server.stats.chat_requests == 2
    assert answers[0] == answers[1] and answers[0][1], answers
    assert len(pieces) > 3 and "".join(pieces) == answers[1][0]  # word by word, as the server sent it
    assert ledgers[0] == ledgers[1] and ledgers[0]["usage_source"] == "api"
    assert caches[0] == caches[1] and len(caches[0]) == 1


def test_a_cached_answer_and_an_extractive_answer_stream_in_one_piece(llm_ws: Path, indexed_sample: Path) -> None:
    with Workspace.open(llm_ws) as ws:
        first = ws.querying.query(QUESTION).answer.text
        pieces: list[str] = []
        assert ws.querying.query(QUESTION, sink=pieces.append).answer.text == first
        assert pieces == [first]
    with Workspace.open(indexed_sample) as ws:  # no LLM: the extractive answer
        pieces = []
        response = ws.querying.query(QUESTION, sink=pieces.append)
        assert response.answer.mode == "extractive" and pieces == [response.answer.text]


def test_stopping_a_stream_stops_the_request_and_caches_nothing(indexed_sample: Path, tmp_path: Path) -> None:
    with FakeOpenAIServer(answer_responder, stream_delay_s=0.05) as server:
        path = llm_workspace(indexed_sample, tmp_path / "ws", server.base_url)
        with Workspace.open(path) as ws:

            def reader_leaves(delta: str) -> None:
                raise StreamCancelled("the reader left")

            with pytest.raises(StreamCancelled):
                ws.querying.query(QUESTION, sink=reader_leaves)
            assert _cached(ws) == []
            row = _ledger_row(ws)
            assert row["error"] == "the reader left" and row["completion_tokens"] == 0
        deadline = 50
        while server.stats.streams_aborted == 0 and deadline:  # the server notices at its next write
            time.sleep(0.05)
            deadline -= 1
        assert server.stats.streams == 1 and server.stats.streams_aborted == 1


def test_kgrag_query_streams_the_answer_the_unstreamed_command_prints(
    llm_ws: Path, llm_server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KGRAG_LLM__CACHE_ENABLED", "false")  # both commands ask the server
    runner = CliRunner()
    streamed = runner.invoke(app, ["query", QUESTION, "-w", str(llm_ws), "--stream"])
    plain = runner.invoke(app, ["query", QUESTION, "-w", str(llm_ws), "--json"])
    assert streamed.exit_code == 0 and plain.exit_code == 0, streamed.output + plain.output
    assert llm_server.stats.streams == 1 and llm_server.stats.chat_requests == 2
    answer = json.loads(plain.output)["answer"]["text"]
    lines = streamed.output.splitlines()
    assert lines[0] == f"Answer: {answer}"
    assert lines[1].startswith("LLM: ") and "Answer as checked" not in streamed.output  # cost line right after
    assert any("cited" in line for line in lines)  # then the sources


def test_only_the_answer_stages_stream(llm_server: FakeOpenAIServer) -> None:
    from kgrag.config import LLMConfig
    from kgrag.models.llm import create_llm_client

    own = {"openai": {"base_url": llm_server.base_url}}
    client = create_llm_client(LLMConfig(provider="openai", providers=own, model="m"))
    pieces: list[str] = []
    view = client.streaming(pieces.append, ["query.global.reduce"])
    messages: Any = [{"role": "user", "content": "one two three"}]
    assert view.chat(messages, stage="query.global.map").text == "echo: one two three" and pieces == []
    assert view.chat(messages, stage="query.global.reduce", seed=1).text == "".join(pieces) != ""
    assert client.chat(messages, stage="query.global.reduce", seed=2).text and llm_server.stats.streams == 1
