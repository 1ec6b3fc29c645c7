"""Per-question drill-down of a stored evaluation run, from what the workspace keeps of it.

Every run stores one score row per metric, question, pipeline and repeat (``ws.eval.get_run``): that gives
the question list (id, type) and each pipeline's scores. A workspace whose evaluation also stores
provenance (``ws.eval.traces``: the question, the reference, each answer, the context items handed to
the generator and the judges' replies) fills in the rest; a stored retrieval evaluation keeps its
questions and the ids each pipeline retrieved in the run's payload (``items``, ``retrieved``). Where
neither is there those fields are empty and ``provenance`` says so. Only plain JSON values leave this
module, and the trace record is read by key with defaults, so fields added to it later are shown as soon
as they are named here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from statistics import fmean
from typing import Any, Protocol

from pydantic import JsonValue
from typing_extensions import TypedDict

from kgrag.core.eval_records import EvalScore
from kgrag.evaluation.session import EvalRun
from kgrag.workspace import Workspace

MAX_CONTEXT_TEXT = 4000
"""Characters of one context item's text shown (a community report can be long)."""


class QuestionRow(TypedDict):
    """One question of a run: id, type, text (None where the run kept no provenance), its pipelines."""

    id: str
    type: str
    question: str | None
    pipelines: list[str]


class ContextRow(TypedDict):
    """One context item an answer was given (its text cut to :data:`MAX_CONTEXT_TEXT`)."""

    id: str
    kind: str
    text: str
    score: JsonValue


class PipelineAnswer(TypedDict):
    """One pipeline's answer to a question, its context, scores (means over repeats) and judges' calls."""

    answer: JsonValue
    citations: list[JsonValue]
    context: list[ContextRow]
    scores: dict[str, float | None]
    unmeasured: dict[str, str]
    judge_calls: list[JsonValue]
    runs: int


class QuestionDetail(TypedDict):
    """One question of a run with every pipeline's answer."""

    id: str
    question: JsonValue
    reference: JsonValue
    type: str
    evidence: list[str]
    provenance: bool
    pipelines: dict[str, PipelineAnswer]


class Trace(Protocol):
    """One stored answer's provenance: one question through one pipeline in one repeat."""

    run_index: int
    pipeline: str
    question_id: str
    record: dict[str, Any]


TraceReader = Callable[[str, str | None], Sequence[Trace]]


def trace_reader(ws: Workspace) -> TraceReader | None:
    """``ws.eval.traces`` where this kgrag stores provenance, else None."""
    reader = getattr(ws.eval, "traces", None)
    return reader if callable(reader) else None


def _traces(ws: Workspace, run_id: str, question_id: str | None) -> list[Trace]:
    reader = trace_reader(ws)
    return list(reader(run_id, question_id)) if reader is not None else []


def _items(run: EvalRun) -> dict[str, dict[str, Any]]:
    """The questions a run's payload keeps (retrieval evaluations do), by id."""
    items = run.record.payload.get("items")
    if not isinstance(items, list):
        return {}
    return {str(i["id"]): i for i in items if isinstance(i, dict) and "id" in i}


def questions(ws: Workspace, run: EvalRun) -> list[QuestionRow]:
    """The run's questions in first-seen order, ``{id, type, question, pipelines}`` each (``question`` is
    None where the run kept no provenance)."""
    found: dict[str, QuestionRow] = {}
    kept = _items(run)
    for score in run.scores:
        entry = found.setdefault(
            score.question_id, {"id": score.question_id, "type": score.question_type, "question": None, "pipelines": []}
        )
        if score.pipeline not in entry["pipelines"]:
            entry["pipelines"].append(score.pipeline)
    for qid, entry in found.items():
        entry["question"] = kept.get(qid, {}).get("question")
    traces = _traces(ws, run.record.id, None)
    for trace in traces:
        entry = found.setdefault(
            trace.question_id,
            {"id": trace.question_id, "type": trace.record.get("question_type", ""), "question": None, "pipelines": []},
        )
        entry["question"] = entry["question"] or trace.record.get("question")
    return list(found.values())


def _scores(rows: list[EvalScore]) -> tuple[dict[str, float | None], dict[str, str]]:
    """Metric → mean over the repeats that measured it (None: never measured), and metric → why not."""
    values: dict[str, list[float]] = defaultdict(list)
    notes: dict[str, str] = {}
    for row in rows:
        if row.value is None:
            notes.setdefault(row.metric, row.note or "unmeasured")
            values.setdefault(row.metric, [])
        else:
            values[row.metric].append(row.value)
    return {m: (fmean(v) if v else None) for m, v in sorted(values.items())}, notes


def _context(record: dict[str, Any]) -> list[ContextRow]:
    items = record.get("contexts") or []
    return [
        {
            "id": str(i.get("id", "")),
            "kind": str(i.get("kind", "")),
            "text": str(i.get("text", ""))[:MAX_CONTEXT_TEXT],
            "score": i.get("score"),
        }
        for i in items
        if isinstance(i, dict)
    ]


def _retrieved(ws: Workspace, ids: list[str]) -> list[ContextRow]:
    """Context items from the ids a retrieval evaluation kept: passages with their current text."""
    texts = {c.id: c.text for c in ws.documents.chunks(ids)}
    return [
        {"id": i, "kind": "chunk" if i in texts else "", "text": texts.get(i, "")[:MAX_CONTEXT_TEXT], "score": None}
        for i in ids
    ]


def question_detail(ws: Workspace, run: EvalRun, question_id: str) -> QuestionDetail | None:
    """One question of the run: its text, reference, type and evidence, and per pipeline the answer, the
    context, the judges' calls (first repeat) and every metric's mean over repeats; None when the run has
    no such question."""
    rows = [s for s in run.scores if s.question_id == question_id]
    traces = sorted(_traces(ws, run.record.id, question_id), key=lambda t: t.run_index)
    if not rows and not traces:
        return None
    kept = _items(run).get(question_id, {})
    retrieved = run.record.payload.get("retrieved", {}).get(question_id, {})
    first = traces[0].record if traces else {"question_type": kept.get("type", ""), **kept}
    by_pipeline: dict[str, list[EvalScore]] = defaultdict(list)
    for row in rows:
        by_pipeline[row.pipeline].append(row)
    names = list(dict.fromkeys([*by_pipeline, *(t.pipeline for t in traces)]))
    pipelines: dict[str, PipelineAnswer] = {}
    for name in names:
        mine = [t for t in traces if t.pipeline == name]
        record = mine[0].record if mine else {}
        means, notes = _scores(by_pipeline.get(name, []))
        pipelines[name] = {
            "answer": record.get("answer"),
            "citations": list(record.get("citations") or []),
            "context": _context(record) if mine else _retrieved(ws, list(retrieved.get(name, []))),
            "scores": means,
            "unmeasured": notes,
            "judge_calls": list(record.get("judge_calls") or []),
            "runs": len({r.run_index for r in by_pipeline.get(name, [])} | {t.run_index for t in mine}),
        }
    return {
        "id": question_id,
        "question": first.get("question"),
        "reference": first.get("reference"),
        "type": rows[0].question_type if rows else str(first.get("question_type", "")),
        "evidence": [str(e) for e in first.get("evidence") or []],
        "provenance": bool(traces or kept),
        "pipelines": pipelines,
    }
