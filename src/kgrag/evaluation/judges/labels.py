"""Human labels for ``kgrag eval calibrate``: a ``.csv`` (header row) or ``.jsonl`` file, one row per
labelled score.

A row names the answer it labels by ``answer_id`` (``run|question|pipeline|trial``, as ``kgrag eval
export`` writes it on every answer), ``metric`` (a score name as a run stores it: ``judge.panel``,
``judge.correctness``, ``coverage:llm``, ...) and ``human`` (the person's score on the same scale).
Rows without ``answer_id`` (the older format: ``question_id`` and ``pipeline``) still load; they are
matched only where the run holds a single answer per question and pipeline, since otherwise nothing
says which answer the person read.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import JsonValue

from kgrag.core.errors import KgragError
from kgrag.core.eval_records import parse_answer_id

FIELDS = ("answer_id", "metric", "human")
LEGACY = ("question_id", "pipeline")
_ALIASES = {"id": "question_id", "question": "question_id", "human_score": "human", "score": "human"}


@dataclass(frozen=True)
class Label:
    """One human score of one metric of one answer. ``run_id``/``run_index`` come from the answer id
    (empty / None for a row in the older format); ``where`` is the file and line, for errors."""

    question_id: str
    pipeline: str
    metric: str
    human: float
    run_id: str = ""
    run_index: int | None = None
    where: str = field(default="", compare=False)

    @property
    def keyed(self) -> bool:
        return self.run_index is not None


def _human(value: Any, where: str) -> float:
    try:
        human = float(value)
    except (TypeError, ValueError):
        raise KgragError(f"{where}: human score {value!r} is not a number") from None
    if not math.isfinite(human):
        raise KgragError(f"{where}: human score must be a finite number")
    return human


def _row_label(row: dict[str, JsonValue], where: str) -> Label:
    fields = {_ALIASES.get(str(k).strip().lower(), str(k).strip().lower()): v for k, v in row.items() if k}
    text = {k: str(v).strip() for k, v in fields.items() if v not in (None, "")}
    needed = ["metric", "human"] + ([] if "answer_id" in text else list(LEGACY))
    missing = [f for f in needed if f not in text]
    if missing:
        raise KgragError(
            f"{where}: missing {', '.join(missing)} (each label needs answer_id, metric and human; "
            "answer_id is on every answer of `kgrag eval export RUN --jsonl FILE`)"
        )
    human = _human(fields["human"], where)
    if "answer_id" not in text:
        return Label(text["question_id"], text["pipeline"], text["metric"], human, where=where)
    parsed = parse_answer_id(text["answer_id"])
    if parsed is None:
        raise KgragError(f"{where}: answer_id {text['answer_id']!r} is not run|question|pipeline|trial")
    run_id, question_id, pipeline, run_index = parsed
    for name, value in (("question_id", question_id), ("pipeline", pipeline)):
        if name in text and text[name] != value:
            raise KgragError(f"{where}: {name} {text[name]!r} is not the one in answer_id ({value!r})")
    return Label(question_id, pipeline, text["metric"], human, run_id, run_index, where)


def _jsonl_rows(text: str, path: Path) -> Iterable[tuple[dict[str, JsonValue], str]]:
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise KgragError(f"{path}:{number}: not a JSON object ({exc.__class__.__name__})") from None
        if not isinstance(row, dict):
            raise KgragError(f"{path}:{number}: each line must be a JSON object with {', '.join(FIELDS)}")
        yield row, f"{path}:{number}"


def _csv_rows(text: str, path: Path) -> Iterable[tuple[dict[str, JsonValue], str]]:
    reader = csv.DictReader(text.splitlines())
    for number, row in enumerate(reader, 2):
        if any(str(v or "").strip() for v in row.values()):
            yield row, f"{path}:{number}"


def load_labels(path: Path) -> list[Label]:
    """Labels from a ``.csv`` (header row) or ``.jsonl`` file; a bad row is one error naming its line."""
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl"):
        raise KgragError(f"labels file {path}: use a .csv (with a header) or .jsonl file")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise KgragError(f"labels file {path}: cannot read ({exc.__class__.__name__})") from None
    rows = _csv_rows(text, path) if suffix == ".csv" else _jsonl_rows(text, path)
    labels = [_row_label(row, where) for row, where in rows]
    if not labels:
        raise KgragError(f"labels file {path}: no labels (each row needs {', '.join(FIELDS)})")
    return labels


def labelled_run(labels: Iterable[Label], requested: str) -> str:
    """The run the labels' answer ids name (``requested`` when none is keyed); an error when they name
    several runs, or another run than one asked for by id."""
    runs = sorted({label.run_id for label in labels if label.keyed})
    if not runs:
        return requested
    if len(runs) > 1:
        named = ", ".join(runs)
        raise KgragError(f"the labels name answers of {len(runs)} runs ({named}): calibrate one run at a time")
    if requested not in ("latest", runs[0]):
        raise KgragError(f"--run {requested}: the labels name answers of run {runs[0]}; drop --run or name that run")
    return runs[0]
