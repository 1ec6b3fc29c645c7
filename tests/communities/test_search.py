"""``community`` and ``global`` search: top-k reports with provenance, the map-reduce answer inside its
prompt-token budget (trace and ledger agree), broken map replies, the LLM-free answer, requirements."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest
from tests.communities.conftest import WorkspaceMaker, index_docs, scripted_provider

from kgrag import Workspace
from kgrag.core.errors import KgragError
from kgrag.generation.global_answer import NO_POINTS, STAGE_MAP, STAGE_REDUCE
from kgrag.models.llm.scripted import ScriptedProvider
from kgrag.prompts import load_prompt
from kgrag.retrieval.pipeline_settings import GlobalSettings
from kgrag.retrieval.steps.global_plan import (
    MAP_PROMPT,
    MAP_REPLY_TOKENS,
    REDUCE_POINT_TOKENS,
    REDUCE_PROMPT,
    plan_batches,
)


def _built(
    make_ws: WorkspaceMaker, sample_docs: Path, provider: ScriptedProvider | None = None, **config: object
) -> Workspace:
    ws = make_ws(provider, **config)
    index_docs(ws, sample_docs)
    ws.communities.build()
    return ws


def test_community_search_returns_k_distinct_reports(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = _built(make_ws, sample_docs)
    result = ws.retrieve("Osprey sensors firmware", pipeline="community", k=4)
    assert len(result.items) == 4 and all(i.kind == "community" for i in result.items)
    assert len({i.text for i in result.items}) == 4  # inherited copies are not returned twice
    assert all(i.chunk_ids and i.text.startswith("# ") for i in result.items)
    assert [i.score for i in result.items] == sorted((i.score for i in result.items), reverse=True)
    assert {"level", "title", "rating", "method"} <= set(result.items[0].metadata)
    level0 = make_ws(name="other", communities={"search_levels": [0], "builders": {"leiden": {"max_cluster_size": 10}}})
    index_docs(level0, sample_docs)
    level0.communities.build()
    items = level0.retrieve("Osprey sensors firmware", pipeline="community", k=5).items
    assert items and all(i.metadata["level"] == 0 for i in items)


def test_pipelines_need_communities(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = make_ws()
    index_docs(ws, sample_docs)
    for name in ("community", "global"):
        with pytest.raises(KgragError, match="kgrag graph communities"):
            ws.retrieve("themes?", pipeline=name)


@pytest.mark.parametrize("budget", [6000, 2500])
def test_global_answer_stays_within_its_prompt_budget(make_ws: WorkspaceMaker, sample_docs: Path, budget: int) -> None:
    provider = scripted_provider()
    ws = _built(
        make_ws,
        sample_docs,
        provider,
        retrieval={"pipelines": {"global": {"max_prompt_tokens": budget, "batch_tokens": 600}}},
    )
    client = ws.components.llm()
    before = client.ledger.summary(client.run_id).by_stage
    assert STAGE_MAP not in before
    response = ws.query("What are the main themes of these documents?", pipeline="global")
    answer, trace = response.answer, {s.step: s for s in response.result.trace}
    assert answer.mode == "llm" and answer.text.startswith("The main themes")
    assert answer.citations and all(c.startswith("c") for c in answer.citations)
    usage = answer.usage
    assert usage["prompt_tokens"] <= budget and usage["llm_calls"] >= 2
    map_step, reduce_step = trace["global_map"], trace["global_reduce"]
    assert map_step.params["llm_calls"] + reduce_step.params["llm_calls"] == usage["llm_calls"]
    assert map_step.params["prompt_tokens"] + reduce_step.params["prompt_tokens"] == usage["prompt_tokens"]
    ledger = client.ledger.summary(client.run_id).by_stage
    spent = ledger[STAGE_MAP].prompt_tokens + ledger[STAGE_REDUCE].prompt_tokens
    assert spent <= budget  # what the provider was actually sent, as the ledger counts it
    assert ledger[STAGE_MAP].calls == map_step.params["llm_calls"] >= 1 and ledger[STAGE_REDUCE].calls == 1
    assert trace["global_candidates"].params["batches"] == map_step.params["llm_calls"]


def test_more_reports_than_the_budget_allows_are_cut(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = _built(make_ws, sample_docs)
    texts = [r.text for r in ws.store.communities.reports()] * 5
    counter = ws.components.llm().count_tokens
    prompts = load_prompt(MAP_PROMPT), load_prompt(REDUCE_PROMPT)
    settings = ws.config.retrieval.pipeline_settings("global", GlobalSettings)
    small = plan_batches("themes?", texts, settings.model_copy(update={"max_prompt_tokens": 2600}), counter, *prompts)
    large = plan_batches("themes?", texts, settings, counter, *prompts)
    assert 0 < small.reports < large.reports < len(texts)
    for plan in (small, large):
        assert sum(plan.batch_tokens) + plan.reduce_reserve <= plan.budget
        assert [i for b in plan.batches for i in b] == list(range(plan.reports))  # best first, none skipped
        assert plan.point_tokens == min(REDUCE_POINT_TOKENS, MAP_REPLY_TOKENS * len(plan.batches))


def test_a_small_budget_reads_reports_instead_of_room_for_points_no_batch_returns() -> None:
    """One map batch can bring back at most one capped reply of points, so a budget that fits one batch
    reserves that much for the reduce call, not the whole points allowance, and reads more reports."""
    counter = lambda text: len(text.split())  # noqa: E731 - a stand-in tokenizer
    prompts = load_prompt(MAP_PROMPT), load_prompt(REDUCE_PROMPT)
    texts = [" ".join(["word"] * 99)] * 40
    budget = GlobalSettings(max_prompt_tokens=2000, batch_tokens=5000)
    plan = plan_batches("themes?", texts, budget, counter, *prompts)
    assert len(plan.batches) == 1 and plan.point_tokens == MAP_REPLY_TOKENS < REDUCE_POINT_TOKENS
    assert sum(plan.batch_tokens) + plan.reduce_reserve <= plan.budget
    room = plan.budget - plan.reduce_reserve - sum(plan.batch_tokens)
    assert room < 101  # the next report (100 tokens) would not have fit
    whole = REDUCE_POINT_TOKENS - MAP_REPLY_TOKENS
    assert plan.reports * 100 > whole  # holding the whole allowance would have cost this many reports


def test_global_plans_its_batches_with_the_workspace_prompts(
    make_ws: WorkspaceMaker, sample_docs: Path, tmp_path: Path
) -> None:
    """A workspace's own, longer map prompt: the retrieval step plans with it, as the map calls send it, so
    fewer reports fit the budget than with the shipped prompt (which reads them all)."""
    overrides = tmp_path / "prompts"
    overrides.mkdir()
    shipped = (resources.files("kgrag.prompts") / f"{MAP_PROMPT}.toml").read_text(encoding="utf-8")
    last = 'return an empty list of points."""'
    padding = " ".join(["Weigh each summary against the whole question before listing a point from it."] * 50)
    assert shipped.count(last) == 1
    (overrides / f"{MAP_PROMPT}.toml").write_text(shipped.replace(last, last[:-3] + f' {padding}"""'), encoding="utf-8")
    # the shipped map prompt reads every report (no relevance cut, so the budget alone decides)
    budget = {"pipelines": {"global": {"max_prompt_tokens": 2000, "report_spreads": 0}}}
    plain = _built(make_ws, sample_docs, scripted_provider(), retrieval=budget)
    own = _built(
        make_ws, sample_docs, scripted_provider(), name="own", retrieval=budget, llm={"prompts_dir": str(overrides)}
    )
    planned = []
    for ws in (plain, own):
        response = ws.query("What are the main themes of these documents?", pipeline="global")
        trace = {s.step: s for s in response.result.trace}
        assert trace["global_candidates"].params["batches"] == trace["global_map"].params["llm_calls"]
        planned.append(trace["global_candidates"].params["reports"])
    assert 0 < planned[1] < planned[0]


