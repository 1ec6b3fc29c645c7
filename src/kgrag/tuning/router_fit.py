"""``kgrag tune router``: learn which pipeline answers which question, cross-validated by question.

Every labelled question is retrieved once by every candidate pipeline and scored (evidence recall, the
context tokens handed over), and its routing features are computed once
(:func:`kgrag.retrieval.steps.router_policy.question_features`). That is the expensive part; with a cache
directory each pipeline's outcomes are appended to ``<dir>/<pipeline>.jsonl`` as they come, so an
interrupted run resumes where it stopped. A record is reused only when its question text and the
workspace fingerprint (model, chunks, vectors, graph size, retrieval and rerank settings) match, so a
re-indexed workspace, a changed setting or an edited dataset is scored again.

Fitting is then offline and cheap: ``folds``-fold cross-validation; ``kgrag tune router`` keeps the
questions that share a main evidence passage in one fold (:mod:`kgrag.tuning.evidence_folds`), so a rule
is not tested on siblings of the questions it was fitted on (without a chunk index, folds are drawn per
question type from ``seed``); a policy tree (:mod:`.router_tree`) is fitted on all folds but one and
routes the questions of the held-out fold. The report compares those held-out routed outcomes with every
single pipeline on the same questions, per question type, with the paired differences to the best single
pipeline (best on All) and to the best pipeline of each type, with 95% intervals. The policy stored is
fitted on all questions.
"""

from __future__ import annotations

import json
import random
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NotRequired, TypedDict, cast

import numpy as np
from pydantic import JsonValue

from kgrag.core.context import RetrievalResult
from kgrag.core.errors import KgragError
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.recall import evidence_recall
from kgrag.evaluation.stats.intervals import difference_estimate
from kgrag.retrieval.steps.router_policy import RouterPolicy
from kgrag.tuning.router_tree import TreeSettings, fit_policy

AUTO = "auto"
ALL = "All"
FEATURES_FILE = "features"
_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

Retriever = Callable[[str, str], RetrievalResult]
"""(question, pipeline) → the pipeline's retrieval at the workspace's k and budget."""
FeatureFn = Callable[[str], dict[str, float]]


class Scored(TypedDict):
    """One retrieval scored: evidence recall (None without scorable evidence) and context tokens."""

    recall: float | None
    context_tokens: int


class Outcome(TypedDict):
    """One cached line: the question (id and text) with either its routing features or one pipeline's
    :class:`Scored` outcome; the cache adds the fingerprint of the settings it was scored under."""

    id: str
    question: str
    features: NotRequired[dict[str, float]]
    recall: NotRequired[float | None]
    context_tokens: NotRequired[int]
    fingerprint: NotRequired[str]


@dataclass(frozen=True)
class Row:
    """One labelled question: its routing features and each pipeline's recall and context tokens."""

    id: str
    question_type: str
    features: dict[str, float]
    recall: dict[str, float]
    tokens: dict[str, int]


def _outcome(record: dict[str, JsonValue]) -> Outcome | None:
    """A cached line as an :class:`Outcome`, or None when a field has the wrong type (scored again)."""
    features, recall, tokens = record.get("features", {}), record.get("recall"), record.get("context_tokens", 0)
    typed = (
        isinstance(record.get("id"), str)
        and isinstance(record.get("question"), str)
        and isinstance(features, dict)
        and all(isinstance(v, int | float) for v in features.values())
        and (recall is None or isinstance(recall, int | float))
        and isinstance(tokens, int)
    )
    return cast(Outcome, record) if typed else None


