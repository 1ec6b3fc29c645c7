"""QA datasets: GraphRAG-Bench format (question, answer, question_type, evidence) and plain jsonl.

Both load into :class:`QAItem`; evidence may be a list of sentences or a single string in the wild,
and is normalised to a list.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgrag.core.errors import KgragError

DEFAULT_TYPE = "Unspecified"


@dataclass(frozen=True)
class QAItem:
    """One evaluation question with its reference answer and evidence sentences."""

    id: str
    question: str
    answer: str
    question_type: str = DEFAULT_TYPE
    evidence: list[str] = field(default_factory=list)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value.strip() else []
    if isinstance(value, list):
        return [str(v) for v in value if str(v).strip()]
    return [str(value)]


def _item(record: Any, position: int, origin: str) -> QAItem:
    if not isinstance(record, dict):
        raise KgragError(f"{origin}: record {position} is not an object")
    question = record.get("question")
    if not isinstance(question, str) or not question.strip():
        raise KgragError(f"{origin}: record {position} has no `question` text")
    return QAItem(
        id=str(record.get("id", position)),
        question=question.strip(),
        answer=str(record.get("answer", "")),
        question_type=str(record.get("question_type") or record.get("type") or DEFAULT_TYPE),
        evidence=_as_list(record.get("evidence")),
    )


def load_dataset(path: Path | str) -> list[QAItem]:
    """Load a .json list (GraphRAG-Bench) or a .jsonl file of question records (``path``: str or Path)."""
    path = Path(path)
    try:
        raw = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise KgragError(f"{path}: cannot read dataset ({exc})") from exc
    origin = str(path)
    if path.suffix == ".jsonl":
        records = []
        for line_no, line in enumerate(raw.splitlines(), start=1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise KgragError(f"{origin}:{line_no}: not valid JSON ({exc.msg})") from exc
    else:
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise KgragError(f"{origin}: not valid JSON ({exc.msg} at line {exc.lineno})") from exc
        records = data if isinstance(data, list) else data.get("questions", []) if isinstance(data, dict) else []
    if not records:
        raise KgragError(f"{origin}: no questions found (expected a list of objects with a `question` field)")
    return [_item(r, i, origin) for i, r in enumerate(records)]
