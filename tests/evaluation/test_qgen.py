"""Question generation through the scripted LLM over a small graph: every level and kind produces
questions grounded in source passages; duplicates, unanswerable questions, malformed generator output
and a graph too small for the subgraph walk are counted by reason, never silently kept."""

from __future__ import annotations

import json
import re
from typing import Any

from tests.evaluation.qgen_fakes import fake_store

from kgrag.config import LLMConfig
from kgrag.core.graph_records import EntityRecord, RelationRecord
from kgrag.core.llm_types import ChatRequest
from kgrag.evaluation.qgen import generate_questions
from kgrag.evaluation.qgen.sources import SourceSampler
from kgrag.models.llm import LLMClient, ScriptedProvider, ScriptRule, create_llm_client
from kgrag.store import Store

TEXTS = {
    "c1": "Kestrel is a telemetry service. Kestrel stores metrics in Shale.",
    "c2": "Shale is a storage engine written by Ana. Shale compacts data nightly.",
    "c3": "Ana leads the Platform team. The Platform team owns Shale.",
}


def _store() -> Store:
    ents = [
        EntityRecord("e1", "kestrel", "Kestrel", "PRODUCT", "A telemetry service.", ("c1",)),
        EntityRecord("e2", "shale", "Shale", "PRODUCT", "A storage engine.", ("c1", "c2", "c3")),
        EntityRecord("e3", "ana", "Ana", "PERSON", "Engineer.", ("c2", "c3")),
    ]
    rels = [
        RelationRecord("r1", "e1", "e2", "stores in", "Kestrel stores metrics in Shale.", chunk_ids=("c1",)),
        RelationRecord("r2", "e2", "e3", "written by", "Ana wrote Shale.", chunk_ids=("c2",)),
    ]
    return fake_store(TEXTS, ents, rels, tokens=lambda _: 10)


def _supported(request: ChatRequest) -> str:
    """Answerable, except a multi-passage question shown one passage alone (the per-passage check)."""
    text = str(request.messages[-1]["content"])
    alone = len(re.findall(r"\[Passage \d+\]", text)) == 1
    several = "connected group" in text or "several passages" in text
    return json.dumps({"reasoning": "checked", "answerable": not (alone and several)})


def _client(generator: Any, checker: Any = _supported) -> LLMClient:
    rules = [
        ScriptRule("You check generated evaluation questions", checker),
        ScriptRule("You write evaluation questions", generator),
    ]
    return create_llm_client(LLMConfig(provider="scripted", model="gen"), provider=ScriptedProvider(rules))


def _question(request: ChatRequest) -> str:
    """A question about the first passage shown (the first two, citing both, for multi-passage kinds)."""
    text = "\n".join(m["content"] for m in request.messages)
    level = next(
        k
        for k in (
            "entity from a knowledge graph",
            "two related",
            "connected group",
            "phrase from it",
            "several passages",
            "each about one fact",
        )
        if k in text
    )
    passages = re.findall(r"\[Passage \d+\] ([^.]*\.)", str(request.messages[-1]["content"]))
    several = level in ("connected group", "several passages")
    answer = " ".join(passages[:2] if several else passages[:1])
    seed = request.params.get("seed")
    return json.dumps(
        {
            "reasoning": "the passages say so",
            "questions": [
                {
                    "question": f"Q about {level} number {seed} regarding Shale storage?",
                    "answer": answer,
                    "passages": [1, 2] if several else [1],
                }
            ],
        }
    )


def test_all_kinds_generate_grounded_questions_and_count_rejections() -> None:
    kinds = ["node", "edge", "subgraph", "answer-given", "single-fact", "multi-fact"]
    result = generate_questions(
        SourceSampler(_store(), seed=1, min_subgraph_nodes=3), _client(_question), kinds, 2, 0.95
    )
    kept = {i.question_type for i in result.items}
    assert kept == set(kinds)
    assert all(i.evidence and "Shale" in " ".join(i.evidence) for i in result.items)
    assert result.generated == 12 and len(result.items) == 12 and not result.rejected


def test_duplicates_unanswerable_and_malformed_are_rejected_by_reason() -> None:
    same = json.dumps({"reasoning": "r", "questions": [{"question": "What is the Shale store?", "answer": "Shale."}]})
    dup = generate_questions(SourceSampler(_store(), 0, 3), _client(same), ["single-fact"], 3, 0.8)
    assert len(dup.items) == 1 and dup.rejected["duplicate"] == 2
    no = generate_questions(
        SourceSampler(_store(), 0, 3),
        _client(same, '{"reasoning": "outside knowledge", "answerable": false}'),
        ["node"],
        2,
        0.8,
    )
    assert not no.items and no.rejected["judged unanswerable from the cited passages"] == 2
    bad = generate_questions(
        SourceSampler(_store(), 0, 3), _client("Here are some questions: 1. ..."), ["edge"], 2, 0.8
    )
    assert not bad.items and bad.rejected["generation failed"] == 2 and bad.notes


def test_subgraph_walk_needs_its_minimum_size() -> None:
    sampler = SourceSampler(_store(), seed=0, min_subgraph_nodes=4)  # only 3 connected entities exist
    assert sampler.walk() is None
    result = generate_questions(sampler, _client(_question), ["subgraph"], 2, 0.9)
    no_source = "no source (graph too small or empty, or no passage fits the budget)"
    assert not result.items and result.rejected[no_source] == 2
    walk = SourceSampler(_store(), seed=0, min_subgraph_nodes=3).walk()
    assert walk is not None and len(set(walk)) == 3
