"""Writing a generated question set in the dataset format `kgrag eval` reads: a GraphRAG-Bench JSON list
(``.json``, as ``examples/sample/questions.json``) or one record per line (``.jsonl``). The file is
written whole or not at all (a temporary file renamed into place)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import NotRequired, TypedDict

from kgrag.core.atomic_write import write_text_atomic
from kgrag.core.errors import KgragError
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.qgen.generate import ItemMeta, QGenResult

GENERATOR = "kgrag-qgen"
"""What every written question names as its ``generator``."""


class QuestionRecord(TypedDict):
    """One written question: the GraphRAG-Bench fields, then how it was made (:class:`ItemMeta`) and by
    which generator. ``source`` is the path of the document the question's first passage comes from, as
    the workspace stores it (what ``kgrag show`` prints; empty when that document is no longer indexed),
    so a reader can check the question against its page; ``sources`` lists every document, in passage
    order, when the passages come from more than one."""

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
    generator: str
    sources: NotRequired[list[str]]


def cited_chunks(result: QGenResult) -> list[str]:
    """Every passage the kept questions came from, in order, each once: what to look the documents up by."""
    ids = (cid for item in result.items if (meta := result.meta.get(item.id)) for cid in meta["chunk_ids"])
    return list(dict.fromkeys(ids))


def records(result: QGenResult, documents: Mapping[str, str]) -> list[QuestionRecord]:
    """One dataset record per kept question (``documents``: chunk id → its document's path)."""
    return [_record(item, result.meta.get(item.id), documents) for item in result.items]


def _record(item: QAItem, meta: ItemMeta | None, documents: Mapping[str, str]) -> QuestionRecord:
    paths = list(dict.fromkeys(documents.get(cid, "") for cid in (meta["chunk_ids"] if meta else [])))
    record: QuestionRecord = {
        "id": item.id,
        "source": paths[0] if paths else "",
        "question": item.question,
        "answer": item.answer,
        "question_type": item.question_type,
        "evidence": item.evidence,
        "generator": GENERATOR,
    }
    if len(paths) > 1:
        record["sources"] = paths
    if meta:
        record.update(meta)
    return record


def write_questions(path: Path, result: QGenResult, documents: Mapping[str, str]) -> None:
    """Write ``result``'s questions to ``path`` (``.json`` list or ``.jsonl`` lines); ``documents`` maps
    each of :func:`cited_chunks` to its document's path (``ws.documents.sources``)."""
    rows = records(result, documents)
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
