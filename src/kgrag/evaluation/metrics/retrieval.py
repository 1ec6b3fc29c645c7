"""Retrieval metrics of GraphRAG-Bench (feldt-hellstrom-2026, Section 3.8): evidence recall and
context relevance, LLM-free and LLM-judged."""

from __future__ import annotations

import statistics

from kgrag.documents.words import content_words
from kgrag.evaluation.judges.call import ask, numbered
from kgrag.evaluation.judges.schemas import ContextRelevance as RelevanceReply
from kgrag.evaluation.metrics.answer import FELDT, _verdicts
from kgrag.evaluation.metrics.base import NOTHING_RETRIEVED, Measured, MetricTools, Sample, retrieved
from kgrag.evaluation.metrics.settings import ContextRelevanceSettings
from kgrag.evaluation.recall import evidence_recall


class EvidenceRecall:
    """Share of the question's evidence sentences found in the retrieved context (recall@k)."""

    name = "evidence-recall"
    paper = FELDT

    def llm_free(self, sample: Sample, tools: MetricTools) -> Measured:
        value = evidence_recall(sample.evidence, sample.contexts, tools.evidence_overlap)
        return Measured.unmeasured("the question has no evidence") if value is None else Measured(value)

    def judged(self, sample: Sample, tools: MetricTools) -> Measured:
        evidence = [e for e in sample.evidence if content_words(e)]
        if not evidence:
            return Measured.unmeasured("the question has no evidence")
        if not retrieved(sample):
            return NOTHING_RETRIEVED
        variables: dict[str, object] = {
            "statements": numbered(evidence, "Statement"),
            "context": numbered(sample.contexts, "Context"),
        }
        return _verdicts(tools, "eval_evidence_recall", variables, len(evidence), "eval.metric.evidence_recall")


def lexical_grade(question_words: set[str], text: str) -> int:
    """0 (no question word in the item), 1 (some), 2 (at least half of them): the judge's 0/1/2 scale."""
    shared = len(question_words & content_words(text))
    if shared == 0:
        return 0
    return 2 if shared * 2 >= len(question_words) else 1


class ContextRelevance:
    """Mean over retrieved items of a 0/1/2 relevance grade, normalised to [0, 1]; the judged version
    grades ``[evaluation.metrics.context-relevance] repeats`` times (2, feldt-hellstrom-2026) and averages.
    Nothing retrieved scores 0."""

    name = "context-relevance"
    paper = FELDT

    def llm_free(self, sample: Sample, tools: MetricTools) -> Measured:
        if not retrieved(sample):
            return NOTHING_RETRIEVED
        words = content_words(sample.question)
        if not words:
            return Measured.unmeasured("question has no content words")
        return Measured(statistics.fmean(lexical_grade(words, t) for t in sample.contexts) / 2)

    def judged(self, sample: Sample, tools: MetricTools) -> Measured:
        if not retrieved(sample):
            return NOTHING_RETRIEVED
        assert tools.judge is not None
        means: list[float] = []
        tokens, notes = 0, []
        for repeat in range(max(1, tools.settings_for(self.name, ContextRelevanceSettings).repeats)):
            reply = ask(
                tools.judge,
                "eval_context_relevance",
                {"question": sample.question, "context": numbered(sample.contexts, "Item")},
                RelevanceReply,
                stage="eval.metric.context_relevance",
                temperature=tools.temperature,
                seed=tools.seed * 100 + repeat,
            )
            tokens += reply.tokens
            scores = reply.value.scores if reply.value is not None else []
            if reply.value is None or len(scores) != len(sample.contexts) or any(s not in (0, 1, 2) for s in scores):
                notes.append(reply.note or f"judge gave {len(scores)} grades in 0-2 for {len(sample.contexts)} items")
                continue
            means.append(statistics.fmean(scores) / 2)
        if not means:
            return Measured.unmeasured("; ".join(notes), tokens)
        return Measured(statistics.fmean(means), "; ".join(notes), tokens)
