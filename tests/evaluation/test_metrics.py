"""Every metric in both versions: LLM-free values on hand-made cases, judged values through the scripted
LLM, and malformed / failing judge output recorded as unmeasured (None with a reason), never 0."""

from __future__ import annotations

import json

import pytest

from kgrag.config import LLMConfig
from kgrag.core.llm_types import ChatRequest
from kgrag.evaluation.metrics.answer import AnswerAccuracy, Coverage, Faithfulness, RougeL
from kgrag.evaluation.metrics.base import MetricTools, Sample, measure, metric_registry
from kgrag.evaluation.metrics.retrieval import ContextRelevance, EvidenceRecall
from kgrag.models.llm import ScriptedProvider, ScriptRule, create_llm_client

SAMPLE = Sample(
    question="Which enzyme does aspirin inhibit?",
    reference="Aspirin inhibits cyclooxygenase. It reduces prostaglandin synthesis.",
    answer="Aspirin inhibits cyclooxygenase. Aspirin was first sold in 1899.",
    contexts=["Aspirin irreversibly inhibits cyclooxygenase enzymes.", "Bananas are yellow."],
    evidence=["Aspirin inhibits cyclooxygenase enzymes.", "Prostaglandin synthesis falls as a result."],
)


def _tools(*rules: ScriptRule) -> MetricTools:
    judge = create_llm_client(LLMConfig(provider="scripted", model="judge-m"), provider=ScriptedProvider(list(rules)))
    return MetricTools(similarity=lambda a, b: 0.8, judge=judge)


FREE = MetricTools(similarity=lambda a, b: 0.8)


def test_registry_lists_all_six_metrics() -> None:
    assert set(metric_registry().names()) >= {
        "rouge-l",
        "answer-accuracy",
        "coverage",
        "faithfulness",
        "evidence-recall",
        "context-relevance",
    }


def test_llm_free_values_follow_the_formulas() -> None:
    # answer: 2 statements (1 supported by the reference); reference: 2 statements (1 covered)
    acc = AnswerAccuracy().llm_free(SAMPLE, FREE).value
    assert acc == pytest.approx(0.5 * (2 * 1 / (2 * 1 + 1 + 1)) + 0.5 * 0.8)
    assert Coverage().llm_free(SAMPLE, FREE).value == pytest.approx(0.5)
    assert Faithfulness().llm_free(SAMPLE, FREE).value == pytest.approx(0.5)
    assert EvidenceRecall().llm_free(SAMPLE, FREE).value == pytest.approx(0.5)
    # item 1 shares only "aspirin" of {which-enzyme, aspirin, inhibit} (no stemming) → grade 1; item 2 → 0
    assert ContextRelevance().llm_free(SAMPLE, FREE).value == pytest.approx((1 + 0) / 2 / 2)
    rouge = RougeL().llm_free(SAMPLE, FREE).value
    assert rouge is not None and 0.3 < rouge < 0.8


def test_citations_are_not_statements_or_words() -> None:
    from kgrag.evaluation.metrics.statements import statements, strip_citations

    extractive = "Aspirin inhibits cyclooxygenase. [c0a1b2c3d4e5] It was sold in 1899. [c9f8e7d6c5b4]"
    assert strip_citations(extractive) == "Aspirin inhibits cyclooxygenase. It was sold in 1899."
    assert statements("Aspirin inhibits cyclooxygenase [c:c0a1b2c3d4e5].") == ["Aspirin inhibits cyclooxygenase"]
    sample = Sample(SAMPLE.question, SAMPLE.reference, strip_citations(extractive), SAMPLE.contexts)
    assert Faithfulness().llm_free(sample, FREE).value == pytest.approx(0.5)


def test_verbatim_sentences_are_faithful() -> None:
    """An extractive answer strings a heading of one passage and a sentence of another together; each is
    copied word for word, so the answer is fully faithful (it scored 0.0 when the two ran into one
    statement whose words no single passage held)."""
    from kgrag.evaluation.metrics.statements import plain_answer, statements

    contexts = [
        "## Quarterly release calendar, freeze windows and hotfix rules\nThe board reviews every release on Mondays.",
        "Maja Lindqvist, VP Engineering, chairs the change approval board since 2021.",
    ]
    answer = (
        "## Quarterly release calendar, freeze windows and hotfix rules [c0123456789abcdef] "
        "Maja Lindqvist, VP Engineering, chairs the change approval board since 2021. [cfedcba9876543210]"
    )
    assert statements(plain_answer(answer)) == [
        "## Quarterly release calendar, freeze windows and hotfix rules",
        "Maja Lindqvist, VP Engineering, chairs the change approval board since 2021.",
    ]
    sample = Sample("Who chairs the change approval board?", "Maja Lindqvist.", plain_answer(answer), contexts)
    assert Faithfulness().llm_free(sample, FREE).value == pytest.approx(1.0)
    # a sentence that is only in the context with other spacing and case is still verbatim
    odd = Sample("Q?", "", "the BOARD reviews   every release on Mondays.", contexts)
    assert Faithfulness().llm_free(odd, FREE).value == pytest.approx(1.0)
    # and a sentence no passage holds is still unsupported
    made_up = Sample("Q?", "", "The board was dissolved in 2019 by the auditors.", contexts)
    assert Faithfulness().llm_free(made_up, FREE).value == pytest.approx(0.0)


