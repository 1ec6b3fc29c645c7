"""`kgrag eval retrieval`: evidence recall per pipeline and question type at the same context budget, plus
what each pipeline handed over (items, passages, tokens) and its query latency.

Every pipeline fills one context budget (``retrieval.context_tokens``): a passage pipeline with up to k
passages, a graph pipeline with up to k passages and entity, relation and path descriptions, so "recall"
here is recall at that budget, not over k items. The report itself (JSON, markdown, plot) is written by
:mod:`kgrag.evaluation.retrieval_report`.
"""

from __future__ import annotations

import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypedDict

from kgrag.core.context import RetrievalResult
from kgrag.documents import TokenCounter
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.evidence_check import EvidenceCheck
from kgrag.evaluation.generated_caveats import generated_caveats
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.retrieval_stats import RetrievalStatistics, retrieval_statistics
from kgrag.evaluation.stats.intervals import Bootstrap

Retriever = Callable[[str, str, int], RetrievalResult]


class OutcomeRow(TypedDict):
    """One question through one pipeline in ``retrieval_eval.json``."""

    id: str
    question_type: str
    pipeline: str
    recall: float | None
    latency_ms: float
    retrieved: list[str]
    chunk_recall: float | None
    context_tokens: int
    passages: int


Handed = Literal["items", "passages"]


@dataclass
class QuestionOutcome:
    """One question through one pipeline.

    ``recall`` counts everything the generator would see (chunks plus entity/relation/report texts);
    ``chunk_recall`` only the retrieved passages. Graph pipelines hand over entity, relation and path
    descriptions beside their passages within the same context budget, so they hand over more items:
    ``retrieved`` lists every item, ``passages`` counts the passages among them and ``context_tokens``
    says how much of the budget was spent.
    """

    id: str
    question_type: str
    pipeline: str
    recall: float | None
    latency_ms: float
    retrieved: list[str]
    chunk_recall: float | None = None
    context_tokens: int = 0
    passages: int = 0

    def row(self) -> OutcomeRow:
        """The outcome as the report's JSON keeps it (the fields in order)."""
        return {
            "id": self.id,
            "question_type": self.question_type,
            "pipeline": self.pipeline,
            "recall": self.recall,
            "latency_ms": self.latency_ms,
            "retrieved": list(self.retrieved),
            "chunk_recall": self.chunk_recall,
            "context_tokens": self.context_tokens,
            "passages": self.passages,
        }


