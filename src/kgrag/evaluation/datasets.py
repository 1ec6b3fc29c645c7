"""QA datasets: GraphRAG-Bench format (question, answer, question_type, evidence) and plain jsonl.

Both load into :class:`QAItem`; evidence may be a list of sentences or a single string in the wild,
and is normalised to a list. Records may carry fields of their own (``source``, ``evidence_relations``,
a generator's ``chunk_ids``), but a field one letter away from a field kgrag reads (``evidance``,
``question_typ``) is refused: read as an extra field, the question would silently lose its evidence or its
type. Ids must be unique, since scores, paired differences and stored answers are keyed by them. Question
types spelled apart only by case, spaces, hyphens or underscores (``Fact retrieval``) are one type, under
the spelling most of its questions use.
"""

from __future__ import annotations

import difflib
import re
from collections import Counter
from dataclasses import dataclass, field, replace
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


READ_FIELDS = ("id", "question", "answer", "question_type", "type", "evidence")
"""The record fields kgrag reads; any other field is kept out of the item and ignored."""
_CHECKED_FIELDS = [name for name in READ_FIELDS if len(name) > 2]
"""The fields a misspelling is looked for: ``id`` is too short to tell a typo from a field of its own (``qid``)."""


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
    _check_fields(record, position, origin)
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
    return _one_spelling_per_type(_unique_ids([_item(r, i, origin) for i, r in enumerate(records)], origin))


def _check_fields(record: dict[str, Any], position: int, origin: str) -> None:
    """Refuse a field that is a misspelling of a field kgrag reads and the record lacks."""
    for key in record:
        if key in READ_FIELDS:
            continue
        close = difflib.get_close_matches(str(key), _CHECKED_FIELDS, n=1, cutoff=0.8)
        if close and close[0] not in record:
            label = f"record {position}" + (f" (id {record['id']})" if "id" in record else "")
            raise KgragError(
                f"{origin}: {label} has a field {key!r}, not {close[0]!r}: rename it (kgrag reads "
                f"{', '.join(READ_FIELDS)}; other fields are ignored)"
            )


def _unique_ids(items: list[QAItem], origin: str) -> list[QAItem]:
    """``items``, or an error naming the first id two records share."""
    first: dict[str, int] = {}
    for position, item in enumerate(items):
        if item.id in first:
            raise KgragError(
                f"{origin}: records {first[item.id]} and {position} share the id {item.id!r}; give every question "
                "its own id (scores and answers are kept per id)"
            )
        first[item.id] = position
    return items


_TYPE_SPELLING = re.compile(r"[\s_-]+")


def _type_key(kind: str) -> str:
    """A question type as spellings of it compare: case-folded, runs of spaces, hyphens and underscores one space."""
    return _TYPE_SPELLING.sub(" ", kind).strip().casefold()


def _one_spelling_per_type(items: list[QAItem]) -> list[QAItem]:
    """Question types that differ only in case, spaces, hyphens or underscores, under their commonest
    spelling (the first seen among equals)."""
    spelling: dict[str, str] = {}
    for kind, _ in Counter(item.question_type for item in items).most_common():
        spelling.setdefault(_type_key(kind), kind)
    return [replace(item, question_type=spelling[_type_key(item.question_type)]) for item in items]