def test_broken_map_replies_lose_their_batch_only(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    provider = scripted_provider(map="this is not json")
    ws = _built(make_ws, sample_docs, provider)
    response = ws.query("What are the main themes?", pipeline="global")
    assert response.answer.text == NO_POINTS and response.answer.idk
    assert response.answer.usage["llm_calls"] >= 1  # the map calls were made, no reduce followed
    assert {s.step: s for s in response.result.trace}["global_reduce"].params["llm_calls"] == 0


def test_low_rated_points_are_dropped(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    provider = scripted_provider(map='{"points": [{"point": "weak", "score": 5, "reports": ["R1"]}]}')
    ws = _built(make_ws, sample_docs, provider)
    response = ws.query("What are the main themes?", pipeline="global")
    assert response.answer.text == NO_POINTS  # 5 < retrieval.pipelines.global.min_score


def test_global_without_an_llm_answers_extractively(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    ws = _built(make_ws, sample_docs)
    response = ws.query("Which sensors does Osprey make?", pipeline="global")
    assert response.answer.mode == "extractive" and response.answer.usage["llm_calls"] == 0
    assert "[R" in response.answer.text and response.answer.citations
    assert all(i.kind == "community" for i in response.result.items)


def test_global_hands_over_exactly_the_reports_its_map_calls_read(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    """A budget that fits fewer reports than ``k``: the retrieval result holds only those, so a retrieval
    evaluation counts the context the map calls read, and the map calls read every report handed over."""
    small = {"pipelines": {"global": {"max_prompt_tokens": 2000, "batch_tokens": 600}}}
    ws = _built(make_ws, sample_docs, scripted_provider(), retrieval=small)
    total = len(ws.store.communities.reports())
    question = "What are the main themes of these documents?"
    result = ws.retrieve(question, pipeline="global", k=total)
    planned = {s.step: s for s in result.trace}["global_candidates"].params["reports"]
    assert isinstance(planned, int) and 0 < planned < total
    assert len(result.items) == planned
    response = ws.query(question, pipeline="global", k=total)
    assert "map-reduce over" in response.answer.cost_line
    assert f"over {planned} reports" in response.answer.cost_line


def test_global_without_an_llm_quotes_what_reports_say_not_their_outline_nor_twice() -> None:
    """Nested reports repeat their children's sentences and open with their member lists; a finding line holds
    the sentence it comes from. The answer quotes each sentence once, and never a title or a member list."""
    from kgrag.core.context import ContextItem
    from kgrag.generation.global_answer import _extractive
    from kgrag.models.embeddings import FakeEmbedder

    said = "The ferry timetable is published by the Quillon office every spring."
    child = f"# Quillon, ferry timetable\n\n12 entities centred on Quillon (organization); ferry (concept). {said}"
    parent = (
        f"# Quillon / Tamsin\n\n2 sub-groups: Quillon; Tamsin. {said}\n- Quillon — publish — ferry timetable {said}"
    )
    items = [ContextItem("community", f"c{i}", text, 1.0, []) for i, text in enumerate((parent, child))]
    answer = _extractive("Who publishes the ferry timetable?", items, FakeEmbedder(), 5)
    assert answer.text == f"{said} [R1]"