@dataclass
class RetrievalEvalReport:
    """Per-question outcomes and the summary table derived from them; ``budgets``: each pipeline's context
    budget in tokens (empty when the caller did not say)."""

    k: int
    threshold: float
    pipelines: list[str]
    outcomes: list[QuestionOutcome] = field(default_factory=list)
    baseline: str | None = None
    settings: Bootstrap = field(default_factory=Bootstrap)
    query_embedding_ms: list[float] = field(default_factory=list)
    budgets: dict[str, int] = field(default_factory=dict)
    evidence: EvidenceCheck | None = None
    """What the questions' evidence lets the report measure (:mod:`kgrag.evaluation.evidence_check`)."""

    def statistics(self) -> RetrievalStatistics:
        """Intervals, paired differences against the baseline and verdicts (``retrieval_stats``)."""
        return retrieval_statistics(self, self.baseline, self.settings)

    def caveats(self) -> list[str]:
        """What the reader must know about the questions (:mod:`kgrag.evaluation.generated_caveats`)."""
        return generated_caveats((o.id, o.question_type, o.pipeline, o.recall) for o in self.outcomes)

    def table(self, metric: str = "recall") -> dict[str, dict[str, float]]:
        """pipeline → question type (and "All") → mean ``metric`` (``recall`` or ``chunk_recall``) over
        questions with evidence."""
        sums: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        for o in self.outcomes:
            value = getattr(o, metric)
            if value is not None:
                sums[o.pipeline][o.question_type].append(value)
                sums[o.pipeline]["All"].append(value)
        return {p: {t: statistics.fmean(v) for t, v in sorted(types.items())} for p, types in sums.items()}

    def _per_pipeline(self, value: Callable[[QuestionOutcome], float]) -> dict[str, list[float]]:
        """pipeline → ``value`` of each of its outcomes, in question order."""
        by_pipeline: dict[str, list[float]] = defaultdict(list)
        for o in self.outcomes:
            by_pipeline[o.pipeline].append(value(o))
        return by_pipeline

    def mean_context_tokens(self) -> dict[str, float]:
        return {p: statistics.fmean(v) for p, v in self._per_pipeline(lambda o: o.context_tokens).items()}

    def handed_over(self, what: Handed = "items") -> dict[str, dict[str, float]]:
        """pipeline → ``mean``, ``min`` and ``max`` of the items (or of the passages among them) it handed
        over per question: the same budget holds more, shorter items from a graph pipeline."""
        count = (lambda o: len(o.retrieved)) if what == "items" else (lambda o: o.passages)
        by_pipeline = self._per_pipeline(count)
        return {p: {"mean": statistics.fmean(v), "min": min(v), "max": max(v)} for p, v in by_pipeline.items()}

    def latency(self) -> dict[str, dict[str, float]]:
        by_pipeline = self._per_pipeline(lambda o: o.latency_ms)
        return {p: {"p50": percentile(v, 50), "p95": percentile(v, 95)} for p, v in by_pipeline.items()}

    def embedding_latency(self) -> dict[str, float]:
        """p50 and p95 of the question embeddings made before the pipelines (empty when none was)."""
        made = self.query_embedding_ms
        return {"p50": percentile(made, 50), "p95": percentile(made, 95)} if made else {}

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = defaultdict(int)
        for o in self.outcomes:
            if o.pipeline == self.pipelines[0] and o.recall is not None:
                counts[o.question_type] += 1
                counts["All"] += 1
        return dict(counts)


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (0 for no values); used by reports and benchmarks."""
    ordered = sorted(values)
    if not ordered:
        return 0.0
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def evaluate_retrieval(
    items: Sequence[QAItem],
    pipelines: Sequence[str],
    k: int,
    threshold: float,
    retrieve: Retriever,
    on_question: Callable[[], None] | None = None,
    prepare: Callable[[str], float | None] | None = None,
    budgets: Mapping[str, int] | None = None,
) -> RetrievalEvalReport:
    """Run every question through every pipeline and score the evidence recall of what it hands over (up
    to ``k`` passages, plus graph items, within each pipeline's context budget, ``budgets``).

    The pipelines share what one of them computes for a question (its embedding above all, a model
    call), so whichever ran first would be timed with it. ``prepare`` makes those shared parts before
    any pipeline runs and returns its milliseconds (None when it made nothing), reported apart; the
    order of the pipelines also turns by one each question, so no pipeline is always first."""
    report = RetrievalEvalReport(k=k, threshold=threshold, pipelines=list(pipelines), budgets=dict(budgets or {}))
    counter = TokenCounter.for_encoding()
    for number, item in enumerate(items):
        if prepare is not None and (spent := prepare(item.question)) is not None:
            report.query_embedding_ms.append(round(spent, 3))
        turn = number % max(len(pipelines), 1)
        for pipeline in [*pipelines[turn:], *pipelines[:turn]]:
            started = time.perf_counter()
            result = retrieve(item.question, pipeline, k)
            latency = (time.perf_counter() - started) * 1000
            texts = [i.text for i in result.items]
            chunk_texts = [i.text for i in result.items if i.kind == "chunk"]
            report.outcomes.append(
                QuestionOutcome(
                    id=item.id,
                    question_type=item.question_type,
                    pipeline=pipeline,
                    recall=evidence_recall(item.evidence, texts, threshold),
                    latency_ms=round(latency, 3),
                    retrieved=[i.id for i in result.items],
                    chunk_recall=evidence_recall(item.evidence, chunk_texts, threshold),
                    context_tokens=sum(counter.count(t) for t in texts),
                    passages=len(chunk_texts),
                )
            )
        if on_question is not None:
            on_question()
    return report
