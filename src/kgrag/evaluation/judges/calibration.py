"""Judges you can trust: agreement between human labels and a run's judge (and metric) scores.

Labels (:mod:`kgrag.evaluation.judges.labels`) name the answer they score by its answer id (run,
question, pipeline, trial), so each is compared with the run's score of that very answer, never with a
mean over other answers to the same question; a panel label is also matched with each panel model's own
score, so every judge gets its own row. A label whose answer or metric the run does not hold is refused
(one error naming its line): agreement over the labels that happen to match would look like an answer.

Agreement per judge and metric, with n:

- Cohen's κ on categories: the scores themselves when both sides are integers on a small scale (the 1-5
  panel, the 0-10 dimensions), else ``bins`` equal-width bins over the observed range (continuous
  metrics in [0, 1]). κ = (p_o − p_e) / (1 − p_e), p_o the share of equal categories, p_e the agreement
  expected from each side's category frequencies.
- Spearman's ρ (rank correlation, ties averaged), the primary figure for continuous scores.

A judge that is also the generator judges its own answers; the report then carries a warning, since
models are known to favour their own output and agreement on such a run says little about other runs.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypedDict

from pydantic import JsonValue

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalScore
from kgrag.evaluation.judges.labels import Label, labelled_run, load_labels

__all__ = ["Label", "calibrate", "labelled_run", "load_labels", "rejudge_plan", "render_markdown", "write_report"]

Scale = Literal["categorical", "continuous"]
RunMode = Literal["llm-free", "llm", "both"]
MAX_CATEGORIES = 11


class AgreementRow(TypedDict):
    """One judge on one metric in the calibration JSON."""

    judge: str
    metric: str
    n: int
    scale: Scale
    kappa: float | None
    spearman: float | None
    note: str


class CalibrationReport(TypedDict):
    """``calibration-<run>.json``."""

    run_id: str
    labels: int
    unmatched: int
    warnings: list[str]
    agreement: list[AgreementRow]


@dataclass(frozen=True)
class Agreement:
    """Agreement of one judge on one metric with the human labels."""

    judge: str
    metric: str
    n: int
    scale: Scale
    kappa: float | None
    spearman: float | None
    note: str = ""

    def row(self) -> AgreementRow:
        return {
            "judge": self.judge,
            "metric": self.metric,
            "n": self.n,
            "scale": self.scale,
            "kappa": self.kappa,
            "spearman": self.spearman,
            "note": self.note,
        }


@dataclass(frozen=True)
class Calibration:
    """The whole result: per-judge agreement rows, label counts and warnings."""

    run_id: str
    labels: int
    unmatched: int
    rows: list[Agreement]
    warnings: list[str]

    def to_dict(self) -> CalibrationReport:
        return {
            "run_id": self.run_id,
            "labels": self.labels,
            "unmatched": self.unmatched,
            "warnings": self.warnings,
            "agreement": [row.row() for row in self.rows],
        }


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Cohen's κ of two equally long category sequences; None when it is undefined (p_e = 1)."""
    if len(a) != len(b) or not a:
        raise ValueError("cohen_kappa needs two non-empty sequences of equal length")
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    count_a, count_b = Counter(a), Counter(b)
    expected = sum(count_a[c] * count_b[c] for c in count_a) / (n * n)
    if expected >= 1.0:
        return None
    return (observed - expected) / (1 - expected)


def spearman(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Spearman's ρ; None for fewer than 3 pairs or a constant side."""
    if len(a) < 3 or len(set(a)) < 2 or len(set(b)) < 2:
        return None
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic)


def _is_small_integer_scale(values: Sequence[float]) -> bool:
    return all(float(v).is_integer() for v in values) and len(set(values)) <= MAX_CATEGORIES


