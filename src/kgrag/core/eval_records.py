"""What the store keeps of an evaluation run: a header with the whole report, and one row per score.

They live in ``core`` so the store can persist them without importing the evaluation layer. A score is
``value=None`` with a ``note`` when it could not be measured (a judge call that failed, a question
without evidence): it is stored and reported as *unmeasured*, never as 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class EvalRunRecord:
    """One stored evaluation: ``kind`` is ``run`` (metrics per pipeline) or ``pairwise``; ``payload`` is
    the full JSON report (settings, judge models and prompts, summaries), so later comparisons need
    nothing else."""

    id: str
    kind: str
    created_at: float
    dataset: str
    label: str = ""
    payload: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class EvalScore:
    """One metric of one question through one pipeline in one repeated run."""

    run_id: str
    run_index: int
    pipeline: str
    question_id: str
    question_type: str
    metric: str
    value: float | None
    note: str = ""


@dataclass(frozen=True)
class EvalTrace:
    """What one score row rests on, kept so a published number can be audited: for one question through
    one pipeline in one run, ``record`` holds the question and reference, the answer, the context items
    handed to the generator (ids, kind, text, score), the answer call's usage and every judge request and
    reply with its reasoning (plain JSON values only)."""

    run_id: str
    run_index: int
    pipeline: str
    question_id: str
    record: dict[str, Any] = field(default_factory=dict)


ANSWER_ID_SEPARATOR = "|"


def answer_id(run_id: str, question_id: str, pipeline: str, run_index: int) -> str:
    """The stable id of one answer: ``run|question|pipeline|trial``. Exports carry it and human labels
    reference it, so a label is compared with the scores of the very answer the person read."""
    return ANSWER_ID_SEPARATOR.join((run_id, question_id, pipeline, str(run_index)))


def parse_answer_id(value: str) -> tuple[str, str, str, int] | None:
    """``(run_id, question_id, pipeline, run_index)`` of an :func:`answer_id`, or None if it is not one
    (a question id may itself contain the separator; run ids, pipeline names and trials do not)."""
    run_id, _, rest = value.strip().partition(ANSWER_ID_SEPARATOR)
    parts = rest.rsplit(ANSWER_ID_SEPARATOR, 2)
    if not run_id or len(parts) != 3 or not all(parts) or not parts[2].isdigit():
        return None
    return run_id, parts[0], parts[1], int(parts[2])
