"""The LLM question generator's source and checks, through the scripted LLM: a 50-entity walk is shown
whole within the token budget (passages whole, most-connected first, the rest counted as left out);
answers are checked against the cited passages only, never the graph's descriptions, by a separate judge
model when one is given; multi-fact questions that one passage answers are rejected and counted."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.conftest import SAMPLE_DOCS
from tests.evaluation.qgen_fakes import fake_store

from kgrag import Workspace
from kgrag.config import LLMConfig
from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.core.llm_types import ChatRequest
from kgrag.evaluation.qgen import generate_questions
from kgrag.evaluation.qgen.sources import SourceSampler
from kgrag.models.llm import LLMClient, ScriptedProvider, ScriptRule, create_llm_client
from kgrag.store import Store

GENERATOR = "You write evaluation questions"
CHECKER = "You check generated evaluation questions"


def _client(model: str, rules: list[ScriptRule]) -> LLMClient:
    return create_llm_client(LLMConfig(provider="scripted", model=model), provider=ScriptedProvider(rules))


def _last_user(request: ChatRequest) -> str:
    return str(request.messages[-1]["content"])


def _words(text: str) -> int:
    return len(text.split())


# --- a 60-entity graph: every entity has its own passage, and one hub passage names them all ---------------


def _big_graph() -> Store:
    texts = {
        f"c{i}": f"Unit {i} of the Marrow line " + " ".join(["reports"] * 35) + f" for unit {i}." for i in range(60)
    }
    texts["hub"] = "The Marrow line joins all sixty units at one hub station in Corve."
    ents = [
        EntityRecord(
            f"e{i}",
            f"unit{i}",
            f"Unit {i}",
            "FACILITY",
            f"Unit {i} is a long-described station. " * 5,
            (f"c{i}", "hub"),
        )
        for i in range(60)
    ]
    rels = [
        RelationRecord(f"r{i}-{j}", f"e{i}", f"e{(i + j) % 60}", "links", "", chunk_ids=(f"c{i}",))
        for i in range(60)
        for j in (1, 7, 13)
    ]
    return fake_store(texts, ents, rels)


def test_whole_walk_is_named_and_passages_are_packed_whole_by_priority() -> None:
    sampler = SourceSampler(_big_graph(), seed=2, min_subgraph_nodes=50, budget=1200, count_tokens=_words)
    source = sampler.subgraph()
    assert source is not None
    assert source.text.count("Entity: ") == 50 and source.offered["entity"] == 50 and not source.left_out["entity"]
    assert source.chunk_ids[0] == "hub"  # the passage holding the most walked entities comes first
    assert all(f"] {text}" in source.text for text in source.passages)  # whole passages, never cut
    assert source.offered["passage"] == 51 and 10 <= len(source.passages) < 51
    assert source.left_out["passage"] == 51 - len(source.passages)
    assert _words(source.text) <= 1200 + 2 * len(source.passages)  # labels "[Passage n]" on top of the budget
    wide = SourceSampler(_big_graph(), seed=2, min_subgraph_nodes=50, budget=100_000, count_tokens=_words).subgraph()
    assert wide is not None and not wide.left_out and len(wide.passages) == 51
    assert "long-described station" in wide.text and "Relation: Unit" in wide.text


def test_the_generator_sees_the_whole_walk_and_the_result_counts_what_was_left_out() -> None:
    seen: list[str] = []

    def generator(request: ChatRequest) -> str:
        seen.append(_last_user(request))
        return json.dumps({"reasoning": "r", "questions": []})

    client = _client("gen", [ScriptRule(GENERATOR, generator)])
    sampler = SourceSampler(_big_graph(), seed=2, min_subgraph_nodes=50, budget=1200, count_tokens=_words)
    result = generate_questions(sampler, client, ["subgraph"], 2, 0.8)
    assert len(seen) == 2 and all(text.count("Entity: ") == 50 for text in seen)
    assert result.offered["entity"] == 100 and result.left_out["passage"] > 0 and not result.left_out["entity"]


# --- answerability against the cited passages only ----------------------------------------------------


def _shale() -> Store:
    texts = {"s1": "Shale is a columnar store written by Aisha Okafor on the Platform team."}
    ents = [
        EntityRecord("e1", "shale", "Shale", "PRODUCT", "Shale is written in Rust and runs on Corve boxes.", ("s1",))
    ]
    return fake_store(texts, ents, [])


def _asks(*pairs: tuple[str, str, list[int]]) -> Any:
    def reply(request: ChatRequest) -> str:
        question, answer, cited = pairs[int(request.params.get("seed") or 0)]
        return json.dumps(
            {"reasoning": "r", "questions": [{"question": question, "answer": answer, "passages": cited}]}
        )

    return reply


def test_a_fact_found_only_in_the_graph_description_is_rejected_even_when_the_judge_accepts() -> None:
    judged: list[str] = []

    def judge(request: ChatRequest) -> str:
        judged.append(_last_user(request))
        return json.dumps({"reasoning": "fine", "answerable": "Aisha" in _last_user(request)})

    generator = _client(
        "gen",
        [
            ScriptRule(
                GENERATOR,
                _asks(
                    ("Which language is Shale written in?", "Rust", [1]),
                    ("Who wrote the Shale store for the Platform team?", "Aisha Okafor", [1]),
                ),
            )
        ],
    )
    checker = _client("judge-model", [ScriptRule(CHECKER, judge)])
    result = generate_questions(
        SourceSampler(_shale(), 0, 2, count_tokens=_words), generator, ["node"], 2, 0.8, judge=checker
    )
    assert result.rejected == {"answer not in the cited passages": 1}
    assert [i.answer for i in result.items] == ["Aisha Okafor"] and result.meta[result.items[0].id]["chunk_ids"] == [
        "s1"
    ]
    assert len(judged) == 1  # the separate judge model did the check, and only for the supported answer
    assert "Aisha Okafor on the Platform team" in judged[0]
    assert "Rust" not in judged[0] and "Entity:" not in judged[0]  # passages only, never the description


def test_the_judge_rejection_is_counted_and_the_generator_model_is_not_asked_to_check() -> None:
    generator = _client(
        "gen", [ScriptRule(GENERATOR, _asks(("Who wrote the Shale columnar store?", "Aisha Okafor", [1])))]
    )
    checker = _client("judge-model", [ScriptRule(CHECKER, '{"reasoning": "no", "answerable": false}')])
    result = generate_questions(
        SourceSampler(_shale(), 0, 2, count_tokens=_words), generator, ["node"], 1, 0.8, judge=checker
    )
    assert not result.items and result.rejected == {"judged unanswerable from the cited passages": 1}
    assert checker.summary().total.calls == 1 and generator.summary().total.calls == 1


# --- multi-fact questions must need two passages ------------------------------------------------------

HALL = {
    "h1": "The Brannock choir rehearses every Thursday in Tolvey Hall.",
    "h2": "Tolvey Hall was designed by the architect Isel Marr in 1911.",
    "h3": "Isel Marr designed Tolvey Hall, where the Brannock choir rehearses every Thursday.",
}


def _hall() -> Store:
    ents = [EntityRecord("a", "amberly hall", "Tolvey Hall", "FACILITY", "A hall.", ("h1", "h2", "h3"))]
    return fake_store(HALL, ents, [])


BRIDGE = ("Who designed the hall where the Brannock choir rehearses?", "Isel Marr, the architect of Tolvey Hall.")
YEAR = ("In which year was the hall of the Brannock choir's rehearsals designed?", "1911, Tolvey Hall by Isel Marr.")
MULTI = (
    ("When does the Brannock choir rehearse?", "Every Thursday.", [1]),
    (*BRIDGE, []),
    (*BRIDGE, [3, 1]),
    (*BRIDGE, [1, 2]),
    (*YEAR, [1, 2]),
)


def _per_passage_judge(request: ChatRequest) -> str:
    text = _last_user(request)
    alone = len(re.findall(r"\[Passage \d+\]", text)) == 1
    answerable = not alone or ("1911" in text and "year" in text and "Tolvey Hall was designed" in text)
    return json.dumps({"reasoning": "r", "answerable": answerable})


def test_multi_fact_questions_answerable_from_one_passage_are_rejected_and_counted() -> None:
    generator = _client("gen", [ScriptRule(GENERATOR, _asks(*MULTI))])
    checker = _client("judge-model", [ScriptRule(CHECKER, _per_passage_judge)])
    sampler = SourceSampler(_hall(), 0, 2, count_tokens=_words)
    result = generate_questions(sampler, generator, ["multi-fact"], 5, 0.95, judge=checker)
    assert result.rejected == {
        "multi-fact: cites fewer than two passages": 2,
        "multi-fact: one passage holds it all": 1,
        "multi-fact: judged answerable from one passage": 1,
    }
    (kept,) = result.items
    assert kept.question == BRIDGE[0] and result.meta[kept.id]["chunk_ids"] == ["h1", "h2"]
    assert len(kept.evidence) == 2 and {HALL["h1"], HALL["h2"]} == set(kept.evidence)


def test_without_a_judge_the_lexical_multi_fact_check_still_applies() -> None:
    generator = _client("gen", [ScriptRule(GENERATOR, _asks(*MULTI))])
    result = generate_questions(
        SourceSampler(_hall(), 0, 2, count_tokens=_words), generator, ["multi-fact"], 5, 0.95, False
    )
    assert result.rejected == {
        "multi-fact: cites fewer than two passages": 2,
        "multi-fact: one passage holds it all": 1,
    }
    assert [i.question for i in result.items] == [BRIDGE[0], YEAR[0]]


# --- through the workspace: the configured budget and the judge model named by the caller ---------------


def test_workspace_qgen_uses_the_configured_budget_and_the_named_judge_model(tmp_path: Path) -> None:
    rules = tmp_path / "rules.jsonl"
    reply = {"reasoning": "r", "questions": [{"question": "Who leads the Platform team?", "answer": "Rui Carvalho"}]}
    rules.write_text(json.dumps({"match": GENERATOR, "response": json.dumps(reply)}) + "\n", encoding="utf-8")
    llm = {"provider": "scripted", "model": "gen-m", "providers": {"scripted": {"file": str(rules)}}}
    with Workspace.init(
        tmp_path / "ws",
        embedding={"provider": "fake"},
        graph={"extractor": "nlp"},
        llm={"provider": "none"},
        evaluation={"qgen_source_tokens": 300},
    ) as ws:
        ws.index([SAMPLE_DOCS / "team-platform.md", SAMPLE_DOCS / "product-kestrel.md"])
    asked: list[str | None] = []
    checks: list[str] = []

    def judge(request: ChatRequest) -> str:
        checks.append(_last_user(request))
        return json.dumps({"reasoning": "r", "answerable": True})

    def factory(model: str | None) -> LLMClient:
        asked.append(model)
        return _client(model or "?", [ScriptRule(CHECKER, judge)])

    with Workspace.open(
        tmp_path / "ws", llm=llm, embedding={"provider": "fake"}, evaluation={"qgen_source_tokens": 300}
    ) as ws:
        ws.eval.judge_factory = factory
        result = ws.eval.qgen(["node", "edge"], 3, seed=0, llm="config", judge_model="judge-b")
    assert asked == ["judge-b"] and len(checks) == len(result.items) + sum(
        n for why, n in result.rejected.items() if why.startswith("judged")
    )
    assert result.offered["entity"] >= 9 and result.left_out  # 300 tokens cannot hold every passage
    assert all("Entity:" not in text for text in checks)