def binned(values: Sequence[float], low: float, high: float, bins: int) -> list[int]:
    """Equal-width bin index of each value over [low, high] (the top edge falls in the last bin)."""
    if high <= low:
        return [0 for _ in values]
    width = (high - low) / bins
    return [min(bins - 1, int((v - low) // width)) for v in values]


def agreement(judge: str, metric: str, human: Sequence[float], judged: Sequence[float], bins: int) -> Agreement:
    """κ and ρ of one judge on one metric (see the module docstring for which categories κ uses)."""
    both = [*human, *judged]
    if _is_small_integer_scale(both):
        scale: Scale = "categorical"
        kappa = cohen_kappa(list(human), list(judged))
        note = ""
    else:
        scale = "continuous"
        low, high = min(both), max(both)
        kappa = cohen_kappa(binned(human, low, high, bins), binned(judged, low, high, bins))
        note = f"κ over {bins} equal bins of [{low:g}, {high:g}]"
    rho = spearman(human, judged)
    if rho is None and len(human) < 3:
        note = "; ".join(filter(None, [note, "ρ needs at least 3 labels"]))
    return Agreement(judge, metric, len(human), scale, kappa, rho, note)


Key = tuple[int, str, str, str]  # (trial, question, pipeline, metric)


def _by_answer(scores: Iterable[EvalScore]) -> dict[Key, float | None]:
    return {(s.run_index, s.question_id, s.pipeline, s.metric): s.value for s in scores}


def _trial_of(label: Label, trials: dict[tuple[str, str], set[int]], run_id: str) -> int:
    """The trial of the answer a label names; an older label (no answer id) only where that is unique."""
    held = trials.get((label.question_id, label.pipeline), set())
    if label.run_index is not None:
        if label.run_id != run_id or label.run_index not in held:
            raise KgragError(
                f"{label.where or 'label'}: answer {label.run_id}|{label.question_id}|{label.pipeline}|"
                f"{label.run_index} matches no answer of run {run_id} (copy answer_id from `kgrag eval export`)"
            )
        return label.run_index
    if not held:
        raise KgragError(
            f"{label.where or 'label'}: question {label.question_id!r} through {label.pipeline!r} matches no "
            f"answer of run {run_id}"
        )
    if len(held) > 1:
        raise KgragError(
            f"{label.where or 'label'}: run {run_id} has {len(held)} answers to {label.question_id!r} through "
            f"{label.pipeline!r}; add an answer_id column naming the one labelled (from `kgrag eval export "
            f"{run_id} --jsonl FILE`)"
        )
    return next(iter(held))


def _judge_of(score_name: str, label_metric: str, judge_models: Sequence[str]) -> str:
    if score_name != label_metric:
        return score_name.removeprefix(label_metric + ".")  # a panel model's own score
    if score_name.startswith("judge.panel"):
        return "panel mean (" + ", ".join(judge_models) + ")" if judge_models else "panel mean"
    if score_name.startswith("judge.") or score_name.endswith(":llm"):
        return judge_models[0] if judge_models else "judge"
    return "llm-free"


def _judge_models(payload: dict[str, JsonValue]) -> list[JsonValue]:
    """The judge models a stored run's payload names (none when it had no judge)."""
    judge = payload.get("judge")
    models = judge.get("models") if isinstance(judge, dict) else None
    return models if isinstance(models, list) else []


def self_judging_warnings(payload: dict[str, JsonValue]) -> list[str]:
    """A warning per judge model that also generated the answers being judged."""
    named = payload.get("models")
    generator = str((named.get("llm") if isinstance(named, dict) else None) or "")
    generator_model = generator.split(":", 1)[1] if ":" in generator else generator
    models = [str(m) for m in _judge_models(payload) if m]
    if not generator_model or generator.startswith("none:"):
        return []
    return [
        f"judge model {m!r} is also the generator model: it judges its own answers, and models favour their "
        "own output, so this agreement may overstate how far the judge can be trusted; judge with another model"
        for m in models
        if m == generator_model
    ]


def calibrate(
    labels: Sequence[Label], scores: Sequence[EvalScore], payload: dict[str, JsonValue], run_id: str, bins: int = 3
) -> Calibration:
    """Match labels with the run's scores and compute agreement per judge and metric."""
    if bins < 2:
        raise KgragError("--bins must be at least 2")
    judged = _by_answer(scores)
    names = {s.metric for s in scores}
    trials: dict[tuple[str, str], set[int]] = defaultdict(set)
    for trial, question, pipeline, _ in judged:
        trials[(question, pipeline)].add(trial)
    judge_models = [str(m) for m in _judge_models(payload)]
    pairs: dict[tuple[str, str], tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    unmatched = 0
    for label in labels:
        trial = _trial_of(label, trials, run_id)
        if label.metric not in names:
            known = ", ".join(sorted(n for n in names if not n.startswith("cost."))[:8])
            raise KgragError(f"{label.where or 'label'}: run {run_id} has no score {label.metric!r} (it has {known})")
        series = [label.metric, *sorted(n for n in names if n.startswith(label.metric + ".") and "judge." in n)]
        matched = False
        for name in series:
            value = judged.get((trial, label.question_id, label.pipeline, name))
            if value is None:
                continue
            matched = True
            human, machine = pairs[(_judge_of(name, label.metric, judge_models), label.metric)]
            human.append(label.human)
            machine.append(value)
        unmatched += not matched
    rows = [agreement(judge, metric, h, m, bins) for (judge, metric), (h, m) in sorted(pairs.items())]
    warnings = self_judging_warnings(payload)
    if unmatched:
        warnings.append(
            f"{unmatched} of {len(labels)} labels are of answers whose score is unmeasured in run {run_id} "
            "(a failed judge call, or a metric that does not apply): they are left out"
        )
    return Calibration(run_id, len(labels), unmatched, rows, warnings)


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def render_markdown(result: Calibration) -> str:
    """The report as markdown: warnings first, then one row per judge and metric."""
    lines = [f"# Judge calibration: run {result.run_id}", ""]
    lines += [f"> **Warning:** {w}" for w in result.warnings]
    if result.warnings:
        lines.append("")
    lines += [
        f"{result.labels} human labels, {result.unmatched} of answers whose score is unmeasured.",
        "",
        "| judge | metric | n | scale | Cohen's κ | Spearman ρ | note |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    lines += [
        f"| {r.judge} | {r.metric} | {r.n} | {r.scale} | {_fmt(r.kappa)} | {_fmt(r.spearman)} | {r.note} |"
        for r in result.rows
    ]
    return "\n".join(lines) + "\n"


def write_report(result: Calibration, out_dir: Path) -> dict[str, Path]:
    """``calibration-<run>.md`` and ``.json`` in ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    md = out_dir / f"calibration-{result.run_id}.md"
    js = out_dir / f"calibration-{result.run_id}.json"
    md.write_text(render_markdown(result), encoding="utf-8")
    js.write_text(json.dumps(result.to_dict(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return {"markdown": md, "json": js}


def rejudge_plan(labels: Sequence[Label]) -> tuple[list[str], list[str], list[str], RunMode]:
    """What to run again to re-judge the labelled items: pipelines, metric names, judge names, mode."""
    pipelines = sorted({label.pipeline for label in labels})
    metrics: list[str] = []
    judges: list[str] = []
    modes: set[str] = set()  # "llm" and/or "llm-free"
    for name in sorted({label.metric for label in labels}):
        if name.startswith("judge.panel"):
            judges.append("panel")
        elif name.startswith("judge."):
            judges.append("dimensions")
        else:
            base = name.removesuffix(":llm")
            modes.add("llm" if name.endswith(":llm") else "llm-free")
            metrics.append(base)
    if not metrics:  # judges only: the cheapest deterministic metric keeps the run from scoring all six
        return pipelines, ["rouge-l"], list(dict.fromkeys(judges)), "llm-free"
    mode: RunMode = "both" if len(modes) == 2 else ("llm" if "llm" in modes else "llm-free")
    return pipelines, list(dict.fromkeys(metrics)), list(dict.fromkeys(judges)), mode
