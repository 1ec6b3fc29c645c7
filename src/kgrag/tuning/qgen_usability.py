"""Fitting and checking the usability model of LLM-free questions on blind-read verdicts.

Each row of ``bench/data/qgen_blind_verdicts.jsonl.gz`` is one question a blind reader judged, with the read it
belongs to (:func:`load_verdicts`). :func:`fit_usability` fits
:class:`kgrag.evaluation.qgen.usability.UsabilityModel` by L2-penalised logistic regression (Newton steps; the
intercept is not penalised), deterministic, so a test can check that the shipped weights are the fit of the shipped
verdicts. :func:`kept_by_read` measures what a generator gains from the model the way it uses it: within each read,
held out from the fit, keep the share of its questions the model ranks highest and count how many of those the
reader found usable (:func:`kept_by_read`, :func:`gain_interval`).
"""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kgrag.evaluation.qgen.scope import unscoped
from kgrag.evaluation.qgen.usability import FEATURES, UsabilityModel, features

DROPPED_FIELDS = ("reason",)
"""Fields a read's rows are saved without: each reader's reason is quoted, question by question, on the read's
results page (``docs/results/qgen-blind-read-*.md``), and no fit or bench reads it."""


def load_verdicts(path: Path) -> list[dict[str, Any]]:
    """The verdict rows of every blind read: ``path`` is gzip-compressed JSON Lines, one question a line."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def save_verdicts(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    """Writes ``rows`` as :func:`load_verdicts` reads them, without :data:`DROPPED_FIELDS`, byte for byte the
    same for the same rows (no time stamp in the gzip header), through a temporary file renamed into place."""
    lines = "".join(
        json.dumps({k: v for k, v in row.items() if k not in DROPPED_FIELDS}, ensure_ascii=False) + "\n" for row in rows
    )
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=9, mtime=0) as packed:
        packed.write(lines.encode("utf-8"))
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(buffer.getvalue())
    partial.replace(path)


L2 = 1.0
"""The penalty on the weights; features are scaled to [0, 1], so one penalty fits them all."""
NEWTON_STEPS = 50


@dataclass(frozen=True)
class Verdicts:
    """Feature rows, usable (1) or not (0), and the read of each."""

    x: np.ndarray
    y: np.ndarray
    reads: np.ndarray


def verdict_rows(rows: Sequence[Mapping[str, Any]]) -> Verdicts:
    """The features of each judged question (its ``question``, ``answer`` and ``source`` sentence)."""
    x = []
    for r in rows:
        asked = unscoped(r["question"])
        x.append(features(asked, r["answer"], r["source"] or "", headed=asked != r["question"]))
    return Verdicts(
        np.array(x, dtype=float),
        np.array([bool(r["usable"]) for r in rows], float),
        np.array([r["read"] for r in rows]),
    )


def fit_usability(x: np.ndarray, y: np.ndarray, trained_on: str = "", l2: float = L2) -> UsabilityModel:
    """The logistic regression of ``y`` on ``x`` with an L2 penalty ``l2`` on the weights."""
    design = np.hstack([np.ones((len(x), 1)), x])
    penalty = np.full(design.shape[1], l2)
    penalty[0] = 0.0
    beta = np.zeros(design.shape[1])
    for _ in range(NEWTON_STEPS):
        p = 1.0 / (1.0 + np.exp(-design @ beta))
        gradient = design.T @ (y - p) - penalty * beta
        hessian = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hessian, gradient)
        beta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    return UsabilityModel(float(beta[0]), dict(zip(FEATURES, map(float, beta[1:]), strict=True)), trained_on)


def scores(model: UsabilityModel, x: np.ndarray) -> np.ndarray:
    """The model's chance of usable for each row of ``x``."""
    return np.array([model.probability(tuple(row)) for row in x])


@dataclass(frozen=True)
class ReadKept:
    """One held-out read: usable among the questions kept, how many kept, usable among all, how many."""

    usable_kept: int
    kept: int
    usable: int
    questions: int


def kept_by_read(
    data: Verdicts, train: Callable[[np.ndarray], np.ndarray], tested: np.ndarray, share: float
) -> list[ReadKept]:
    """For each read in ``tested``, a model fitted on the rows ``train(read)`` ranks that read's
    questions and the top ``share`` of them are kept."""
    out = []
    for read in tested:
        here = np.where(data.reads == read)[0]
        chosen = train(np.asarray(read))
        model = fit_usability(data.x[chosen], data.y[chosen])
        order = here[np.argsort(-scores(model, data.x[here]), kind="stable")]
        top = order[: max(1, int(len(here) * share))]
        out.append(ReadKept(int(data.y[top].sum()), len(top), int(data.y[here].sum()), len(here)))
    return out


def gain_interval(reads: Sequence[ReadKept], draws: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """The usable share of the kept questions minus that of all, and its 95% interval from a bootstrap
    over reads (a read's questions share a corpus and a generator, so the read is the unit resampled)."""
    table = np.array([(r.usable_kept, r.kept, r.usable, r.questions) for r in reads], dtype=float)

    def gain(rows: np.ndarray) -> float:
        return float(rows[:, 0].sum() / rows[:, 1].sum() - rows[:, 2].sum() / rows[:, 3].sum())

    rng = np.random.default_rng(seed)
    boot = sorted(gain(table[rng.integers(0, len(table), len(table))]) for _ in range(draws))
    return gain(table), boot[int(0.025 * draws)], boot[int(0.975 * draws) - 1]


def auc(score: np.ndarray, y: np.ndarray) -> float:
    """The chance that a usable question scores above a not-usable one (ties count half)."""
    good, bad = score[y == 1], score[y == 0]
    if not len(good) or not len(bad):
        return float("nan")
    above = (good[:, None] > bad[None, :]).sum() + 0.5 * (good[:, None] == bad[None, :]).sum()
    return float(above / (len(good) * len(bad)))