class OutcomeCache:
    """Per-question records of one kind (a pipeline's outcomes, or the features) in ``<dir>/<name>.jsonl``;
    ``directory`` None keeps nothing. A torn last line (an interrupted run) is skipped."""

    def __init__(self, directory: Path | None, fingerprint: str) -> None:
        self.directory = directory
        self.fingerprint = fingerprint
        self._checked: set[str] = set()
        if directory is not None:
            try:
                directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise KgragError(f"{directory}: cannot create the cache directory ({exc.strerror})") from exc

    def _path(self, name: str) -> Path | None:
        if self.directory is None:
            return None
        if not _SAFE_NAME.match(name):
            raise KgragError(f"pipeline name {name!r} cannot name a cache file; run without --cache")
        return self.directory / f"{name}.jsonl"

    def load(self, name: str, questions: dict[str, str]) -> dict[str, Outcome]:
        """Records of ``name`` whose id is in ``questions`` (id → text) with the same text and fingerprint."""
        path = self._path(name)
        if path is None or not path.exists():
            return {}
        found: dict[str, Outcome] = {}
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise KgragError(f"{path}: cannot read the cache ({exc}); delete it to start over") from exc
        for line in lines:
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict):
                continue
            key = record.get("id")
            fresh = record.get("fingerprint") == self.fingerprint
            outcome = _outcome(record) if isinstance(key, str) and fresh else None
            if outcome is not None and questions.get(outcome["id"]) == outcome["question"]:
                found[outcome["id"]] = outcome
        return found

    def append(self, name: str, record: Outcome) -> None:
        path = self._path(name)
        if path is None:
            return
        line = json.dumps({**record, "fingerprint": self.fingerprint}, ensure_ascii=False) + "\n"
        try:
            if name not in self._checked:  # a torn last line (no newline) must not swallow this record
                self._checked.add(name)
                if path.exists() and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
                    line = "\n" + line
            with path.open("a", encoding="utf-8") as handle:
                handle.write(line)
        except OSError as exc:
            raise KgragError(f"{path}: cannot write the cache ({exc.strerror})") from exc


@dataclass(frozen=True)
class Scorer:
    """How one retrieval is scored: evidence recall at ``threshold`` and context tokens."""

    threshold: float
    count_tokens: Callable[[str], int]

    def __call__(self, item: QAItem, result: RetrievalResult) -> Scored:
        texts = [i.text for i in result.items]
        return {
            "recall": evidence_recall(item.evidence, texts, self.threshold),
            "context_tokens": sum(self.count_tokens(t) for t in texts),
        }


def collect_rows(
    items: Sequence[QAItem],
    pipelines: Sequence[str],
    retrieve: Retriever,
    features_of: FeatureFn,
    scorer: Scorer,
    cache: OutcomeCache,
    on_step: Callable[[str], None] | None = None,
) -> list[Row]:
    """Every question with evidence through every pipeline (one pipeline at a time, cached), plus features.
    ``on_step`` is called with the pipeline name (or ``features``) after each question."""
    labelled = [item for item in items if item.evidence]
    questions = {item.id: item.question for item in labelled}
    outcomes: dict[str, dict[str, Outcome]] = {}
    for name in [*pipelines, FEATURES_FILE]:
        have = cache.load(name, questions)
        for item in labelled:
            if item.id not in have:
                record: Outcome = {"id": item.id, "question": item.question}
                if name == FEATURES_FILE:
                    record["features"] = features_of(item.question)
                else:
                    scored = scorer(item, retrieve(item.question, name))
                    record["recall"], record["context_tokens"] = scored["recall"], scored["context_tokens"]
                cache.append(name, record)
                have[item.id] = record
            if on_step is not None:
                on_step(name)
        outcomes[name] = have
    return [
        Row(
            id=item.id,
            question_type=item.question_type,
            features={k: float(v) for k, v in outcomes[FEATURES_FILE][item.id]["features"].items()},
            recall={p: float(outcomes[p][item.id]["recall"] or 0.0) for p in pipelines},
            tokens={p: int(outcomes[p][item.id]["context_tokens"]) for p in pipelines},
        )
        for item in labelled
    ]


