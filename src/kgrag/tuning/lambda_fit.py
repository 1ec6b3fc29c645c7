"""``kgrag tune lambda``: fit the λ of a λ-fused pipeline (``paths``) on a labelled dataset.

Each question is retrieved once with a wide cut (the whole fused pool, hydrated), keeping every
candidate's normalised dense and graph scores; each λ on the grid then re-ranks those candidates
offline (``λ·dense + (1 − λ)·graph``), takes the top k passages and scores evidence recall. So a grid of
11 values costs one retrieval per question, not eleven. The best λ (ties: the one nearer the default,
which changes the pipeline least) is what the workspace stores for the pipeline.

With a held-out share, a stratified (by question type), seeded sample of the labelled questions is set
aside: λ is fitted on the rest only, and the report scores the held-out questions at the fitted λ, at the
λ the pipeline uses now and at λ = 1 (dense alone: the top k of the same dense pool), so a gain that is
only an in-sample artefact shows as none on the held-out part. Each of those rows gets its 95 % interval
per question type, and the fitted λ's paired difference to the other two rows its interval and n
(:mod:`kgrag.evaluation.stats`), so a held-out gain is only read as one when its interval says so.
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from kgrag.core.context import RetrievalResult
from kgrag.core.errors import KgragError
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.sampling import stratified_sample
from kgrag.evaluation.stats.cells import DifferenceCell, IntervalCell
from kgrag.evaluation.stats.intervals import Bootstrap, QuestionValues, estimates, paired

GRID = tuple(round(i / 10, 1) for i in range(11))
WIDE = 50
DENSE = 1.0
"""λ = 1 ranks by the dense score alone: the dense pipeline's top k of the same pool."""

Scored = list[tuple[QAItem, RetrievalResult]]


@dataclass
class HoldoutReport:
    """Evidence recall@k on the held-out questions: ``recall[row][question type]`` (and ``"All"``) for the
    rows ``fitted`` (λ fitted on the rest), ``current`` (the λ the pipeline used before tuning) and
    ``dense`` (λ = 1)."""

    share: float
    seed: int
    questions: int
    current_lambda: float
    recall: dict[str, dict[str, float]] = field(default_factory=dict)
    intervals: dict[str, dict[str, IntervalCell]] = field(default_factory=dict)
    """row → column → ``{mean, ci95, n}`` (columns: each type, ``All``, ``Macro``)."""
    differences: dict[str, dict[str, DifferenceCell]] = field(default_factory=dict)
    """``fitted − current`` and ``fitted − dense`` → column → ``{mean, ci95, n, p}`` (paired)."""


@dataclass
class TuneReport:
    """Mean evidence recall@k (passages) per λ, the best λ and the questions it was fitted on."""

    pipeline: str
    k: int
    questions: int
    recall_by_lambda: dict[float, float] = field(default_factory=dict)
    best: float = 0.7
    holdout: HoldoutReport | None = None


def _ranked(result: RetrievalResult, lam: float, k: int) -> list[str]:
    chunks = [i for i in result.items if i.kind == "chunk" and "dense_norm" in i.scores]
    chunks.sort(key=lambda i: -(lam * i.scores["dense_norm"] + (1 - lam) * i.scores["graph_norm"]))
    return [i.text for i in chunks[:k]]


def _recalls(results: Scored, lam: float, k: int, threshold: float) -> list[tuple[str, float]]:
    """(question type, recall) of each question whose evidence could be scored, at ``lam``."""
    scored = (
        (item.question_type, evidence_recall(item.evidence, _ranked(r, lam, k), threshold)) for item, r in results
    )
    return [(qtype, s) for qtype, s in scored if s is not None]


def question_values(results: Scored, lam: float, k: int, threshold: float) -> QuestionValues:
    """question id → (type, recall at ``lam``) for the questions whose evidence could be scored."""
    out: QuestionValues = {}
    for item, result in results:
        value = evidence_recall(item.evidence, _ranked(result, lam, k), threshold)
        if value is not None:
            out[item.id] = (item.question_type, value)
    return out


