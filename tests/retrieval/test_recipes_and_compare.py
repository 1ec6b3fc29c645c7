"""Recipes are composed where generation lives (a pipeline names its answer strategy, generation resolves
it), responses carry typed route / context-token / cost fields that presenters read, and ``compare`` is
one workspace method that the CLI, the server and the Python API all call."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient
from typer.testing import CliRunner

from kgrag import Workspace
from kgrag.cli.app import app
from kgrag.config import KgragConfig
from kgrag.generation import FixedAnswer, resolve_strategy
from kgrag.generation.global_answer import GLOBAL_MAP_REDUCE
from kgrag.retrieval import Pipeline, build_pipeline
from kgrag.retrieval.steps import BM25Search, Hydrate, TakeTop, UseStream
from kgrag.retrieval.steps.router import Route
from kgrag.server.app import create_app

QUESTION = "Who leads the Platform team?"


def _fixed(name: str, config: KgragConfig) -> Pipeline:
    steps = (BM25Search(pool=10), UseStream("bm25"), TakeTop(), Hydrate())
    return Pipeline(name, "bm25 answered with a fixed text", steps, answer=FixedAnswer("forty-two"))


def _routed_to_fixed(name: str, config: KgragConfig) -> Pipeline:
    return Pipeline(name, "routes every question to `fixed`", (Route({r: "fixed" for r in Route().routes}),))


def test_the_global_recipe_names_its_strategy_and_generation_resolves_it(graph_ws: Workspace) -> None:
    pipeline = build_pipeline(graph_ws.pipelines, "global", graph_ws.config)
    assert pipeline.answer == "global" and resolve_strategy("global") is GLOBAL_MAP_REDUCE
    assert type(resolve_strategy(None)).__name__ == "LLMOrExtractive"


def test_a_routed_question_is_answered_the_way_its_target_pipeline_answers(graph_ws: Workspace) -> None:
    graph_ws.pipelines.register("fixed", _fixed, replace=True)
    graph_ws.pipelines.register("to-fixed", _routed_to_fixed, replace=True)
    response = graph_ws.query(QUESTION, "to-fixed", 3)
    assert response.route is not None and response.route.pipeline == "fixed"
    assert response.answer.text == "forty-two"
    step = response.result.trace[0]  # the trace still shows the decision, but nothing reads it back
    assert step.step == "route" and step.params["pipeline"] == response.route.pipeline


def test_the_response_carries_route_context_tokens_and_cost(graph_ws: Workspace) -> None:
    response = graph_ws.query(QUESTION, "hybrid", 5)
    budget = next(s for s in response.result.trace if s.step == "fit_budget")
    assert response.context_tokens == budget.params["spent"] > 0
    assert response.route is None and response.cost.prompt_tokens == 0 and response.cost.line
    data = response.to_dict()
    assert data["context_tokens"] == response.context_tokens and data["route"] is None
    assert data["cost"]["line"] == response.answer.cost_line and data["cost"]["cost_usd"] == 0.0
    routed = graph_ws.query(QUESTION, "auto", 5)
    assert routed.route is not None and routed.route.decided_by == "heuristics"
    assert routed.to_dict()["route"]["pipeline"] == routed.route.pipeline


def test_compare_answers_each_name_once_and_keeps_going_past_a_failing_pipeline(graph_ws: Workspace) -> None:
    outcomes = graph_ws.querying.compare(QUESTION, ["bm25", "no-such-pipeline", " bm25 ", "hybrid"], 3)
    assert [o.pipeline for o in outcomes] == ["bm25", "no-such-pipeline", "hybrid"]
    bm25, missing, hybrid = outcomes
    assert bm25.response is not None and hybrid.response is not None and bm25.error is None
    assert missing.response is None and missing.error is not None and "no-such-pipeline" in missing.error
    alone = graph_ws.query(QUESTION, "bm25", 3)
    assert bm25.response.answer.text == alone.answer.text and bm25.response.answer.citations == alone.answer.citations


def test_cli_server_and_python_compare_agree(graph_ws: Workspace) -> None:
    names = ["bm25", "auto", "no-such-pipeline"]
    api = {o.pipeline: o for o in graph_ws.querying.compare(QUESTION, names, 3)}
    cli = CliRunner().invoke(app, ["compare", QUESTION, "-p", ",".join(names), "--k", "3", "--json",
                                   "-w", str(graph_ws.path)], env={"KGRAG_EMBEDDING__PROVIDER": "fake"})  # fmt: skip
    assert cli.exit_code == 0, cli.output
    rows = {row["pipeline"]: row for row in json.loads(cli.output)}
    hosted = Workspace.open(graph_ws.path, embedding={"provider": "fake"}, graph={"extractor": "none"})
    with TestClient(create_app({"ws": hosted}), base_url="http://127.0.0.1") as client:
        served = client.post("/v1/workspaces/ws/compare", json={"question": QUESTION, "pipelines": names, "k": 3})
    hosted.close()
    assert served.status_code == 200, served.text
    outcomes = {o["pipeline"]: o for o in served.json()["outcomes"]}
    assert set(api) == set(rows) == set(outcomes) == set(names)
    for name in ("bm25", "auto"):
        response = api[name].response
        assert response is not None
        result = outcomes[name]["result"]
        assert rows[name]["answer"] == result["answer"] == response.answer.text
        assert rows[name]["context_tokens"] == result["context_tokens"] == response.context_tokens
        assert rows[name]["route"] == result["route"] == (response.route.to_dict() if response.route else None)
    assert rows["auto"]["route"] is not None and rows["bm25"]["route"] is None
    assert "no-such-pipeline" in rows["no-such-pipeline"]["error"] and outcomes["no-such-pipeline"]["error"]


def test_the_compare_table_cuts_a_long_answer_at_a_word_and_counts_in_plurals() -> None:
    from kgrag.cli.compare_commands import _count, shortened

    answer = "The ferry leaves Oban at nine. [c1] " * 30
    cell = shortened(answer, 100)
    assert cell.endswith(" …") and len(cell) <= 102 and answer.startswith(cell[:-2])
    assert cell[:-2].split()[-1] in answer.split()  # a whole word, not a cut one
    assert shortened("Short answer. [c1]", 100) == "Short answer. [c1]"
    assert [_count(1, "chunk"), _count(5, "chunk"), _count(7, "entity")] == ["1 chunk", "5 chunks", "7 entities"]
