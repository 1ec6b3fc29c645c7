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
