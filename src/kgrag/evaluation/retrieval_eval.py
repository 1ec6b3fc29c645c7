"""`kgrag eval retrieval`: evidence recall@k per pipeline and question type, plus query latency.

Writes ``retrieval_eval.json`` (every question's numbers, for re-analysis), ``retrieval_eval.md`` (the
table people read) and ``retrieval_eval.png`` (recall against context tokens and latency per pipeline).
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from kgrag.core.context import RetrievalResult
from kgrag.core.errors import KgragError
from kgrag.documents import TokenCounter
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.evidence_check import EvidenceCheck, EvidenceCheckPayload
from kgrag.evaluation.generated_caveats import caveat_lines, generated_caveats
from kgrag.evaluation.plots import Point, quality_vs_cost
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.retrieval_stats import RetrievalStatistics, render_statistics, retrieval_statistics
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


class RetrievalReportPayload(TypedDict):
    """``retrieval_eval.json``: the tables, the costs, the statistics and every outcome."""

    dataset: str
    k: int
    threshold: float
    summary: dict[str, dict[str, float]]
    summary_chunks_only: dict[str, dict[str, float]]
    mean_context_tokens: dict[str, float]
    latency_ms: dict[str, dict[str, float]]
    query_embedding_ms: dict[str, float]
    counts: dict[str, int]
    caveats: list[str]
    evidence_check: EvidenceCheckPayload | None
    statistics: RetrievalStatistics
    outcomes: list[OutcomeRow]


@dataclass
class QuestionOutcome:
    """One question through one pipeline.

    ``recall`` counts everything the generator would see (chunks plus entity/relation/report texts);
    ``chunk_recall`` only the retrieved passages. Graph pipelines return extra descriptions on top of k
    chunks, so comparing ``recall`` alone would reward longer context: ``context_tokens`` shows how much
    each pipeline hands over.
    """

    id: str
    question_type: str
    pipeline: str
    recall: float | None
    latency_ms: float
    retrieved: list[str]
    chunk_recall: float | None = None
    context_tokens: int = 0

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
        }


@dataclass
class RetrievalEvalReport:
    """Per-question outcomes and the summary table derived from them."""

    k: int
    threshold: float
    pipelines: list[str]
    outcomes: list[QuestionOutcome] = field(default_factory=list)
    baseline: str | None = None
    settings: Bootstrap = field(default_factory=Bootstrap)
    query_embedding_ms: list[float] = field(default_factory=list)
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

    def mean_context_tokens(self) -> dict[str, float]:
        by_pipeline: dict[str, list[int]] = defaultdict(list)
        for o in self.outcomes:
            by_pipeline[o.pipeline].append(o.context_tokens)
        return {p: statistics.fmean(v) for p, v in by_pipeline.items()}

    def latency(self) -> dict[str, dict[str, float]]:
        by_pipeline: dict[str, list[float]] = defaultdict(list)
        for o in self.outcomes:
            by_pipeline[o.pipeline].append(o.latency_ms)
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
) -> RetrievalEvalReport:
    """Run every question through every pipeline and score evidence recall@k.

    The pipelines share what one of them computes for a question (its embedding above all, a model
    call), so whichever ran first would be timed with it. ``prepare`` makes those shared parts before
    any pipeline runs and returns its milliseconds (None when it made nothing), reported apart; the
    order of the pipelines also turns by one each question, so no pipeline is always first."""
    report = RetrievalEvalReport(k=k, threshold=threshold, pipelines=list(pipelines))
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
                )
            )
        if on_question is not None:
            on_question()
    return report


def _recall_table(report: RetrievalEvalReport, metric: str, with_costs: bool) -> list[str]:
    table = report.table(metric)
    types = [*sorted({t for row in table.values() for t in row if t != "All"}), "All"]
    counts = report.counts()
    extra_head = " | context tokens | p50 ms | p95 ms |" if with_costs else " |"
    lines = [
        "| pipeline | " + " | ".join(f"{t} (n={counts.get(t, 0)})" for t in types) + extra_head,
        "| --- | " + " | ".join("---:" for _ in types) + (" | ---: | ---: | ---: |" if with_costs else " |"),
    ]
    latency, tokens = report.latency(), report.mean_context_tokens()
    for pipeline in report.pipelines:
        row = table.get(pipeline, {})
        cells = " | ".join(f"{row[t]:.3f}" if t in row else "–" for t in types)
        lat = latency.get(pipeline, {"p50": 0.0, "p95": 0.0})
        costs = f" | {tokens.get(pipeline, 0):.0f} | {lat['p50']:.1f} | {lat['p95']:.1f} |" if with_costs else " |"
        lines.append(f"| {pipeline} | {cells}{costs}")
    return lines


def _latency_note(report: RetrievalEvalReport) -> str:
    """What the ms columns time, and the question embeddings timed apart from them."""
    note = "p50/p95 ms: wall time of each pipeline's retrieval, in turn first on every question."
    made = report.embedding_latency()
    if made:
        note += (
            f" The question's embedding, which every pipeline reads, is made once before them and timed apart:"
            f" p50 {made['p50']:.1f} ms, p95 {made['p95']:.1f} ms."
        )
    return note


def render_markdown(
    report: RetrievalEvalReport,
    dataset: str,
    stats: RetrievalStatistics | None = None,
    caveats: list[str] | None = None,
) -> str:
    """The report as markdown: the caveats on its questions, the two recall tables with costs, then for
    each measure its intervals, paired differences against the baseline and verdicts (``stats`` and
    ``caveats`` worked out here unless the caller has them)."""
    stats = stats or report.statistics()
    caveats = report.caveats() if caveats is None else caveats
    lines = [
        f"# Retrieval evaluation: evidence recall@{report.k}",
        "",
        f"Dataset: `{dataset}`. An evidence sentence is recalled when ≥ {report.threshold:.0%} of its "
        "content words occur in one retrieved item.",
        "",
        *caveat_lines(caveats),
        *(report.evidence.lines() if report.evidence else []),
        "## All context the generator sees (chunks + entity/relation/report texts)",
        "",
        *_recall_table(report, "recall", with_costs=True),
        "",
        _latency_note(report),
        "",
        f"## Retrieved passages only (top-{report.k} chunks)",
        "",
        *_recall_table(report, "chunk_recall", with_costs=False),
        "",
        "## Intervals, paired differences and verdict: all context",
        "",
        *render_statistics(stats, "recall", report.pipelines),
        "",
        "## Intervals, paired differences and verdict: passages only",
        "",
        *render_statistics(stats, "chunk_recall", report.pipelines),
    ]
    return "\n".join(lines) + "\n"


def write_report(report: RetrievalEvalReport, out_dir: Path, dataset: str) -> dict[str, Path]:
    """Write JSON, markdown and a bar chart; returns the paths written (:class:`KgragError` naming the
    path when the directory or a file cannot be written)."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise KgragError(f"{out_dir}: cannot create the report directory ({exc.strerror})") from exc
    paths = {
        "json": out_dir / "retrieval_eval.json",
        "markdown": out_dir / "retrieval_eval.md",
        "plot": out_dir / "retrieval_eval.png",
    }
    stats, caveats = report.statistics(), report.caveats()
    payload: RetrievalReportPayload = {
        "dataset": dataset,
        "k": report.k,
        "threshold": report.threshold,
        "summary": report.table(),
        "summary_chunks_only": report.table("chunk_recall"),
        "mean_context_tokens": report.mean_context_tokens(),
        "latency_ms": report.latency(),
        "query_embedding_ms": report.embedding_latency(),
        "counts": report.counts(),
        "caveats": caveats,
        "evidence_check": report.evidence.payload() if report.evidence else None,
        "statistics": stats,
        "outcomes": [o.row() for o in report.outcomes],
    }
    try:
        paths["json"].write_text(json.dumps(payload, indent=2), encoding="utf-8")
        paths["markdown"].write_text(render_markdown(report, dataset, stats, caveats), encoding="utf-8")
        _plot(report, paths["plot"])
    except OSError as exc:
        raise KgragError(f"{exc.filename or out_dir}: cannot write the evaluation report ({exc.strerror})") from exc
    return paths


