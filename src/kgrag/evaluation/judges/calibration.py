"""Judges you can trust: agreement between human labels and a run's judge (and metric) scores.

Labels are a small CSV (with a header) or JSONL file, one row per labelled score: ``question_id``,
``pipeline``, ``metric`` (a score name as a run stores it: ``judge.panel``, ``judge.correctness``,
``coverage:llm``, ``faithfulness@graphrag-bench:llm``, ...) and ``human`` (the person's score on the
same scale). Each label is matched with the run's score of the same question, pipeline and metric
(averaged over repeated runs); a panel label is also matched with each panel model's own score, so
every judge gets its own row.

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

import csv
import json
import math
import statistics
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalScore

Scale = Literal["categorical", "continuous"]
RunMode = Literal["llm-free", "llm", "both"]
MAX_CATEGORIES = 11
FIELDS = ("question_id", "pipeline", "metric", "human")
_ALIASES = {"id": "question_id", "question": "question_id", "human_score": "human", "score": "human"}


@dataclass(frozen=True)
class Label:
    """One human score of one metric for one question through one pipeline."""

    question_id: str
    pipeline: str
    metric: str
    human: float


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


@dataclass(frozen=True)
class Calibration:
    """The whole result: per-judge agreement rows, label counts and warnings."""

    run_id: str
    labels: int
    unmatched: int
    rows: list[Agreement]
    warnings: list[str]

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "labels": self.labels,
            "unmatched": self.unmatched,
            "warnings": self.warnings,
            "agreement": [asdict(row) for row in self.rows],
        }


def _row_label(row: dict[str, Any], where: str) -> Label:
    fields = {_ALIASES.get(str(k).strip().lower(), str(k).strip().lower()): v for k, v in row.items() if k}
    missing = [f for f in FIELDS if fields.get(f) in (None, "")]
    if missing:
        raise KgragError(f"{where}: missing {', '.join(missing)} (each label needs {', '.join(FIELDS)})")
    try:
        human = float(fields["human"])
    except (TypeError, ValueError):
        raise KgragError(f"{where}: human score {fields['human']!r} is not a number") from None
    if not math.isfinite(human):
        raise KgragError(f"{where}: human score must be a finite number")
    return Label(
        str(fields["question_id"]).strip(), str(fields["pipeline"]).strip(), str(fields["metric"]).strip(), human
    )


def _jsonl_rows(text: str, path: Path) -> Iterable[tuple[dict[str, Any], str]]:
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise KgragError(f"{path}:{number}: not a JSON object ({exc.__class__.__name__})") from None
        if not isinstance(row, dict):
            raise KgragError(f"{path}:{number}: each line must be a JSON object with {', '.join(FIELDS)}")
        yield row, f"{path}:{number}"


def _csv_rows(text: str, path: Path) -> Iterable[tuple[dict[str, Any], str]]:
    reader = csv.DictReader(text.splitlines())
    for number, row in enumerate(reader, 2):
        if any(str(v or "").strip() for v in row.values()):
            yield row, f"{path}:{number}"


def load_labels(path: Path) -> list[Label]:
    """Labels from a ``.csv`` (header row) or ``.jsonl`` file; a bad row is one error naming its line."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl"):
        raise KgragError(f"labels file {path}: use a .csv (with a header) or .jsonl file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise KgragError(f"labels file {path}: cannot read ({exc.__class__.__name__})") from None
    rows = _csv_rows(text, path) if suffix == ".csv" else _jsonl_rows(text, path)
    labels = [_row_label(row, where) for row, where in rows]
    if not labels:
        raise KgragError(f"labels file {path}: no labels (each row needs {', '.join(FIELDS)})")
    return labels


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


def _judged_means(scores: Iterable[EvalScore]) -> dict[tuple[str, str, str], float]:
    """(question, pipeline, metric) → mean of the measured values over repeated runs."""
    values: dict[tuple[str, str, str], list[float]] = defaultdict(list)
    for s in scores:
        if s.value is not None:
            values[(s.question_id, s.pipeline, s.metric)].append(s.value)
    return {key: statistics.fmean(v) for key, v in values.items()}


def _judge_of(score_name: str, label_metric: str, judge_models: Sequence[str]) -> str:
    if score_name != label_metric:
        return score_name.removeprefix(label_metric + ".")  # a panel model's own score
    if score_name.startswith("judge.panel"):
        return "panel mean (" + ", ".join(judge_models) + ")" if judge_models else "panel mean"
    if score_name.startswith("judge.") or score_name.endswith(":llm"):
        return judge_models[0] if judge_models else "judge"
    return "llm-free"


def self_judging_warnings(payload: dict[str, Any]) -> list[str]:
    """A warning per judge model that also generated the answers being judged."""
    generator = str((payload.get("models") or {}).get("llm") or "")
    generator_model = generator.split(":", 1)[1] if ":" in generator else generator
    judge = payload.get("judge") or {}
    models = [str(m) for m in judge.get("models") or [] if m]
    if not generator_model or generator.startswith("none:"):
        return []
    return [
        f"judge model {m!r} is also the generator model: it judges its own answers, and models favour their "
        "own output, so this agreement may overstate how far the judge can be trusted; judge with another model"
        for m in models
        if m == generator_model
    ]


def calibrate(
    labels: Sequence[Label], scores: Sequence[EvalScore], payload: dict[str, Any], run_id: str, bins: int = 3
) -> Calibration:
    """Match labels with the run's scores and compute agreement per judge and metric."""
    if bins < 2:
        raise KgragError("--bins must be at least 2")
    judged = _judged_means(scores)
    names = {s.metric for s in scores}
    judge_models = [str(m) for m in ((payload.get("judge") or {}).get("models") or [])]
    pairs: dict[tuple[str, str], tuple[list[float], list[float]]] = defaultdict(lambda: ([], []))
    unmatched = 0
    for label in labels:
        series = [label.metric, *sorted(n for n in names if n.startswith(label.metric + ".") and "judge." in n)]
        matched = False
        for name in series:
            value = judged.get((label.question_id, label.pipeline, name))
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
            f"{unmatched} of {len(labels)} labels match no measured score of run {run_id} "
            "(check question_id, pipeline and the metric name, e.g. coverage:llm or judge.panel)"
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
        f"{result.labels} human labels, {result.unmatched} without a matching score.",
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
