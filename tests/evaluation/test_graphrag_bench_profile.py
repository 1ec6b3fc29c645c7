"""The ``graphrag-bench`` metric profile pinned to GraphRAG-Bench's published formulas and edge cases.

Every expected value below is worked out by hand from the benchmark's formulas (the arithmetic is in
the comments), never by calling the code under test:

- answer accuracy = 0.75·F + 0.25·(cos + 1)/2, with P = TP/(TP+FP+1e-10), R = TP/(TP+FN+1e-10),
  F = 2PR/(P+R+1e-10); F = 1 when both statement lists are empty, F = 0 when the classification is
  unusable; three judge calls (answer statements, reference statements, few-shot classification);
- coverage = covered facts / verdicts returned, facts extracted by the judge; empty reference = 1;
- faithfulness = supported statements / verdicts; empty answer = 1; no retrieved text = 0;
- evidence recall = attributed evidence / verdicts; no retrieved text = 0;
- context relevance = mean of two whole-context 0-2 ratings / 2; nothing retrieved, or a context that only
  repeats the question = 0;
- ROUGE-L = LCS F-measure with Porter stemming; empty answer or reference = 0.

The judge is scripted: each prompt gets its replies from a queue, in call order.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable

import pytest

from kgrag.config import LLMConfig
from kgrag.core.llm_types import ChatRequest
from kgrag.evaluation.metrics.base import Measured, MetricTools, Sample, measure, metric_registry
from kgrag.evaluation.metrics.graphrag_bench import (
    BenchAnswerAccuracy,
    BenchContextRelevance,
    BenchCoverage,
    BenchEvidenceRecall,
    BenchFaithfulness,
    BenchRougeL,
)
from kgrag.models.llm import ScriptedProvider, ScriptRule, create_llm_client

GUARD = 1e-10


class QueueJudge:
    """Replies per prompt name, taken in order; records (prompt name, messages) of every request."""

    def __init__(self, **queues: list[str]) -> None:
        self.queues = {name: list(replies) for name, replies in queues.items()}
        self.calls: dict[str, list[ChatRequest]] = defaultdict(list)

    def reply(self, request: ChatRequest) -> str:
        assert request.prompt is not None
        name = request.prompt.name
        self.calls[name].append(request)
        return self.queues[name].pop(0)

    def tools(self, cosine: float = 0.0) -> MetricTools:
        provider = ScriptedProvider([ScriptRule(".", self.reply)])
        judge = create_llm_client(LLMConfig(provider="scripted", model="judge-m"), provider=provider)
        return MetricTools(similarity=lambda a, b: cosine, judge=judge)

    def count(self, name: str) -> int:
        return len(self.calls[name])

    def user_text(self, name: str, index: int = 0) -> str:
        return str(self.calls[name][index].messages[-1]["content"])


def statements(*items: str) -> str:
    return json.dumps({"reasoning": "split", "statements": list(items)})


def classification(tp: int, fp: int, fn: int) -> str:
    return json.dumps(
        {
            "reasoning": "sorted",
            "true_positives": [f"t{i}" for i in range(tp)],
            "false_positives": [f"f{i}" for i in range(fp)],
            "false_negatives": [f"n{i}" for i in range(fn)],
        }
    )


def verdicts(*flags: int) -> str:
    return json.dumps(
        {
            "reasoning": "checked",
            "verdicts": [{"statement": f"s{i}", "supported": bool(f)} for i, f in enumerate(flags)],
        }
    )


def rating(score: float) -> str:
    return json.dumps({"reasoning": "graded", "score": score})


QA = Sample(
    question="Which drugs are first-line for hypertension in adults?",
    reference="Thiazide diuretics, ACE inhibitors and calcium channel blockers are first-line.",
    answer="ACE inhibitors and beta blockers are first-line.",
    contexts=["ACE inhibitors are a first-line option.", "Thiazide diuretics lower blood pressure."],
    evidence=["ACE inhibitors are first-line antihypertensives.", "Thiazides are first-line antihypertensives."],
)


def test_profile_metrics_are_registry_entries_beside_kgrag_variants() -> None:
    registry = metric_registry()
    for base in ("rouge-l", "answer-accuracy", "coverage", "faithfulness", "evidence-recall", "context-relevance"):
        assert base in registry
        metric = registry.load(f"{base}@graphrag-bench")()
        assert metric.name == f"{base}@graphrag-bench" and metric.paper == "graphrag-bench"


# ---------------------------------------------------------------- answer accuracy


@pytest.mark.parametrize(
    ("tp", "fp", "fn", "cosine", "expected"),
    [
        # P = 1/2, R = 1/2, F = 0.5; SS = (0.6+1)/2 = 0.8; 0.75·0.5 + 0.25·0.8 = 0.375 + 0.2 = 0.575
        (1, 1, 1, 0.6, 0.575),
        # wrong answer on the right topic: TP = 0 → P = R = F = 0; SS = (0.7+1)/2 = 0.85; 0.25·0.85 = 0.2125
        # (kgrag's own variant: 0.5·0 + 0.5·0.7 = 0.35)
        (0, 1, 1, 0.7, 0.2125),
        # P = 3/3 = 1, R = 3/4, F = 2·0.75/1.75 = 6/7; SS = 0.95; 0.75·6/7 + 0.25·0.95 = 0.642857… + 0.2375
        (3, 0, 1, 0.9, 0.75 * 6 / 7 + 0.2375),
        # P = 2/4 = 0.5, R = 2/2 = 1, F = 2·0.5/1.5 = 2/3; SS = (−0.4+1)/2 = 0.3; 0.5 + 0.075 = 0.575
        (2, 2, 0, -0.4, 0.575),
        # P = R = 1, F = 1 (less 1e-10); SS = (1+1)/2 = 1; 0.75 + 0.25 = 1.0
        (4, 0, 0, 1.0, 1.0),
    ],
)
def test_answer_accuracy_formula(tp: int, fp: int, fn: int, cosine: float, expected: float) -> None:
    judge = QueueJudge(
        eval_gb_statements=[statements("a1", "a2"), statements("r1", "r2")],
        eval_gb_classify=[classification(tp, fp, fn)],
    )
    result = BenchAnswerAccuracy().judged(QA, judge.tools(cosine))
    assert result.value == pytest.approx(expected, abs=1e-9)
    # three judge calls: statements of the answer, statements of the reference, the classification
    assert judge.count("eval_gb_statements") == 2 and judge.count("eval_gb_classify") == 1
    assert QA.answer in judge.user_text("eval_gb_statements", 0)
    assert QA.reference in judge.user_text("eval_gb_statements", 1)
    assert json.dumps(["a1", "a2"]) in judge.user_text("eval_gb_classify")


def test_answer_accuracy_classification_is_few_shot() -> None:
    judge = QueueJudge(
        eval_gb_statements=[statements("a1"), statements("r1")], eval_gb_classify=[classification(1, 0, 0)]
    )
    BenchAnswerAccuracy().judged(QA, judge.tools())
    system = str(judge.calls["eval_gb_classify"][0].messages[0]["content"])
    assert "Worked case A" in system and "Worked case B" in system


def test_answer_accuracy_edge_cases() -> None:
    # both statement lists empty: F = 1 without a classification call; SS = (0.2+1)/2 = 0.6; 0.75 + 0.15 = 0.9
    judge = QueueJudge(eval_gb_statements=[statements(), statements()])
    assert BenchAnswerAccuracy().judged(QA, judge.tools(0.2)).value == pytest.approx(0.9)
    assert judge.count("eval_gb_classify") == 0
    # unusable classification (garbage, and garbage again after the client's re-ask): F = 0; SS = 1; 0.25
    judge = QueueJudge(
        eval_gb_statements=[statements("a"), statements("r")], eval_gb_classify=["not json", "still not json"]
    )
    result = BenchAnswerAccuracy().judged(QA, judge.tools(1.0))
    assert result.value == pytest.approx(0.25) and "F = 0" in result.note
    # a statement call that gets no reply at all (no rule answers): unmeasured, not 0
    tools = QueueJudge().tools()
    empty_provider = ScriptedProvider([])
    failing = MetricTools(
        similarity=tools.similarity,
        judge=create_llm_client(LLMConfig(provider="scripted", model="judge-m"), provider=empty_provider),
    )
    assert BenchAnswerAccuracy().judged(QA, failing).value is None


def test_answer_accuracy_llm_free_uses_the_benchmark_weights() -> None:
    sample = Sample(
        "Q?",
        reference="Aspirin inhibits cyclooxygenase. It reduces prostaglandin synthesis.",
        answer="Aspirin inhibits cyclooxygenase. Aspirin was first sold in 1899.",
    )
    # sentences: answer 2 (1 supported by the reference) → TP 1, FP 1; reference 2 (1 found) → FN 1
    # F = 0.5; SS = (0.8+1)/2 = 0.9; 0.75·0.5 + 0.25·0.9 = 0.375 + 0.225 = 0.6
    tools = MetricTools(similarity=lambda a, b: 0.8)
    assert BenchAnswerAccuracy().llm_free(sample, tools).value == pytest.approx(0.6, abs=1e-9)


# ---------------------------------------------------------------- coverage


@pytest.mark.parametrize(
    ("facts", "flags", "expected"),
    [
        (4, (1, 0, 1, 1), 0.75),  # 3 covered / 4 verdicts
        (2, (0, 0), 0.0),  # 0 / 2
        (3, (1, 0), 0.5),  # the judge returned 2 verdicts for 3 facts: 1 / 2, as the reference code divides
        (1, (1,), 1.0),  # 1 / 1
        (5, (1, 1, 0, 1, 0), 0.6),  # 3 / 5
    ],
)
def test_coverage_formula(facts: int, flags: tuple[int, ...], expected: float) -> None:
    judge = QueueJudge(
        eval_gb_statements=[statements(*(f"fact {i}" for i in range(facts)))],
        eval_gb_attribution=[verdicts(*flags)],
    )
    assert BenchCoverage().judged(QA, judge.tools()).value == pytest.approx(expected)
    # the facts come from the reference; the verdicts are on the answer
    assert QA.reference in judge.user_text("eval_gb_statements")
    assert QA.answer in judge.user_text("eval_gb_attribution")


def test_coverage_counts_judge_facts_not_sentences() -> None:
    """One reference sentence holding two facts: kgrag's variant asks about 1 sentence, the benchmark
    about the 2 facts the judge extracts; an answer with one of them scores 1/2 here."""
    sample = Sample(
        "What does metformin do?",
        reference="Metformin lowers hepatic glucose output and improves insulin sensitivity.",
        answer="Metformin lowers hepatic glucose output.",
    )
    judge = QueueJudge(
        eval_gb_statements=[
            statements("Metformin lowers hepatic glucose output.", "Metformin improves insulin sensitivity.")
        ],
        eval_gb_attribution=[verdicts(1, 0)],
    )
    assert BenchCoverage().judged(sample, judge.tools()).value == pytest.approx(0.5)


def test_coverage_edge_cases() -> None:
    # empty reference: 1.0, no judge call
    judge = QueueJudge()
    assert BenchCoverage().judged(Sample("Q?", " ", "anything"), judge.tools()).value == 1.0
    assert not judge.calls
    # no facts extracted: unmeasured (NaN in the benchmark)
    judge = QueueJudge(eval_gb_statements=[statements()])
    assert BenchCoverage().judged(QA, judge.tools()).value is None
    # the reference is cut to 3000 characters before fact extraction
    long = Sample("Q?", reference="x" * 2995 + " beyond TAILWORD", answer="a")
    judge = QueueJudge(eval_gb_statements=[statements("f")], eval_gb_attribution=[verdicts(1)])
    BenchCoverage().judged(long, judge.tools())
    assert "TAILWORD" not in judge.user_text("eval_gb_statements")


# ---------------------------------------------------------------- faithfulness


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ((1, 1, 0), 2 / 3),  # 2 supported / 3
        ((1, 0, 0, 0), 0.25),  # 1 / 4
        ((1,), 1.0),  # 1 / 1
        ((0, 0), 0.0),  # 0 / 2
        ((1, 1, 1, 0, 1), 0.8),  # 4 / 5
    ],
)
def test_faithfulness_formula(flags: tuple[int, ...], expected: float) -> None:
    judge = QueueJudge(
        eval_gb_statements=[statements(*(f"s{i}" for i in range(len(flags))))],
        eval_gb_attribution=[verdicts(*flags)],
    )
    assert BenchFaithfulness().judged(QA, judge.tools()).value == pytest.approx(expected)
    # the judge sees the whole retrieved context, items joined by line breaks
    assert "\n".join(QA.contexts) in judge.user_text("eval_gb_attribution")


def test_faithfulness_edge_cases() -> None:
    # empty answer: 1.0, no judge call
    judge = QueueJudge()
    assert BenchFaithfulness().judged(Sample("Q?", "r", "  ", ["c"]), judge.tools()).value == 1.0
    # statements, then nothing retrieved: 0.0 (measured)
    judge = QueueJudge(eval_gb_statements=[statements("s")])
    result = BenchFaithfulness().judged(Sample("Q?", "r", "An answer.", []), judge.tools())
    assert result.value == 0.0 and judge.count("eval_gb_attribution") == 0
    judge = QueueJudge(eval_gb_statements=[statements("s")])
    assert BenchFaithfulness().judged(Sample("Q?", "r", "An answer.", ["", " "]), judge.tools()).value == 0.0
    # a non-empty answer without statements: unmeasured (NaN in the benchmark)
    judge = QueueJudge(eval_gb_statements=[statements()])
    assert BenchFaithfulness().judged(QA, judge.tools()).value is None


# ---------------------------------------------------------------- evidence recall


@pytest.mark.parametrize(
    ("flags", "expected"),
    [((1, 0), 0.5), ((1, 1), 1.0), ((0, 0), 0.0), ((1, 1, 0), 2 / 3), ((0, 1, 1, 1), 0.75)],
)
def test_evidence_recall_formula(flags: tuple[int, ...], expected: float) -> None:
    judge = QueueJudge(eval_gb_attribution=[verdicts(*flags)])
    assert BenchEvidenceRecall().judged(QA, judge.tools()).value == pytest.approx(expected)
    assert json.dumps(QA.evidence) in judge.user_text("eval_gb_attribution")


def test_evidence_recall_edge_cases() -> None:
    # nothing retrieved: 0.0 without a judge call
    judge = QueueJudge()
    nothing = Sample(QA.question, QA.reference, QA.answer, [], QA.evidence)
    assert BenchEvidenceRecall().judged(nothing, judge.tools()).value == 0.0
    assert BenchEvidenceRecall().llm_free(nothing, judge.tools()).value == 0.0
    # no verdicts: unmeasured (NaN in the benchmark)
    judge = QueueJudge(eval_gb_attribution=[verdicts()])
    assert BenchEvidenceRecall().judged(QA, judge.tools()).value is None
    # the context is cut to 20000 characters
    long = Sample("Q?", "r", "a", ["y" * 19995 + " beyond TAILWORD"], ["e"])
    judge = QueueJudge(eval_gb_attribution=[verdicts(1)])
    BenchEvidenceRecall().judged(long, judge.tools())
    assert "TAILWORD" not in judge.user_text("eval_gb_attribution")


# ---------------------------------------------------------------- context relevance


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        (2, 1, 0.75),  # (2/2 + 1/2) / 2 = (1 + 0.5) / 2
        (0, 0, 0.0),  # (0 + 0) / 2
        (2, 2, 1.0),  # (1 + 1) / 2
        (1, 1, 0.5),  # (0.5 + 0.5) / 2
        (1.5, 0.5, 0.5),  # (0.75 + 0.25) / 2: the reference code accepts any number in [0, 2]
    ],
)
def test_context_relevance_formula(first: float, second: float, expected: float) -> None:
    judge = QueueJudge(eval_gb_context_relevance=[rating(first), rating(second)])
    assert BenchContextRelevance().judged(QA, judge.tools()).value == pytest.approx(expected)
    assert judge.count("eval_gb_context_relevance") == 2
    # one call sees the whole context, not one item
    assert "\n".join(QA.contexts) in judge.user_text("eval_gb_context_relevance")


def test_context_relevance_grades_the_whole_context() -> None:
    """Four items, one of them partly relevant: kgrag's per-item grades [1, 0, 0, 0] average to
    1/4 / 2 = 0.125; the benchmark grades the context as a whole, 1 twice → 0.5."""
    sample = Sample(
        QA.question,
        QA.reference,
        QA.answer,
        ["ACE inhibitors are used in adults.", "Hospital parking.", "Cafeteria menu.", "Visiting hours."],
    )
    judge = QueueJudge(eval_gb_context_relevance=[rating(1), rating(1)])
    assert BenchContextRelevance().judged(sample, judge.tools()).value == pytest.approx(0.5)


def test_context_relevance_edge_cases() -> None:
    judge = QueueJudge()
    tools = judge.tools()
    q = "Which drugs are first-line?"
    assert BenchContextRelevance().judged(Sample(q, "r", "a", []), tools).value == 0.0  # nothing retrieved
    assert BenchContextRelevance().judged(Sample(q, "r", "a", ["", "  "]), tools).value == 0.0  # blank items
    assert BenchContextRelevance().judged(Sample(q, "r", "a", [q]), tools).value == 0.0  # repeats the question
    assert BenchContextRelevance().judged(Sample(q, "r", "a", ["first-line"]), tools).value == 0.0  # part of it
    assert not judge.calls
    # one rating unusable (garbage, then garbage after the re-ask), the other 2 → mean of the valid: 1.0
    judge = QueueJudge(eval_gb_context_relevance=["nope", "nope", rating(2)])
    assert BenchContextRelevance().judged(QA, judge.tools()).value == pytest.approx(1.0)
    # both unusable: unmeasured
    judge = QueueJudge(eval_gb_context_relevance=["x", "x", "x", "x"])
    assert BenchContextRelevance().judged(QA, judge.tools()).value is None


# ---------------------------------------------------------------- ROUGE-L


@pytest.mark.parametrize(
    ("answer", "reference", "expected"),
    [
        ("the cat sat on the mat", "the cat sat on the mat", 1.0),  # identical
        # stems: [aspirin, inhibit, cyclooxygenas] vs [aspirin, irrevers, inhibit, cyclooxygenas, enzym]:
        # LCS 3, P = 3/3, R = 3/5, F = 2·1·0.6/1.6 = 0.75
        ("aspirin inhibits cyclooxygenase", "aspirin irreversibly inhibits cyclooxygenase enzymes", 0.75),
        # [blue, whale, eat, krill] vs [krill, eat, blue, whale]: LCS "blue whale" = 2, P = R = 2/4, F = 0.5
        ("blue whales eat krill", "krill eat blue whales", 0.5),
        ("yes", "no", 0.0),  # nothing in common
        ("", "a reference", 0.0),  # empty answer scores 0 (kgrag's variant: 0 too)
        ("an answer", "", 0.0),  # empty reference scores 0 (kgrag's variant: unmeasured)
    ],
)
def test_rouge_l_formula(answer: str, reference: str, expected: float) -> None:
    sample = Sample("Q?", reference, answer)
    tools = MetricTools(similarity=lambda a, b: 0.0)
    assert BenchRougeL().llm_free(sample, tools).value == pytest.approx(expected)
    assert BenchRougeL().judged(sample, tools).value == pytest.approx(expected)


# ---------------------------------------------------------------- question types and modes


@pytest.mark.parametrize(
    ("metric", "question_type", "scored"),
    [
        (BenchRougeL(), "Fact Retrieval", True),
        (BenchRougeL(), "Contextual Summarize", False),
        (BenchCoverage(), "Fact Retrieval", False),
        (BenchCoverage(), "Creative Generation", True),
        (BenchFaithfulness(), "Complex Reasoning", False),
        (BenchAnswerAccuracy(), "Creative Generation", True),
        (BenchContextRelevance(), "Fact Retrieval", True),
        (BenchFaithfulness(), "my own type", True),  # not one of the benchmark's four: scored
    ],
)
def test_metrics_apply_to_the_benchmark_question_types(metric: object, question_type: str, scored: bool) -> None:
    sample = Sample(QA.question, QA.reference, QA.answer, QA.contexts, QA.evidence, question_type)
    llm_free: Callable[[Sample, MetricTools], Measured] = metric.llm_free  # type: ignore[attr-defined]
    result = llm_free(sample, MetricTools(similarity=lambda a, b: 0.5))
    if scored:
        assert result.value is not None, result.note
    else:
        assert result.value is None and "does not score" in result.note


def test_judged_mode_without_a_judge_is_unmeasured() -> None:
    assert measure(BenchCoverage(), QA, MetricTools(similarity=lambda a, b: 0.0), "llm").value is None