def held_out_statistics(
    held: Scored, rows: dict[str, float], k: int, threshold: float, settings: Bootstrap | None = None
) -> tuple[dict[str, dict[str, IntervalCell]], dict[str, dict[str, DifferenceCell]]]:
    """Intervals per row and the fitted row's paired differences to the others, on the held-out part."""
    chosen = settings or Bootstrap()
    values = {row: question_values(held, lam, k, threshold) for row, lam in rows.items()}
    intervals = {row: {c: e.as_cell() for c, e in estimates(v, chosen).items()} for row, v in values.items()}
    differences: dict[str, dict[str, DifferenceCell]] = {
        f"fitted − {row}": {
            c: {**e.as_cell(), "p": e.p_value()} for c, e in paired(values["fitted"], v, chosen).items()
        }
        for row, v in values.items()
        if row != "fitted"
    }
    return intervals, differences


def mean_by_type(recalls: Iterable[tuple[str, float]]) -> dict[str, float]:
    """Mean of the values per question type, and over all of them as ``"All"``."""
    groups: dict[str, list[float]] = defaultdict(list)
    for qtype, value in recalls:
        groups[qtype].append(value)
        groups["All"].append(value)
    return {qtype: statistics.fmean(values) for qtype, values in sorted(groups.items())}


def split_holdout(items: Sequence[QAItem], share: float, seed: int) -> tuple[list[QAItem], list[QAItem]]:
    """(fit, held out): ``share`` of ``items`` held out by a stratified sample (each question type keeps its
    share), reproducible from ``seed``; both parts keep dataset order."""
    if not 0 < share < 1:
        raise KgragError(f"--holdout must be between 0 and 1, exclusive (got {share})")
    size = round(len(items) * share)
    if size < 1 or size >= len(items):
        raise KgragError(f"--holdout {share} of {len(items)} labelled questions leaves one side empty")
    held = stratified_sample(items, size, seed=seed)
    held_ids = {id(item) for item in held}
    return [item for item in items if id(item) not in held_ids], held


def tune_lambda(
    items: Sequence[QAItem],
    pipeline: str,
    k: int,
    threshold: float,
    retrieve_wide: Callable[[str], RetrievalResult],
    default: float = 0.7,
    *,
    holdout: float = 0.0,
    seed: int = 0,
    current: float | None = None,
) -> TuneReport:
    """Grid-search λ on ``items`` (questions without evidence are skipped); with ``holdout`` > 0, on all
    but a held-out share, which is then scored at the fitted, the ``current`` (default: ``default``) and
    the dense λ."""
    labelled = [item for item in items if item.evidence]
    fit, held = split_holdout(labelled, holdout, seed) if holdout else (labelled, [])
    results = [(item, retrieve_wide(item.question)) for item in labelled]
    by_item = {id(item): result for item, result in results}
    fit_results = [(item, by_item[id(item)]) for item in fit]
    report = TuneReport(pipeline=pipeline, k=k, questions=len(fit))
    for lam in GRID:
        scores = [s for _, s in _recalls(fit_results, lam, k, threshold)]
        report.recall_by_lambda[lam] = statistics.fmean(scores) if scores else 0.0
    report.best = max(GRID, key=lambda lam: (report.recall_by_lambda[lam], -abs(lam - default)))
    if held:
        now = default if current is None else current
        held_results = [(item, by_item[id(item)]) for item in held]
        rows = {"fitted": report.best, "current": now, "dense": DENSE}
        report.holdout = HoldoutReport(share=holdout, seed=seed, questions=len(held), current_lambda=now)
        report.holdout.recall = {
            row: mean_by_type(_recalls(held_results, lam, k, threshold)) for row, lam in rows.items()
        }
        report.holdout.intervals, report.holdout.differences = held_out_statistics(held_results, rows, k, threshold)
    return report
