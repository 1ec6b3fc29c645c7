"""What a run's numbers rest on: which sources of variation the spread over runs covers, and the stored
traces (answers, context items, judge requests and replies) shown per question or exported as JSONL."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TypedDict

from pydantic import JsonValue

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import EvalRunRecord, EvalScore, EvalTrace, answer_id
from kgrag.evaluation.judges.call import JudgeCall

TEXT_PREVIEW = 400  # characters of a context item shown in the per-question view (the JSONL keeps all)


def _llm_answers(traces: Sequence[EvalTrace]) -> list[EvalTrace]:
    return [t for t in traces if t.record.get("answer_mode") == "llm"]


class AnswerCounts(TypedDict):
    """Answers in a run, answers the LLM wrote and how many of those the cache replayed."""

    answers: int
    llm_answers: int
    replayed_from_cache: int


def answer_counts(traces: Sequence[EvalTrace]) -> AnswerCounts:
    """Answers in total, answers the LLM wrote, and how many of those were replayed from the cache."""
    llm = _llm_answers(traces)
    cached = sum(1 for t in llm if (t.record.get("usage") or {}).get("cached"))
    return {"answers": len(traces), "llm_answers": len(llm), "replayed_from_cache": cached}


def variation(runs: int, reuse_answers: bool, traces: Sequence[EvalTrace], judge_temperature: float | None) -> str:
    """One sentence for the report: what the ± over runs covers."""
    if runs < 2:
        return "one run: there is no spread over runs (the intervals are over questions)"
    sources = []
    if _llm_answers(traces) and not reuse_answers:
        sources.append("generation (each run writes its own answers)")
    if any(t.record.get("judge_calls") for t in traces):
        sources.append(f"judging (temperature {judge_temperature}, a new seed per run)")
    if not sources:
        why = "answers replayed from the cache" if reuse_answers and _llm_answers(traces) else "LLM-free answers"
        return f"nothing varies: runs are identical ({why}, no LLM judge)"
    return " and ".join(sources)


EXPORT_VERSION = 2


class RunLine(TypedDict):
    """The first line of an export: the run's plan, judge set-up, scoring settings, models and dataset,
    copied from its stored payload as they are."""

    kind: str
    export_version: int
    run_id: str
    plan: JsonValue
    judge: JsonValue
    settings: JsonValue
    models: JsonValue
    dataset: JsonValue
    questions: JsonValue


class StoredScore(TypedDict):
    """One score of an exported answer: its value (None when unmeasured) and why it is unmeasured."""

    value: float | None
    note: str


def _run_line(record: EvalRunRecord) -> RunLine:
    payload = record.payload
    return {
        "kind": "run",
        "export_version": EXPORT_VERSION,
        "run_id": record.id,
        "plan": payload.get("plan"),
        "judge": payload.get("judge"),
        "settings": payload.get("settings"),
        "models": payload.get("models"),
        "dataset": payload.get("dataset"),
        "questions": payload.get("questions"),
    }


def write_jsonl(
    traces: Sequence[EvalTrace], path: Path, run: EvalRunRecord | None = None, scores: Sequence[EvalScore] = ()
) -> int:
    """With ``run``, a first line for the run (plan, judge set-up, the settings the metrics read); then one
    JSON object per trace: its answer id (what human labels reference), run id, run index, pipeline,
    question id, the record and every score of that answer (``scores``: name → value and note). Returns
    the number of answers. Written to a temporary file first, so a failure never leaves half a file
    behind."""
    by_answer: dict[tuple[int, str, str], dict[str, StoredScore]] = {}
    for s in scores:
        by_answer.setdefault((s.run_index, s.pipeline, s.question_id), {})[s.metric] = {
            "value": s.value,
            "note": s.note,
        }
    tmp = path.with_name(path.name + ".part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tmp.open("w", encoding="utf-8") as out:
            if run is not None:
                out.write(json.dumps(_run_line(run), ensure_ascii=False) + "\n")
            for t in traces:
                row = {
                    "kind": "answer",
                    "answer_id": answer_id(t.run_id, t.question_id, t.pipeline, t.run_index),
                    "run_id": t.run_id,
                    "run": t.run_index,
                    "pipeline": t.pipeline,
                    "question_id": t.question_id,
                }
                answer_scores = by_answer.get((t.run_index, t.pipeline, t.question_id), {})
                out.write(json.dumps({**row, **t.record, "scores": answer_scores}, ensure_ascii=False) + "\n")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise KgragError(f"{path}: cannot write the export ({exc.strerror})") from exc
    return len(traces)


def _judge_lines(calls: Sequence[JudgeCall]) -> list[str]:
    lines = []
    for call in calls:
        reply = call.get("reply")
        reasoning = reply.get("reasoning") if isinstance(reply, dict) else None
        head = (
            f"- judge `{call.get('prompt')}` v{call.get('prompt_version')} ({call.get('model')}, "
            f"temperature {call.get('temperature')}, seed {call.get('seed')}; "
            f"{call.get('prompt_tokens')} + {call.get('completion_tokens')} tokens)"
        )
        lines.append(head)
        if reply is None:
            lines.append(f"  - unmeasured: {call.get('note')}")
            continue
        if reasoning:
            lines.append(f"  - reasoning: {_one_line(str(reasoning))}")
        lines.append(f"  - reply: `{json.dumps({k: v for k, v in reply.items() if k != 'reasoning'})}`")
    return lines


def _one_line(text: str, limit: int | None = None) -> str:
    flat = " ".join(text.split())
    return flat if limit is None or len(flat) <= limit else flat[: limit - 1] + "…"


def render_question(traces: Sequence[EvalTrace], question_id: str, scores: dict[tuple[int, str], str]) -> str:
    """Markdown for one question: reference, then per run and pipeline the answer, its scores, the
    context items and the judge calls with their reasoning."""
    if not traces:
        raise KgragError(f"no stored answers for question {question_id!r} in this run (see the JSONL export)")
    first = traces[0].record
    lines = [
        f"# Question `{question_id}` ({first.get('question_type', '?')})",
        "",
        f"**Question:** {_one_line(str(first.get('question', '')))}",
        "",
        f"**Reference:** {_one_line(str(first.get('reference', '')))}",
    ]
    for t in traces:
        rec = t.record
        lines += ["", f"## {t.pipeline}, run {t.run_index + 1} ({rec.get('answer_mode', '?')} answer)", ""]
        lines += [f"**Answer:** {_one_line(str(rec.get('answer', ''))) or '(empty)'}", ""]
        lines += [f"Scores: {scores.get((t.run_index, t.pipeline), '–')}", "", "Context:"]
        for i, item in enumerate(rec.get("contexts") or [], start=1):
            text = _one_line(str(item.get("text", "")), TEXT_PREVIEW)
            lines.append(f"{i}. `{item.get('kind')}:{item.get('id')}` (score {item.get('score'):.3g}) {text}")
        lines += _judge_lines(rec.get("judge_calls") or [])
    return "\n".join(lines) + "\n"
