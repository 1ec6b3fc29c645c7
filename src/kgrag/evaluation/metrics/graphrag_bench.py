"""The ``graphrag-bench`` metric profile: GraphRAG-Bench's own metric procedures (graphrag-bench),
reimplemented from the formulas and edge cases of the benchmark's published evaluation code, so that a
kgrag run can be set next to the benchmark's leaderboard.

Each metric is a registry entry named ``<metric>@graphrag-bench`` beside kgrag's own variant of the same
name without the suffix; ``evaluation.metric_profile = "graphrag-bench"`` swaps the plain names for these
(:mod:`kgrag.evaluation.metrics.profiles`). What differs from kgrag's variants, and by how much, is the
table in docs/evaluation.md. In short:

- answer accuracy = 0.75·F + 0.25·(cos + 1)/2, F the statement F-score with the reference code's
  1e-10 guards, from three judge calls: statements of the answer, statements of the reference, and a
  classification with two worked cases; an unusable classification scores F = 0, both statement lists
  empty score F = 1;
- coverage extracts facts from the reference with the judge (not kgrag's sentences) and counts the
  verdicts the judge returned; an empty reference scores 1;
- faithfulness: an empty answer scores 1, no retrieved text 0;
- context relevance grades the whole retrieved context at once (not each item), twice, and scores 0 when
  nothing was retrieved or the context only repeats the question;
- evidence recall: no retrieved text scores 0;
- ROUGE-L scores 0 for an empty answer or reference;
- like the benchmark's generation script, each answer metric applies to some question types only
  (:data:`APPLIES_TO`); on another of the benchmark's four types it is unmeasured, with that reason.

The LLM-free versions keep these formulas and edge cases and replace the judge's statements and verdicts
with kgrag's sentence split and content-word support (:mod:`kgrag.evaluation.metrics.statements`). The
inputs are cut to the reference code's lengths (:data:`LIMITS`). A judge call that gets no reply is
unmeasured, as the benchmark drops a sample whose evaluation raised.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass

from kgrag.documents.words import content_words
from kgrag.evaluation.judges.call import ask
from kgrag.evaluation.judges.schemas import AccuracyClassification, ContextScore, StatementList, StatementVerdicts
from kgrag.evaluation.metrics.answer import rouge_l
from kgrag.evaluation.metrics.base import Measured, MetricTools, Sample
from kgrag.evaluation.metrics.retrieval import lexical_grade
from kgrag.evaluation.metrics.statements import statements, supported

GRAPHRAG_BENCH = "graphrag-bench"
FACT_WEIGHT = 0.75
SIMILARITY_WEIGHT = 0.25
GUARD = 1e-10
RELEVANCE_RATINGS = 2

FACT_RETRIEVAL = "Fact Retrieval"
COMPLEX_REASONING = "Complex Reasoning"
CONTEXTUAL_SUMMARIZE = "Contextual Summarize"
CREATIVE_GENERATION = "Creative Generation"
BENCH_TYPES = (FACT_RETRIEVAL, COMPLEX_REASONING, CONTEXTUAL_SUMMARIZE, CREATIVE_GENERATION)

APPLIES_TO: dict[str, tuple[str, ...]] = {
    "rouge-l": (FACT_RETRIEVAL, COMPLEX_REASONING),
    "answer-accuracy": BENCH_TYPES,
    "coverage": (CONTEXTUAL_SUMMARIZE, CREATIVE_GENERATION),
    "faithfulness": (CREATIVE_GENERATION,),
    "evidence-recall": BENCH_TYPES,
    "context-relevance": BENCH_TYPES,
}
"""Question types each metric is scored on (the benchmark's generation script; retrieval metrics: all)."""

LIMITS = {
    "coverage_text": 3000,
    "faithfulness_question": 500,
    "faithfulness_answer": 3000,
    "faithfulness_context": 10000,
    "faithfulness_statements": 5000,
    "retrieval_context": 20000,
}
"""Characters of each input the reference code passes on (longer inputs are cut)."""


def fbeta(tp: int, fp: int, fn: int, beta: float = 1.0) -> float:
    """The F-score as the benchmark computes it: precision and recall with a 1e-10 guard in each
    denominator, so no statements at all gives 0 rather than an error."""
    precision = tp / (tp + fp + GUARD)
    recall = tp / (tp + fn + GUARD)
    return (1 + beta**2) * precision * recall / (beta**2 * precision + recall + GUARD)


def scaled_similarity(cosine: float) -> float:
    """Cosine similarity mapped from [-1, 1] to [0, 1] as (cos + 1) / 2."""
    return (cosine + 1) / 2


def joined(contexts: list[str]) -> str:
    """The retrieved items as the benchmark's judge sees them: one text, items separated by line breaks."""
    return "\n".join(contexts)


def _verdict_share(flags: list[bool]) -> float:
    return sum(flags) / len(flags)


@dataclass(frozen=True)
class _Step:
    """One judge step: its result (None: the step failed, ``note`` says why) and the tokens it used."""

    value: list[str] | list[bool] | None
    note: str
    tokens: int


def _statements(tools: MetricTools, question: str, text: str, stage: str) -> _Step:
    assert tools.judge is not None
    reply = ask(
        tools.judge,
        "eval_gb_statements",
        {"question": question, "text": text},
        StatementList,
        stage=stage,
        temperature=tools.temperature,
        seed=tools.seed,
    )
    if reply.value is None:
        return _Step(None, reply.note, reply.tokens)
    return _Step([s for s in reply.value.statements if s.strip()], "", reply.tokens)


def _attribution(tools: MetricTools, question: str, listed: str, text: str, stage: str) -> _Step:
    """One verdict per statement; the score divides by the verdicts returned, as the reference code does."""
    assert tools.judge is not None
    reply = ask(
        tools.judge,
        "eval_gb_attribution",
        {"question": question, "statements": listed, "text": text},
        StatementVerdicts,
        stage=stage,
        temperature=tools.temperature,
        seed=tools.seed,
    )
    if reply.value is None:
        return _Step(None, reply.note, reply.tokens)
    flags = [v.supported for v in reply.value.verdicts]
    return _Step(flags or None, "" if flags else "judge gave no verdicts", reply.tokens)


def _scored(step: _Step, tokens: int) -> Measured:
    if step.value is None:
        return Measured.unmeasured(step.note, tokens + step.tokens)
    flags = [bool(v) for v in step.value]
    return Measured(_verdict_share(flags), "", tokens + step.tokens)


class _BenchMetric:
    """Shared shape: the question-type rule first, then the metric's own LLM-free or judged procedure."""

    name: str = ""
    paper = GRAPHRAG_BENCH
    prompts: tuple[str, ...] = ()

    @property
    def base(self) -> str:
        """kgrag's name of the same metric (the registry name without ``@graphrag-bench``)."""
        return self.name.split("@")[0]

    def _not_scored(self, sample: Sample) -> Measured | None:
        wanted = sample.question_type.strip().lower()
        for kind in BENCH_TYPES:
            if kind.lower() == wanted and kind not in APPLIES_TO[self.base]:
                return Measured.unmeasured(f"GraphRAG-Bench does not score {self.base} on {kind} questions")
        return None

    def llm_free(self, sample: Sample, tools: MetricTools) -> Measured:
        return self._not_scored(sample) or self._free(sample, tools)

    def judged(self, sample: Sample, tools: MetricTools) -> Measured:
        return self._not_scored(sample) or self._judged(sample, tools)

    def _free(self, sample: Sample, tools: MetricTools) -> Measured:
        raise NotImplementedError

    def _judged(self, sample: Sample, tools: MetricTools) -> Measured:
        raise NotImplementedError


class BenchRougeL(_BenchMetric):
    """ROUGE-L F-measure with stemming; 0 when the answer or the reference is empty."""

    name = "rouge-l@graphrag-bench"

    def _free(self, sample: Sample, tools: MetricTools) -> Measured:
        if not sample.reference.strip() or not sample.answer.strip():
            return Measured(0.0, "empty answer or reference")
        return Measured(rouge_l(sample.answer, sample.reference))

    def _judged(self, sample: Sample, tools: MetricTools) -> Measured:
        return self._free(sample, tools)


class BenchAnswerAccuracy(_BenchMetric):
    """0.75·F + 0.25·(cos + 1)/2 over judge-extracted statements (three judge calls)."""

    name = "answer-accuracy@graphrag-bench"
    prompts = ("eval_gb_statements", "eval_gb_classify")

    def _combine(self, factuality: float, sample: Sample, tools: MetricTools, note: str, tokens: int) -> Measured:
        similarity = scaled_similarity(tools.similarity(sample.answer, sample.reference))
        return Measured(FACT_WEIGHT * factuality + SIMILARITY_WEIGHT * similarity, note, tokens)

    def _free(self, sample: Sample, tools: MetricTools) -> Measured:
        claims, truths = statements(sample.answer), statements(sample.reference)
        if not claims and not truths:
            return self._combine(1.0, sample, tools, "no statements on either side: F = 1", 0)
        hits = supported(claims, [sample.reference], tools.evidence_overlap)
        found = supported(truths, [sample.answer], tools.evidence_overlap)
        tp, fp, fn = sum(hits), len(hits) - sum(hits), len(found) - sum(found)
        return self._combine(fbeta(tp, fp, fn), sample, tools, "", 0)

    def _judged(self, sample: Sample, tools: MetricTools) -> Measured:
        stage = "eval.metric.accuracy_bench"
        claims = _statements(tools, sample.question, sample.answer, stage)
        truths = _statements(tools, sample.question, sample.reference, stage)
        tokens = claims.tokens + truths.tokens
        if claims.value is None or truths.value is None:
            return Measured.unmeasured(claims.note or truths.note, tokens)
        answer_statements = [str(s) for s in claims.value]
        truth_statements = [str(s) for s in truths.value]
        if not answer_statements and not truth_statements:
            return self._combine(1.0, sample, tools, "no statements on either side: F = 1", tokens)
        assert tools.judge is not None
        reply = ask(
            tools.judge,
            "eval_gb_classify",
            {
                "question": sample.question,
                "answer": json.dumps(answer_statements),
                "reference": json.dumps(truth_statements),
            },
            AccuracyClassification,
            stage=stage,
            temperature=tools.temperature,
            seed=tools.seed,
        )
        tokens += reply.tokens
        if reply.call_failed:
            return Measured.unmeasured(reply.note, tokens)
        if reply.value is None:
            return self._combine(0.0, sample, tools, f"{reply.note}; F = 0 as in GraphRAG-Bench", tokens)
        v = reply.value
        factuality = fbeta(len(v.true_positives), len(v.false_positives), len(v.false_negatives))
        return self._combine(factuality, sample, tools, "", tokens)


class BenchCoverage(_BenchMetric):
    """Reference facts (judge-extracted) covered by the answer / facts the judge gave verdicts on."""

    name = "coverage@graphrag-bench"
    prompts = ("eval_gb_statements", "eval_gb_attribution")

    def _free(self, sample: Sample, tools: MetricTools) -> Measured:
        if not sample.reference.strip():
            return Measured(1.0, "empty reference: full coverage")
        facts = statements(sample.reference[: LIMITS["coverage_text"]])
        if not facts:
            return Measured.unmeasured("no facts in the reference")
        answer = sample.answer[: LIMITS["coverage_text"]]
        return Measured(_verdict_share(supported(facts, [answer], tools.evidence_overlap)))

    def _judged(self, sample: Sample, tools: MetricTools) -> Measured:
        if not sample.reference.strip():
            return Measured(1.0, "empty reference: full coverage")
        cut = LIMITS["coverage_text"]
        facts = _statements(tools, sample.question, sample.reference[:cut], "eval.metric.coverage_bench")
        if not facts.value:
            return Measured.unmeasured(facts.note or "judge found no facts in the reference", facts.tokens)
        listed = json.dumps([str(f) for f in facts.value])
        step = _attribution(tools, sample.question, listed, sample.answer[:cut], "eval.metric.coverage_bench")
        return _scored(step, facts.tokens)


class BenchFaithfulness(_BenchMetric):
    """Answer statements the retrieved text supports / verdicts; empty answer 1, nothing retrieved 0."""

    name = "faithfulness@graphrag-bench"
    prompts = ("eval_gb_statements", "eval_gb_attribution")

    def _free(self, sample: Sample, tools: MetricTools) -> Measured:
        if not sample.answer.strip():
            return Measured(1.0, "empty answer")
        claims = statements(sample.answer[: LIMITS["faithfulness_answer"]])
        if not claims:
            return Measured.unmeasured("the answer makes no statements")
        context = joined(sample.contexts)
        if not context.strip():
            return Measured(0.0, "nothing retrieved")
        parts = [context[: LIMITS["faithfulness_context"]]]
        return Measured(_verdict_share(supported(claims, parts, tools.evidence_overlap)))

    def _judged(self, sample: Sample, tools: MetricTools) -> Measured:
        if not sample.answer.strip():
            return Measured(1.0, "empty answer")
        stage = "eval.metric.faithfulness_bench"
        question = sample.question[: LIMITS["faithfulness_question"]]
        claims = _statements(tools, question, sample.answer[: LIMITS["faithfulness_answer"]], stage)
        if not claims.value:
            return Measured.unmeasured(claims.note or "judge found no statements in the answer", claims.tokens)
        context = joined(sample.contexts)
        if not context.strip():
            return Measured(0.0, "nothing retrieved", claims.tokens)
        listed = json.dumps([str(c) for c in claims.value])[: LIMITS["faithfulness_statements"]]
        step = _attribution(tools, "(not given)", listed, context[: LIMITS["faithfulness_context"]], stage)
        return _scored(step, claims.tokens)


class BenchEvidenceRecall(_BenchMetric):
    """Evidence statements attributed to the retrieved text / verdicts; nothing retrieved scores 0."""

    name = "evidence-recall@graphrag-bench"
    prompts = ("eval_gb_attribution",)

    def _free(self, sample: Sample, tools: MetricTools) -> Measured:
        context = joined(sample.contexts)
        if not context.strip():
            return Measured(0.0, "nothing retrieved")
        evidence = [e for e in sample.evidence if content_words(e)]
        if not evidence:
            return Measured.unmeasured("the question has no evidence")
        parts = [context[: LIMITS["retrieval_context"]]]
        return Measured(_verdict_share(supported(evidence, parts, tools.evidence_overlap)))

    def _judged(self, sample: Sample, tools: MetricTools) -> Measured:
        context = joined(sample.contexts)
        if not context.strip():
            return Measured(0.0, "nothing retrieved")
        if not any(e.strip() for e in sample.evidence):
            return Measured.unmeasured("the question has no evidence")
        listed = json.dumps(sample.evidence)
        text = context[: LIMITS["retrieval_context"]]
        return _scored(_attribution(tools, sample.question, listed, text, "eval.metric.evidence_recall_bench"), 0)


class BenchContextRelevance(_BenchMetric):
    """One 0-2 grade of the whole retrieved context, asked twice, halved and averaged; 0 when nothing was
    retrieved or the context merely repeats the question."""

    name = "context-relevance@graphrag-bench"
    prompts = ("eval_gb_context_relevance",)

    @staticmethod
    def _trivial(sample: Sample) -> Measured | None:
        if not any(c.strip() for c in sample.contexts):
            return Measured(0.0, "nothing retrieved")
        if not sample.question.strip():
            return Measured(0.0, "empty question")
        context = joined(sample.contexts).strip()
        if context == sample.question.strip() or context in sample.question:
            return Measured(0.0, "the context only repeats the question")
        return None

    def _free(self, sample: Sample, tools: MetricTools) -> Measured:
        if (trivial := self._trivial(sample)) is not None:
            return trivial
        words = content_words(sample.question)
        if not words:
            return Measured.unmeasured("question has no content words")
        return Measured(lexical_grade(words, joined(sample.contexts)[: LIMITS["retrieval_context"]]) / 2)

    def _judged(self, sample: Sample, tools: MetricTools) -> Measured:
        if (trivial := self._trivial(sample)) is not None:
            return trivial
        assert tools.judge is not None
        variables = {"question": sample.question, "context": joined(sample.contexts)[: LIMITS["retrieval_context"]]}
        ratings: list[float] = []
        notes: list[str] = []
        tokens = 0
        for repeat in range(RELEVANCE_RATINGS):
            reply = ask(
                tools.judge,
                "eval_gb_context_relevance",
                variables,
                ContextScore,
                stage="eval.metric.context_relevance_bench",
                temperature=tools.temperature,
                seed=tools.seed * 100 + repeat,
            )
            tokens += reply.tokens
            if reply.value is None:
                notes.append(reply.note)
                continue
            ratings.append(reply.value.score / 2)
        if not ratings:
            return Measured.unmeasured("; ".join(notes), tokens)
        return Measured(statistics.fmean(ratings), "; ".join(notes), tokens)