def check_folds(questions: int, folds: int) -> None:
    """Refuse a fold count that cannot cross-validate ``questions`` labelled questions, with one line."""
    if folds < 2:
        raise KgragError(f"--folds must be at least 2 (got {folds})")
    if questions < folds:
        raise KgragError(f"{questions} labelled questions cannot be split into {folds} folds; lower --folds")


def assign_folds(rows: Sequence[Row], folds: int, seed: int) -> list[int]:
    """The fold of each row: each question type shuffled with ``seed`` and dealt round-robin, so every
    fold holds each type's share."""
    check_folds(len(rows), folds)
    by_type: dict[str, list[int]] = defaultdict(list)
    for index, row in enumerate(rows):
        by_type[row.question_type].append(index)
    rng = random.Random(seed)
    fold = [0] * len(rows)
    dealt = 0
    for question_type in sorted(by_type):
        indices = by_type[question_type]
        rng.shuffle(indices)
        for index in indices:
            fold[index] = dealt % folds
            dealt += 1
    return fold


@dataclass
class RouterTuneReport:
    """Held-out (cross-validated) evidence recall and context tokens per arm (``auto`` = the learned
    policy, then each pipeline) and question type (plus ``All``); per type, ``auto``'s paired difference
    to the best single pipeline on All (``versus_best``) and to the type's best (``versus_type_best``) as
    (pipeline, mean, 95% half-width); ``auto``'s All per fold, where the held-out questions were routed,
    and the policy fitted on all questions."""

    pipelines: list[str]
    folds: int
    questions: int
    recall: dict[str, dict[str, float]]
    tokens: dict[str, dict[str, float]]
    counts: dict[str, int]
    versus_best: dict[str, tuple[str, float, float]]
    versus_type_best: dict[str, tuple[str, float, float]]
    fold_recall: list[float]
    routes: dict[str, dict[str, int]]
    policy: RouterPolicy
    stored: bool = False
    fold_rule: str = "questions dealt into folds at random, per question type"

    @property
    def types(self) -> list[str]:
        return [*sorted(t for t in self.counts if t != ALL), ALL]

    def goal_met(self) -> bool:
        """Whether ``auto`` held out recalls at least as much as the best single pipeline (best on All), on
        All and on every question type."""
        return all(diff >= -1e-12 for _, diff, _ in self.versus_best.values())


