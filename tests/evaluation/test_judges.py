"""Answer judges and the two-pass pairwise judge through the scripted LLM, malformed replies included:
reasoning precedes the verdict in every schema, failures are unmeasured, the set-up is disclosed."""

from __future__ import annotations

import json

from kgrag.config import LLMConfig
from kgrag.core.llm_types import ChatRequest
from kgrag.evaluation.judges.base import JudgeSetup, judge_registry
from kgrag.evaluation.judges.dimensions import DimensionJudge
from kgrag.evaluation.judges.panel import ReferencePanel
from kgrag.evaluation.judges.schemas import AspectComparison, DimensionScore, ReferenceScore, TwoPassVerdict
from kgrag.evaluation.metrics.base import Sample
from kgrag.evaluation.pairwise.two_pass import TwoPassJudge
from kgrag.evaluation.pairwise.types import AnswerPair, PairwiseSettings
from kgrag.models.llm import LLMClient, ScriptedProvider, ScriptRule, create_llm_client
from kgrag.prompts import load_prompt

SAMPLE = Sample("What does X do?", "X pumps water.", "X pumps water uphill.", ["X is a pump that moves water."])


def _client(model: str, *rules: ScriptRule) -> LLMClient:
    return create_llm_client(LLMConfig(provider="scripted", model=model), provider=ScriptedProvider(list(rules)))


def test_every_judge_schema_reasons_before_its_verdict() -> None:
    for schema in (ReferenceScore, DimensionScore, TwoPassVerdict, AspectComparison):
        assert next(iter(schema.model_json_schema()["properties"])) == "reasoning"
    assert set(judge_registry().names()) >= {"panel", "dimensions", "two-pass", "unbiased"}


def test_panel_averages_the_judges_that_answered_and_reports_the_rest() -> None:
    good = _client("judge-a", ScriptRule(".", json.dumps({"reasoning": "matches", "score": 4})))
    other = _client("judge-b", ScriptRule(".", json.dumps({"reasoning": "partly", "score": 2})))
    broken = _client("judge-c", ScriptRule(".", '{"reasoning": "x", "score": 9}'))  # out of range, twice
    scores = ReferencePanel().score(SAMPLE, JudgeSetup((good, other, broken), temperature=0.0))
    assert scores["judge.panel"].value == 3.0
    assert "judge-c" in scores["judge.panel"].note
    assert scores["judge.panel.judge-a"].value == 4.0 and scores["judge.panel.judge-c"].value is None
    setup = JudgeSetup((good, other), temperature=0.2).describe(ReferencePanel.prompts)
    version = load_prompt("eval_reference_judge").version  # the disclosure names the version in use
    assert setup == {"models": ["judge-a", "judge-b"], "prompts": {"eval_reference_judge": version}, "temperature": 0.2}


def test_panel_with_no_usable_judge_is_unmeasured() -> None:
    broken = _client("judge-c", ScriptRule(".", "Score: 5 out of 5"))
    assert ReferencePanel().score(SAMPLE, JudgeSetup((broken,))).get("judge.panel").value is None  # type: ignore[union-attr]


def test_dimensions_each_see_only_their_inputs() -> None:
    seen: dict[str, str] = {}

    def reply(request: ChatRequest) -> str:
        text = "\n".join(m["content"] for m in request.messages)
        for dim in ("correctness", "relevance", "groundedness", "retrieval_relevance"):
            if f"eval_dim_{dim}" in str(request.prompt):
                seen[dim] = text
        score = 3 if "Reference answer" in text else 8
        return json.dumps({"reasoning": "per rubric", "score": score})

    scores = DimensionJudge().score(SAMPLE, JudgeSetup((_client("j", ScriptRule(".", reply)),)))
    assert scores["judge.correctness"].value == 3.0 and scores["judge.relevance"].value == 8.0
    assert "Reference answer" not in seen["groundedness"] and "Retrieved context" in seen["groundedness"]
    assert "Retrieved context" not in seen["relevance"] and "Reference answer" in seen["correctness"]


def test_dimensions_malformed_reply_is_unmeasured() -> None:
    scores = DimensionJudge().score(SAMPLE, JudgeSetup((_client("j", ScriptRule(".", '{"score": "high"}')),)))
    assert all(m.value is None and m.note for m in scores.values())


def test_two_pass_maps_swapped_verdicts_back_and_counts_ties() -> None:
    def favour_first(request: ChatRequest) -> str:
        return json.dumps(
            {"reasoning": "r", "comprehensiveness": "1", "diversity": "tie", "empowerment": "1", "overall": "1"}
        )

    pairs = [AnswerPair(f"q{i}", "Q?", "T", "a", "b") for i in range(4)]
    result = TwoPassJudge().compare(
        pairs, JudgeSetup((_client("j", ScriptRule(".", favour_first)),)), PairwiseSettings(bootstrap_samples=200)
    )
    overall = result["criteria"]["overall"]
    assert overall["counts"] == {"A": 4, "B": 4, "tie": 0}  # the first slot always wins: A in pass A, B in pass B
    assert result["criteria"]["diversity"]["counts"]["tie"] == 8
    assert result["position_consistency"] == 0.0 and result["verdict"] == "tie within the confidence interval"
