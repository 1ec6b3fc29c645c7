"""QA datasets: GraphRAG-Bench format (question, answer, question_type, evidence) and plain jsonl.

Both load into :class:`QAItem`; evidence may be a list of sentences or a single string in the wild,
and is normalised to a list.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kgrag.core.errors import KgragError
from kgrag.fileio import parse_json, read_regular_text

DEFAULT_TYPE = "Unspecified"
LLM_FREE_KINDS = ("known-item", "two-chunk")
"""The question types the LLM-free generator writes (:mod:`kgrag.evaluation.qgen.known_item`); a set that
holds them was generated, not written by people."""
LLM_KINDS = ("node", "edge", "subgraph", "answer-given", "single-fact", "multi-fact")
"""The question types an LLM writes with ``kgrag eval qgen`` (:mod:`kgrag.evaluation.qgen.generate`)."""


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
    raw = read_regular_text(path)  # not /dev/zero, not a FIFO: a clear error instead of a hang
    origin = str(path)
    if path.suffix == ".jsonl":
        records = [
            parse_json(line, f"{origin}:{line_no}")
            for line_no, line in enumerate(raw.splitlines(), start=1)
            if line.strip()
        ]
    else:
        data = parse_json(raw, origin)
        records = data if isinstance(data, list) else data.get("questions", []) if isinstance(data, dict) else []
    if not records:
        raise KgragError(f"{origin}: no questions found (expected a list of objects with a `question` field)")
    return [_item(r, i, origin) for i, r in enumerate(records)]
