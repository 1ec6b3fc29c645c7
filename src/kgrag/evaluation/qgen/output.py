"""Writing a generated question set in the dataset format `kgrag eval` reads: a GraphRAG-Bench JSON list
(``.json``, as ``examples/sample/questions.json``) or one record per line (``.jsonl``). The file is
written whole or not at all (a temporary file renamed into place)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NotRequired, TypedDict

from kgrag.core.atomic_write import write_text_atomic
from kgrag.core.errors import KgragError
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.qgen.generate import ItemMeta, QGenResult


class QuestionRecord(TypedDict):
    """One written question: the GraphRAG-Bench fields, then how it was made (:class:`ItemMeta`)."""

    id: str
    source: str
    question: str
    answer: str
    question_type: str
    evidence: list[str]
    chunk_ids: NotRequired[list[str]]
    answer_label: NotRequired[str]
    template: NotRequired[str]
    quality: NotRequired[float]
    headings: NotRequired[list[str]]
    usability: NotRequired[float]


def records(result: QGenResult, source: str) -> list[QuestionRecord]:
    """One dataset record per kept question: the GraphRAG-Bench fields, then how it was made."""
    return [_record(item, source, result.meta.get(item.id)) for item in result.items]


def _record(item: QAItem, source: str, meta: ItemMeta | None) -> QuestionRecord:
    record: QuestionRecord = {
        "id": item.id,
        "source": source,
        "question": item.question,
        "answer": item.answer,
        "question_type": item.question_type,
        "evidence": item.evidence,
    }
    if meta:
        record.update(meta)
    return record


def write_questions(path: Path, result: QGenResult, source: str) -> None:
    """Write ``result``'s questions to ``path`` (``.json`` list or ``.jsonl`` lines)."""
    rows = records(result, source)
    if path.suffix == ".json":
        text = json.dumps(rows, indent=1, ensure_ascii=False) + "\n"
    elif path.suffix == ".jsonl":
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    else:
        raise KgragError(f"{path}: the question file must end in .json (a list) or .jsonl (one per line)")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, text)
    except OSError as exc:
        raise KgragError(f"{path}: cannot write the questions ({exc.strerror or exc})") from exc
