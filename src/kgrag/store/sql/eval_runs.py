"""Evaluation runs as two tables of the workspace database, so ``kgrag eval report`` can compare runs
made days apart without re-running anything."""

from __future__ import annotations

import json
from collections.abc import Sequence

from kgrag.core.eval_records import EvalRunRecord, EvalScore, EvalTrace
from kgrag.store.sql.database import Row, SqlDatabase

_SCORE_COLUMNS = "run_id, run_index, pipeline, question_id, question_type, metric, value, note"
_RUN_COLUMNS = "id, kind, created_at, dataset, label, payload"
_TRACE_COLUMNS = "run_id, run_index, pipeline, question_id, record"


class SqlEvalRuns:
    """The ``eval_runs``/``eval_scores``/``eval_traces`` tables; writes are bookkeeping (no hot-index reload)."""

    def __init__(self, db: SqlDatabase) -> None:
        self._db = db

    def save(self, run: EvalRunRecord, scores: Sequence[EvalScore], traces: Sequence[EvalTrace] = ()) -> None:
        with self._db.transaction(content=False):
            self._db.execute("DELETE FROM eval_traces WHERE run_id = ?", (run.id,))
            self._db.execute("DELETE FROM eval_runs WHERE id = ?", (run.id,))
            self._db.execute(
                f"INSERT INTO eval_runs ({_RUN_COLUMNS}) VALUES (?,?,?,?,?,?)",
                (run.id, run.kind, run.created_at, run.dataset, run.label, json.dumps(run.payload)),
            )
            self._db.executemany(
                f"INSERT INTO eval_scores ({_SCORE_COLUMNS}) VALUES (?,?,?,?,?,?,?,?)",
                [
                    (run.id, s.run_index, s.pipeline, s.question_id, s.question_type, s.metric, s.value, s.note)
                    for s in scores
                ],
            )
            self._db.executemany(
                f"INSERT INTO eval_traces ({_TRACE_COLUMNS}) VALUES (?,?,?,?,?)",
                [(run.id, t.run_index, t.pipeline, t.question_id, json.dumps(t.record)) for t in traces],
            )

    def get(self, run_id: str) -> EvalRunRecord | None:
        rows = self._db.query(f"SELECT {_RUN_COLUMNS} FROM eval_runs WHERE id = ?", (run_id,))
        return _run(rows[0]) if rows else None

    def runs(self, kind: str | None = None) -> list[EvalRunRecord]:
        where, params = (" WHERE kind = ?", (kind,)) if kind is not None else ("", ())
        rows = self._db.query(f"SELECT {_RUN_COLUMNS} FROM eval_runs{where} ORDER BY created_at DESC, id DESC", params)
        return [_run(row) for row in rows]

    def scores(self, run_id: str) -> list[EvalScore]:
        """Scores in the order they were saved (``rowid``: SQLite's own, an identity column in PostgreSQL)."""
        rows = self._db.query(f"SELECT {_SCORE_COLUMNS} FROM eval_scores WHERE run_id = ? ORDER BY rowid", (run_id,))
        return [
            EvalScore(r[0], int(r[1]), r[2], r[3], r[4], r[5], None if r[6] is None else float(r[6]), r[7])
            for r in rows
        ]

    def traces(self, run_id: str, question_id: str | None = None) -> list[EvalTrace]:
        """Provenance rows in the order they were saved, all of the run's or one question's."""
        where, params = ("run_id = ?", (run_id,)) if question_id is None else (
            "run_id = ? AND question_id = ?", (run_id, question_id)
        )  # fmt: skip
        rows = self._db.query(f"SELECT {_TRACE_COLUMNS} FROM eval_traces WHERE {where} ORDER BY rowid", params)
        return [EvalTrace(str(r[0]), int(r[1]), str(r[2]), str(r[3]), json.loads(str(r[4]))) for r in rows]

    def delete(self, run_id: str) -> bool:
        with self._db.transaction(content=False):
            self._db.execute("DELETE FROM eval_traces WHERE run_id = ?", (run_id,))
            existed = self._db.scalar("SELECT COUNT(*) FROM eval_runs WHERE id = ?", (run_id,))
            self._db.execute("DELETE FROM eval_runs WHERE id = ?", (run_id,))
        return bool(existed)


def _run(row: Row) -> EvalRunRecord:
    payload = json.loads(str(row[5]))
    return EvalRunRecord(str(row[0]), str(row[1]), float(str(row[2])), str(row[3]), str(row[4]), payload)
