"""Answer metrics of GraphRAG-Bench as kgrag computes them (feldt-hellstrom-2026, Section 3.8):
ROUGE-L, answer accuracy, coverage and faithfulness, each LLM-free and LLM-judged.

The LLM-free versions replace the judge's statement extraction with sentences and its "supported"
verdict with content-word overlap (:mod:`kgrag.evaluation.metrics.statements`); the formulas on top are
the same, so the two columns of a report differ only in who decided what a statement says.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from kgrag.evaluation.judges.call import ask, numbered
from kgrag.evaluation.judges.schemas import AccuracyClassification, StatementVerdicts
from kgrag.evaluation.metrics.base import NOTHING_RETRIEVED, Measured, MetricTools, Sample, retrieved
from kgrag.evaluation.metrics.settings import AnswerAccuracySettings
from kgrag.evaluation.metrics.statements import f1, statements, supported

FELDT = "feldt-hellstrom-2026"


@cache
def _rouge_scorer() -> Any:
    from rouge_score import rouge_scorer  # heavy-ish (nltk); loaded on first use

    return rouge_scorer.RougeScorer(["rougeL"], use_stemmer=True)


def rouge_l(candidate: str, reference: str) -> float:
    """ROUGE-L F-measure (longest common subsequence) with Porter stemming, via ``rouge-score``."""
    return float(_rouge_scorer().score(reference, candidate)["rougeL"].fmeasure)


def _judge_failed(reply_note: str, tokens: int) -> Measured:
    return Measured.unmeasured(reply_note, tokens)


class RougeL:
    """Lexical overlap with the reference. Deterministic by nature: the judged version is the same."""

    name = "rouge-l"
    paper = FELDT

    def llm_free(self, sample: Sample, tools: MetricTools) -> Measured:
        if not sample.reference.strip():
            return Measured.unmeasured("no reference answer")
        if not sample.answer.strip():
            return Measured(0.0, "empty answer")
        return Measured(rouge_l(sample.answer, sample.reference))

    def judged(self, sample: Sample, tools: MetricTools) -> Measured:
        return self.llm_free(sample, tools)


class AnswerAccuracy:
    """Acc = α·F1 + (1 − α)·SS, F1 = 2TP / (2TP + FP + FN) over statements, SS = cosine similarity of
    answer and reference embeddings, α = ``[evaluation.metrics.answer-accuracy] weight`` (0.5,
    feldt-hellstrom-2026 eq. 3.2)."""

    name = "answer-accuracy"
    paper = FELDT

    def _blend(self, score: float | None, sample: Sample, tools: MetricTools, tokens: int = 0) -> Measured:
        similarity = max(0.0, min(1.0, tools.similarity(sample.answer, sample.reference)))
        weight = tools.settings_for(self.name, AnswerAccuracySettings).weight
        if score is None:
            return Measured(similarity * (1 - weight), "no statements; similarity part only", tokens)
        return Measured(weight * score + (1 - weight) * similarity, "", tokens)

    def llm_free(self, sample: Sample, tools: MetricTools) -> Measured:
        if not sample.reference.strip():
            return Measured.unmeasured("no reference answer")
        claims, truths = statements(sample.answer), statements(sample.reference)
        hits = supported(claims, [sample.reference], tools.evidence_overlap)
        found = supported(truths, [sample.answer], tools.evidence_overlap)
        return self._blend(f1(sum(hits), len(hits) - sum(hits), len(found) - sum(found)), sample, tools)

    def judged(self, sample: Sample, tools: MetricTools) -> Measured:
        if not sample.reference.strip():
            return Measured.unmeasured("no reference answer")
        assert tools.judge is not None
        reply = ask(
            tools.judge,
            "eval_answer_accuracy",
            {"question": sample.question, "answer": sample.answer, "reference": sample.reference},
            AccuracyClassification,
            stage="eval.metric.accuracy",
            temperature=tools.temperature,
            seed=tools.seed,
        )
        if reply.value is None:
            return _judge_failed(reply.note, reply.tokens)
        v = reply.value
        score = f1(len(v.true_positives), len(v.false_positives), len(v.false_negatives))
        if score is None:
            return Measured.unmeasured("judge classified no statements", reply.tokens)
        return self._blend(score, sample, tools, reply.tokens)


def _share(flags: list[bool]) -> float:
    return sum(flags) / len(flags)


def _verdicts(tools: MetricTools, prompt: str, variables: dict[str, object], expected: int, stage: str) -> Measured:
    """Ask for one verdict per statement; a reply with the wrong number of verdicts is unmeasured."""
    assert tools.judge is not None
    reply = ask(
        tools.judge, prompt, variables, StatementVerdicts, stage=stage, temperature=tools.temperature, seed=tools.seed
    )
    if reply.value is None:
        return _judge_failed(reply.note, reply.tokens)
    flags = [v.supported for v in reply.value.verdicts]
    if expected and len(flags) != expected:
        return Measured.unmeasured(f"judge gave {len(flags)} verdicts for {expected} statements", reply.tokens)
    if not flags:
        return Measured.unmeasured("judge found no statements", reply.tokens)
    return Measured(_share(flags), "", reply.tokens)


class Coverage:
    """Cov = covered reference statements / reference statements (feldt-hellstrom-2026 eq. 3.3)."""

    name = "coverage"
    paper = FELDT

    def llm_free(self, sample: Sample, tools: MetricTools) -> Measured:
        truths = statements(sample.reference)
        if not truths:
            return Measured.unmeasured("no reference statements")
        return Measured(_share(supported(truths, [sample.answer], tools.evidence_overlap)))

    def judged(self, sample: Sample, tools: MetricTools) -> Measured:
        truths = statements(sample.reference)
        if not truths:
            return Measured.unmeasured("no reference statements")
        variables: dict[str, object] = {
            "question": sample.question,
            "answer": sample.answer,
            "statements": numbered(truths, "Statement"),
        }
        return _verdicts(tools, "eval_coverage", variables, len(truths), "eval.metric.coverage")


class Faithfulness:
    """FS = answer statements supported by the retrieved context / answer statements
    (feldt-hellstrom-2026 eq. 3.4). An extractive answer copies context sentences, so it scores ~1 by
    construction: compare faithfulness between LLM answers, not between an LLM and the extractive path."""

    name = "faithfulness"
    paper = FELDT

    def llm_free(self, sample: Sample, tools: MetricTools) -> Measured:
        claims = statements(sample.answer)
        if not claims:
            return Measured.unmeasured("the answer makes no statements")
        if not retrieved(sample):
            return NOTHING_RETRIEVED
        return Measured(_share(supported(claims, sample.contexts, tools.evidence_overlap)))

    def judged(self, sample: Sample, tools: MetricTools) -> Measured:
        if not statements(sample.answer):
            return Measured.unmeasured("the answer makes no statements")
        if not retrieved(sample):
            return NOTHING_RETRIEVED
        variables: dict[str, object] = {
            "question": sample.question,
            "answer": sample.answer,
            "context": numbered(sample.contexts, "Context"),
        }
        return _verdicts(tools, "eval_faithfulness", variables, 0, "eval.metric.faithfulness")