def test_llm_free_unmeasured_cases_are_none_not_zero() -> None:
    empty = Sample("Q?", "", "", [], [])
    for metric in (RougeL(), AnswerAccuracy(), Coverage(), Faithfulness(), EvidenceRecall()):
        result = metric.llm_free(empty, FREE)
        assert result.value is None and result.note, metric.name
    # nothing retrieved was measured: it scores 0 (test_nothing_retrieved.py)
    assert ContextRelevance().llm_free(empty, FREE).value == 0.0


def _verdicts(n: int, supported: int) -> str:
    return json.dumps(
        {"reasoning": "checked", "verdicts": [{"statement": f"s{i}", "supported": i < supported} for i in range(n)]}
    )


def test_judged_versions_use_the_judge_reply() -> None:
    tools = _tools(
        ScriptRule(
            "grade a generated answer against",
            json.dumps({"reasoning": "r", "true_positives": ["a"], "false_positives": ["b"], "false_negatives": []}),
        ),
        ScriptRule("covers|how much of a known-correct", _verdicts(2, 2)),
        ScriptRule("stays within what its retrieved context", _verdicts(3, 1)),
        ScriptRule("retrieval found the evidence", _verdicts(2, 1)),
        ScriptRule("grade retrieved items", json.dumps({"reasoning": "r", "scores": [2, 1]})),
    )
    assert AnswerAccuracy().judged(SAMPLE, tools).value == pytest.approx(0.5 * (2 / 3) + 0.5 * 0.8)
    assert Coverage().judged(SAMPLE, tools).value == pytest.approx(1.0)
    assert Faithfulness().judged(SAMPLE, tools).value == pytest.approx(1 / 3)
    assert EvidenceRecall().judged(SAMPLE, tools).value == pytest.approx(0.5)
    relevance = ContextRelevance().judged(SAMPLE, tools)
    assert relevance.value == pytest.approx(0.75) and relevance.judge_tokens > 0


@pytest.mark.parametrize(
    "reply",
    ["this is not json at all", json.dumps({"reasoning": "r"}), json.dumps({"reasoning": "r", "verdicts": "yes"})],
)
def test_malformed_judge_output_is_unmeasured(reply: str) -> None:
    tools = _tools(ScriptRule(".", reply))
    for metric in (AnswerAccuracy(), Coverage(), Faithfulness(), EvidenceRecall(), ContextRelevance()):
        result = metric.judged(SAMPLE, tools)
        assert result.value is None, metric.name
        assert "unusable" in result.note or "grades" in result.note, result.note


def test_wrong_number_of_verdicts_is_unmeasured() -> None:
    result = EvidenceRecall().judged(SAMPLE, _tools(ScriptRule(".", _verdicts(5, 5))))
    assert result.value is None and "5 verdicts for 2" in result.note
    grades = ContextRelevance().judged(
        SAMPLE, _tools(ScriptRule(".", json.dumps({"reasoning": "r", "scores": [7, 1]})))
    )
    assert grades.value is None


def test_judge_repaired_after_one_reask() -> None:
    calls: list[ChatRequest] = []

    def flaky(request: ChatRequest) -> str:
        calls.append(request)
        return "garbage" if len(calls) == 1 else _verdicts(2, 2)

    assert Coverage().judged(SAMPLE, _tools(ScriptRule(".", flaky))).value == pytest.approx(1.0)
    assert len(calls) == 2


def test_failed_judge_call_is_unmeasured() -> None:
    result = Coverage().judged(SAMPLE, _tools())  # no rule matches: the provider refuses the call
    assert result.value is None and "judge call failed" in result.note


def test_judged_mode_without_a_judge_is_unmeasured() -> None:
    result = measure(Coverage(), SAMPLE, FREE, "llm")
    assert result.value is None and "no LLM judge" in result.note
