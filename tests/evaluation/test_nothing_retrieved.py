"""A pipeline that retrieved nothing has been measured: its retrieval-judged scores are 0 and count in its
mean. Unmeasured is kept for what could not be told (a failed or unusable judge reply)."""

from __future__ import annotations

import json

import pytest

from kgrag.config import LLMConfig
from kgrag.core.eval_records import EvalScore
from kgrag.evaluation.aggregate import ALL, summarize
from kgrag.evaluation.metrics.answer import Faithfulness
from kgrag.evaluation.metrics.base import MetricTools, Sample
from kgrag.evaluation.metrics.retrieval import ContextRelevance, EvidenceRecall
from kgrag.evaluation.runner import RunParts, RunPlan, score_answer
from kgrag.models.llm import ScriptedProvider, ScriptRule, create_llm_client

HIT = Sample(
    question="Which enzyme does aspirin inhibit?",
    reference="Aspirin inhibits cyclooxygenase.",
    answer="Aspirin inhibits cyclooxygenase.",
    contexts=["Aspirin irreversibly inhibits cyclooxygenase enzymes.", "Aspirin reduces fever."],
    evidence=["Aspirin inhibits cyclooxygenase enzymes."],
)
MISS = Sample(HIT.question, HIT.reference, "I don't know which enzyme aspirin inhibits.", [], HIT.evidence)
BLANK = Sample(HIT.question, HIT.reference, MISS.answer, ["", "   "], HIT.evidence)
METRICS = {"context-relevance": ContextRelevance(), "evidence-recall": EvidenceRecall(), "faithfulness": Faithfulness()}


def _judge(*rules: ScriptRule) -> MetricTools:
    client = create_llm_client(LLMConfig(provider="scripted", model="judge-m"), provider=ScriptedProvider(list(rules)))
    return MetricTools(similarity=lambda a, b: 0.5, judge=client)


@pytest.mark.parametrize("sample", [MISS, BLANK], ids=["no items", "blank items"])
@pytest.mark.parametrize("name", sorted(METRICS))
def test_nothing_retrieved_scores_zero_in_both_modes(name: str, sample: Sample) -> None:
    metric = METRICS[name]
    free = metric.llm_free(sample, MetricTools(similarity=lambda a, b: 0.5))
    assert free.value == 0.0, free.note
    calls: list[str] = []
    judged = metric.judged(sample, _judge(ScriptRule(".", lambda r: calls.append("x") or "{}")))
    assert judged.value == 0.0 and judged.note == "nothing retrieved"
    assert not calls  # no judge call is spent on an empty context


def test_judge_failure_is_still_unmeasured() -> None:
    tools = _judge(ScriptRule(".", "not json"))
    assert ContextRelevance().judged(HIT, tools).value is None
    assert EvidenceRecall().judged(HIT, tools).value is None
    assert ContextRelevance().judged(HIT, _judge()).value is None  # no reply at all


def test_an_empty_retrieval_lowers_the_pipeline_mean() -> None:
    """Two questions through one pipeline: one retrieved well, one retrieved nothing. The mean over both
    is (x + 0) / 2, not x alone (which is what leaving the empty one out would report)."""
    grades = json.dumps({"reasoning": "both items on topic", "scores": [2, 2]})
    tools = _judge(ScriptRule(".", grades))
    plan = RunPlan(["dense"], ["context-relevance"], mode="llm")
    parts = RunParts(
        query=lambda q, p, k: None,  # type: ignore[arg-type,return-value]
        metrics={"context-relevance": ContextRelevance()},
        judges={},
        tools=tools,
        count_tokens=len,
    )
    scores = []
    for qid, sample in (("q1", HIT), ("q2", MISS)):
        for metric, measured in score_answer(sample, plan, parts, 0).items():
            scores.append(EvalScore("r", 0, "dense", qid, "Fact Retrieval", metric, measured.value, measured.note))
    cell = summarize(scores)["dense"]["context-relevance:llm"][ALL]
    assert cell["mean"] == pytest.approx((1.0 + 0.0) / 2)
    assert cell["n"] == 2 and cell["unmeasured"] == 0