def _plot(report: RetrievalEvalReport, path: Path) -> None:
    """Recall against the context it took, never recall alone: graph pipelines hand over entity and
    relation descriptions on top of k chunks (several times the tokens), so a bar chart of all-context
    recall would reward length. Left: all-context and passages-only recall against mean context tokens,
    one point per pipeline; right: latency as the other cost axis."""
    tokens, latency = report.mean_context_tokens(), report.latency()
    everything, chunks = report.table(), report.table("chunk_recall")
    points_tokens: list[Point] = []
    points_latency: list[Point] = []
    for pipeline in report.pipelines:
        recall = everything.get(pipeline, {}).get("All")
        if recall is None:
            continue
        passages = chunks.get(pipeline, {}).get("All")
        points_tokens.append((f"{pipeline} (all context)", tokens.get(pipeline, 0.0), recall, None))
        if passages is not None and passages != recall:
            points_tokens.append((f"{pipeline} (passages only)", tokens.get(pipeline, 0.0), passages, None))
        points_latency.append((pipeline, latency.get(pipeline, {}).get("p50", 0.0), recall, None))
    quality_vs_cost(
        [("context tokens handed to the generator (mean)", points_tokens), ("query latency p50 (ms)", points_latency)],
        f"evidence recall@{report.k} (all question types)",
        "Evidence recall against what it cost: further right = more context or time",
        path,
    )
