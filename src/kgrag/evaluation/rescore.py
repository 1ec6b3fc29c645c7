"""``kgrag eval rescore EXPORT``: every score of a run computed again from its export alone.

The export (:func:`kgrag.evaluation.provenance.write_jsonl`) opens with a ``run`` line (the plan, the
judge set-up and the settings every metric read) and holds one ``answer`` line per answer with what each
metric used: the question, reference, answer, context items, the dataset's evidence, every semantic
similarity the metrics asked for (the two texts and their cosine) and every judge call with its raw
reply, plus the scores the run stored. Rescoring runs the same metric and judge code on those inputs,
with the recorded cosines in place of the embedder and the recorded replies in place of the judge
(:class:`ReplayClient`), and compares each score with the stored one. Cost scores are measurements of
the run (latency, tokens spent), not functions of the inputs: they are carried over, not recomputed.

A similarity or judge call the export does not hold (a metric changed since the run, an export written
before these fields existed) is an error naming the answer, never a silently different score.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, JsonValue

from kgrag.config import LLMConfig
from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalScore
from kgrag.core.llm_types import StructuredResult, Usage
from kgrag.evaluation.judges.base import JudgeSetup, judge_registry
from kgrag.evaluation.metrics.base import Measured, MetricTools, Sample, metric_registry
from kgrag.evaluation.provenance import EXPORT_VERSION
from kgrag.evaluation.runner import LLM_SUFFIX
from kgrag.evaluation.session import pick
from kgrag.models.llm import LLMClient, ProviderError, create_llm_client

if TYPE_CHECKING:
    from kgrag.prompts.loader import Prompt

M = TypeVar("M", bound=BaseModel)


class ExportError(KgragError):
    """The export lacks an input a metric needs."""


def _key(prompt: str, variables: Mapping[str, object], seed: object, temperature: object) -> str:
    flat = {k: v if isinstance(v, str | int | float) else str(v) for k, v in variables.items()}
    heat = float(temperature) if isinstance(temperature, int | float) else 0.0
    return json.dumps([prompt, flat, seed, heat], sort_keys=True, ensure_ascii=False)


class ReplayClient(LLMClient):
    """A judge that answers each structured request with the reply recorded for the same prompt,
    variables, seed and temperature (in recorded order when the same request was made twice); a call
    that failed in the run fails again. Built on a real client, so prompts and versions resolve as
    they did; checked against :class:`~kgrag.evaluation.judge_client.JudgeClient` where the metrics and
    judges take it."""

    def __init__(self, base: LLMClient, calls: Sequence[Mapping[str, Any]], where: str) -> None:
        super().__init__(base.runner, base.settings)
        self._where = where
        self._calls: dict[str, list[Mapping[str, Any]]] = {}
        for call in calls:
            key = _key(str(call["prompt"]), call.get("variables") or {}, call.get("seed"), call.get("temperature"))
            self._calls.setdefault(key, []).append(call)

    @property
    def available(self) -> bool:
        return True

    def structured(
        self,
        prompt: str | Prompt,
        variables: Mapping[str, object],
        schema_model: type[M] | None = None,
        *,
        stage: str,
        **params: Any,
    ) -> StructuredResult[M]:
        name = prompt if isinstance(prompt, str) else prompt.name
        queue = self._calls.get(_key(name, variables, params.get("seed"), params.get("temperature")))
        if not queue:
            raise ExportError(f"{self._where}: the export holds no reply of {self.settings.model} to {name}")
        call = queue.pop(0)
        note = str(call.get("note") or "")
        if note.startswith("judge call failed"):
            raise ProviderError(note.removeprefix("judge call failed: "), retryable=False)
        usage = Usage(int(call.get("prompt_tokens") or 0), int(call.get("completion_tokens") or 0))
        reply = call.get("reply")
        if reply is None or schema_model is None:
            return StructuredResult(None, note.removeprefix("judge reply unusable: ") or "no reply", usage)
        return StructuredResult(schema_model.model_validate(reply), None, usage, str(call.get("raw") or ""))


def replayed_similarity(pairs: Sequence[Mapping[str, Any]], where: str) -> Callable[[str, str], float]:
    """The similarity a run recorded for each pair of texts."""
    known = {(str(p["a"]), str(p["b"])): float(p["cosine"]) for p in pairs}

    def similarity(a: str, b: str) -> float:
        if (a, b) not in known:
            raise ExportError(f"{where}: the export holds no similarity for this answer and reference")
        return known[(a, b)]

    return similarity


@dataclass(frozen=True)
class Export:
    """An export read back: its run line and its answer lines, as the file holds them (a user's file:
    each field is checked where a metric reads it)."""

    run: dict[str, JsonValue]
    answers: list[dict[str, JsonValue]]


def read_export(path: Path) -> Export:
    """The export at ``path``; one error line when it is not a rescorable export."""
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        rows = [json.loads(line) for line in lines]
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise KgragError(f"{path}: cannot read the export ({exc.__class__.__name__})") from None
    if not rows or not isinstance(rows[0], dict) or rows[0].get("kind") != "run":
        raise KgragError(f"{path}: no run line; export the run again with `kgrag eval export RUN --jsonl FILE`")
    if int(rows[0].get("export_version") or 0) < EXPORT_VERSION:
        raise KgragError(f"{path}: written by an older kgrag without the inputs metrics used; export it again")
    return Export(rows[0], [r for r in rows[1:] if isinstance(r, dict) and r.get("kind") == "answer"])


def _judge_clients(run: Mapping[str, Any], row: Mapping[str, Any], where: str) -> tuple[ReplayClient, ...]:
    models = [str(m) for m in (run.get("judge") or {}).get("models") or []] or ["judge"]
    calls = row.get("judge_calls") or []
    return tuple(
        ReplayClient(
            create_llm_client(LLMConfig(provider="scripted", model=model)),
            [c for c in calls if c.get("model") == model],
            where,
        )
        for model in models
    )


def rescore_answer(run: Mapping[str, Any], row: Mapping[str, Any]) -> dict[str, Measured]:
    """Every metric and judge score of one exported answer, computed again from its inputs."""
    plan, settings = run.get("plan") or {}, run.get("settings") or {}
    where = str(row.get("answer_id") or row.get("question_id"))
    contexts = [str(c.get("text", "")) for c in row.get("contexts") or []]
    sample = Sample(
        str(row.get("question", "")),
        str(row.get("reference", "")),
        str(row.get("answer", "")),
        contexts,
        [str(e) for e in row.get("evidence") or []],
        str(row.get("question_type", "")),
    )
    seed = int(row.get("run", 0))
    clients = _judge_clients(run, row, where)
    temperature = float((run.get("judge") or {}).get("temperature") or settings.get("judge_temperature") or 0.0)
    tools = MetricTools(
        similarity=replayed_similarity(row.get("similarities") or [], where),
        judge=clients[0] if run.get("judge") else None,
        evidence_overlap=float(settings.get("evidence_overlap", 0.7)),
        temperature=temperature,
        seed=seed,
        settings=settings.get("metrics") or {},  # plain tables: settings_of reads dicts
    )
    mode = str(plan.get("mode", "llm-free"))
    scores: dict[str, Measured] = {}
    for name, metric in pick(metric_registry(), plan.get("metrics") or [], "metric").items():
        if mode in ("llm-free", "both"):
            scores[name] = metric.llm_free(sample, tools)
        if mode in ("llm", "both"):
            scores[name + LLM_SUFFIX] = metric.judged(sample, tools)
    setup = JudgeSetup(clients, temperature, seed, settings.get("judges") or {})
    for judge in pick(judge_registry(), plan.get("judges") or [], "judge").values():
        scores.update(judge.score(sample, setup))
    return scores


@dataclass(frozen=True)
class Rescored:
    """The recomputed scores (with the carried-over costs) and, per score series, how many values were
    compared and how many differ from the stored ones."""

    scores: list[EvalScore]
    series: dict[str, tuple[int, int]]
    differences: list[str]

    @property
    def exact(self) -> bool:
        return not self.differences


def _same(a: float | None, b: float | None) -> bool:
    return a == b or (a is not None and b is not None and abs(a - b) <= 1e-12)


def _stored_scores(row: dict[str, JsonValue]) -> dict[str, tuple[float | None, str]]:
    """score name → (stored value, note) of one exported answer."""
    where = str(row.get("answer_id") or row.get("question_id"))
    scores = row.get("scores") or {}
    if not isinstance(scores, dict):
        raise ExportError(f"{where}: the export's scores are not an object of score name → value and note")
    out: dict[str, tuple[float | None, str]] = {}
    for name, stored in scores.items():
        value = stored.get("value") if isinstance(stored, dict) else "?"
        if not isinstance(stored, dict) or not (value is None or isinstance(value, int | float)):
            raise ExportError(f"{where}: stored score {name!r} is not {{value: number or null, note}}")
        out[name] = (value, str(stored.get("note") or ""))
    return out


def rescore(export: Export) -> Rescored:
    """All answers rescored and compared with the export's stored scores."""
    run_id = str(export.run.get("run_id", ""))
    out: list[EvalScore] = []
    series: dict[str, list[int]] = {}
    differences: list[str] = []
    for row in export.answers:
        stored = _stored_scores(row)
        fresh = rescore_answer(export.run, row)
        for name, (value, note) in stored.items():
            if not name.startswith("cost."):
                counts = series.setdefault(name, [0, 0])
                counts[0] += 1
                new = fresh.get(name)
                if new is None or not _same(new.value, value):
                    counts[1] += 1
                    got = "missing" if new is None else new.value
                    differences.append(f"{row.get('answer_id')}: {name} stored {value}, rescored {got}")
                    value = None if new is None else new.value
            out.append(
                EvalScore(
                    run_id,
                    int(str(row.get("run", 0))),
                    str(row.get("pipeline")),
                    str(row.get("question_id")),
                    str(row.get("question_type", "")),
                    name,
                    value,
                    note,
                )
            )
    return Rescored(out, {k: (v[0], v[1]) for k, v in sorted(series.items())}, differences)
