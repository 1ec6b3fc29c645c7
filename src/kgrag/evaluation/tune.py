"""``kgrag tune``: fit the λ of a λ-fused pipeline (``paths``) on a labelled dataset.

Each question is retrieved once with a wide cut (the whole fused pool, hydrated), keeping every
candidate's normalised dense and graph scores; each λ on the grid then re-ranks those candidates
offline (``λ·dense + (1 − λ)·graph``), takes the top k passages and scores evidence recall. So a grid of
11 values costs one retrieval per question, not eleven. The best λ (ties: the one nearer the default,
which changes the pipeline least) is what the workspace stores for the pipeline.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kgrag.core.context import RetrievalResult
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall

GRID = tuple(round(i / 10, 1) for i in range(11))
WIDE = 50


@dataclass
class TuneReport:
    """Mean evidence recall@k (passages) per λ, the best λ and the questions it was fitted on."""

    pipeline: str
    k: int
    questions: int
    recall_by_lambda: dict[float, float] = field(default_factory=dict)
    best: float = 0.7


def _ranked(result: RetrievalResult, lam: float, k: int) -> list[str]:
    chunks = [i for i in result.items if i.kind == "chunk" and "dense_norm" in i.scores]
    chunks.sort(key=lambda i: -(lam * i.scores["dense_norm"] + (1 - lam) * i.scores["graph_norm"]))
    return [i.text for i in chunks[:k]]


def tune_lambda(
    items: Sequence[QAItem],
    pipeline: str,
    k: int,
    threshold: float,
    retrieve_wide: Callable[[str], RetrievalResult],
    default: float = 0.7,
) -> TuneReport:
    """Grid-search λ on ``items`` (questions without evidence are skipped)."""
    labelled = [item for item in items if item.evidence]
    results = [(item, retrieve_wide(item.question)) for item in labelled]
    report = TuneReport(pipeline=pipeline, k=k, questions=len(labelled))
    for lam in GRID:
        scores = [evidence_recall(item.evidence, _ranked(result, lam, k), threshold) for item, result in results]
        report.recall_by_lambda[lam] = statistics.fmean(s for s in scores if s is not None) if scores else 0.0
    report.best = max(GRID, key=lambda lam: (report.recall_by_lambda[lam], -abs(lam - default)))
    return report