def _mean(values: Sequence[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def _paired(a: Sequence[float], b: Sequence[float]) -> tuple[float, float]:
    """Mean of a − b and the half-width of its 95% paired-difference interval (recalls: a difference
    is at most 1), as every comparison of the evaluation gets it."""
    found = difference_estimate(np.subtract(a, b, dtype=float), 0.95, 1.0)
    if found.ci95 is None:
        return found.mean or 0.0, 0.0
    return found.mean or 0.0, (found.ci95[1] - found.ci95[0]) / 2


def cross_validate(
    rows: Sequence[Row],
    pipelines: Sequence[str],
    folds: int = 5,
    seed: int = 0,
    settings: TreeSettings | None = None,
    dataset: str = "",
    fold_of: Sequence[int] | None = None,
) -> RouterTuneReport:
    """Fit on all folds but one, route the held-out fold; repeat per fold; then fit on everything.
    ``fold_of`` gives each row's fold (default: :func:`assign_folds`)."""
    fold_of = assign_folds(rows, folds, seed) if fold_of is None else list(fold_of)
    rewards = np.array([[row.recall[p] for p in pipelines] for row in rows], dtype=float)
    tokens = np.array([[row.tokens[p] for p in pipelines] for row in rows], dtype=float)
    chosen: list[str] = [""] * len(rows)
    for fold in range(folds):
        train = [i for i in range(len(rows)) if fold_of[i] != fold]
        features = [rows[i].features for i in train]
        policy = fit_policy(features, rewards[train], pipelines, settings, tokens=tokens[train])
        for i in range(len(rows)):
            if fold_of[i] == fold:
                chosen[i] = policy.decide(rows[i].features)[0]
    final = fit_policy([row.features for row in rows], rewards, pipelines, settings, dataset, tokens)
    return _report(rows, pipelines, chosen, fold_of, folds, final)


def _report(
    rows: Sequence[Row],
    pipelines: Sequence[str],
    chosen: Sequence[str],
    fold_of: Sequence[int],
    folds: int,
    policy: RouterPolicy,
) -> RouterTuneReport:
    recall: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    tokens: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    routes: dict[str, Counter[str]] = defaultdict(Counter)
    for row, pick in zip(rows, chosen, strict=True):
        for question_type in (row.question_type, ALL):
            routes[question_type][pick] += 1
            for arm, name in ((AUTO, pick), *((p, p) for p in pipelines)):
                recall[arm][question_type].append(row.recall[name])
                tokens[arm][question_type].append(row.tokens[name])

    def best_on(question_type: str) -> str:
        return max(pipelines, key=lambda p: (_mean(recall[p][question_type]), -pipelines.index(p)))

    def versus(name: str, question_type: str) -> tuple[str, float, float]:
        return (name, *_paired(recall[AUTO][question_type], recall[name][question_type]))

    overall = best_on(ALL)
    fold_recall = [
        _mean([row.recall[pick] for row, pick, f in zip(rows, chosen, fold_of, strict=True) if f == fold])
        for fold in range(folds)
    ]
    return RouterTuneReport(
        pipelines=list(pipelines),
        folds=folds,
        questions=len(rows),
        recall={arm: {t: _mean(v) for t, v in types.items()} for arm, types in recall.items()},
        tokens={arm: {t: _mean(v) for t, v in types.items()} for arm, types in tokens.items()},
        counts={t: len(v) for t, v in recall[AUTO].items()},
        versus_best={t: versus(overall, t) for t in recall[AUTO]},
        versus_type_best={t: versus(best_on(t), t) for t in recall[AUTO]},
        fold_recall=fold_recall,
        routes={t: dict(c.most_common()) for t, c in routes.items()},
        policy=policy,
    )


def render_markdown(report: RouterTuneReport) -> str:
    """The per-type table (recall with context tokens beside it), the comparison with the best single
    pipeline per type, and the policy's rules."""
    types = report.types
    head = "| arm | " + " | ".join(f"{t} (n={report.counts[t]})" for t in types) + " |"
    lines = [head, "|---|" + "---:|" * len(types)]
    for arm in [AUTO, *report.pipelines]:
        label = "auto (learned, held out)" if arm == AUTO else arm
        cells = [f"{report.recall[arm][t]:.3f} ({report.tokens[arm][t]:.0f})" for t in types]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    overall = report.versus_best[ALL][0]
    lines += [
        "",
        f"| type | auto − {overall} (best on All) | 95% interval | best single of the type | auto − it | 95% interval "
        "| held-out routes |",
        "|---|---:|---|---|---:|---|---|",
    ]
    for t in types:
        _, diff, half = report.versus_best[t]
        best, type_diff, type_half = report.versus_type_best[t]
        routes = ", ".join(f"{p} {n}" for p, n in report.routes.get(t, {}).items())
        lines.append(
            f"| {t} | {diff:+.3f} | [{diff - half:+.3f}, {diff + half:+.3f}] | {best} | {type_diff:+.3f} "
            f"| [{type_diff - type_half:+.3f}, {type_diff + type_half:+.3f}] | {routes} |"
        )
    folds = ", ".join(f"{v:.3f}" for v in report.fold_recall)
    lines += [
        "",
        f"Folds: {report.fold_rule}.",
        f"auto All per fold: {folds}",
        "",
        "Policy (fitted on all questions):",
        "",
    ]
    lines += [f"- {rule}" for rule in report.policy.rules()]
    return "\n".join(lines) + "\n"
