"""The LLM usage ledger as a table of the workspace database: one row per logical call (attempts folded
in), so cost, retries and the cache hit rate survive the process and ``kgrag cost`` can show history.
``unit_key`` and ``call_role`` link a unit's calls (:class:`~kgrag.core.llm_usage.CallLink`); NULL on
rows written before the table had them."""

from __future__ import annotations

from typing import Any

from kgrag.core.llm_types import Prices
from kgrag.core.llm_usage import CallRecord, LedgerSummary, Totals, build_summary
from kgrag.store.sql.database import Row, SqlDatabase

_COLUMNS = (
    "run_id, stage, provider, model, prompt_name, prompt_version, prompt_tokens, completion_tokens, "
    "usage_source, latency_ms, cache_hit, estimated, attempts, attempt_errors, error, created_at, unit_key, call_role"
)
_INSERT = f"INSERT INTO llm_calls ({_COLUMNS}) VALUES ({', '.join(['?'] * 18)})"
# CASE rather than summing booleans: SQLite's comparisons are integers, PostgreSQL's are not
_SUMMARY = (
    "SELECT run_id, stage, COUNT(*), SUM(cache_hit), SUM(CASE WHEN error IS NOT NULL THEN 1 ELSE 0 END), "
    "SUM(attempts), SUM(estimated), SUM(prompt_tokens), SUM(completion_tokens), "
    "SUM(CASE WHEN cache_hit <> 0 THEN 0 ELSE prompt_tokens END), "
    "SUM(CASE WHEN cache_hit <> 0 THEN 0 ELSE completion_tokens END), SUM(latency_ms), "
    "SUM(CASE WHEN usage_source = 'batch' THEN 1 ELSE 0 END), "
    "SUM(CASE WHEN usage_source = 'distrusted' THEN 1 ELSE 0 END), "
    "SUM(CASE WHEN usage_source = 'loop' THEN 1 ELSE 0 END) "
    "FROM llm_calls {where} GROUP BY run_id, stage, CASE WHEN usage_source = 'batch' THEN 1 ELSE 0 END"
)


def _row_totals(r: Row) -> Totals:
    ints = [int(r[i] or 0) for i in range(2, 11)]
    return Totals(
        calls=ints[0],
        cache_hits=ints[1],
        errors=ints[2],
        attempts=ints[3],
        estimated_calls=ints[4],
        prompt_tokens=ints[5],
        completion_tokens=ints[6],
        billed_prompt_tokens=ints[7],
        billed_completion_tokens=ints[8],
        latency_ms=float(r[11] or 0.0),
        batch_calls=int(r[12] or 0),
        distrusted_calls=int(r[13] or 0),
        loop_calls=int(r[14] or 0),
    )


def _row_record(r: Row) -> CallRecord:
    return CallRecord(
        run_id=str(r[0]),
        stage=str(r[1]),
        provider=str(r[2]),
        model=str(r[3]),
        prompt_name=r[4],
        prompt_version=r[5],
        prompt_tokens=int(r[6]),
        completion_tokens=int(r[7]),
        usage_source=r[8],
        latency_ms=float(r[9]),
        cache_hit=bool(r[10]),
        estimated=bool(r[11]),
        attempts=int(r[12]),
        attempt_errors=tuple(e for e in str(r[13]).split(",") if e),
        error=r[14],
        created_at=float(r[15]),
        unit_key=r[16],
        call_role=r[17],
    )


def record_row(rec: CallRecord) -> tuple[Any, ...]:
    """A call record as the row :data:`_INSERT` writes (booleans as integers, errors comma-joined)."""
    return (
        rec.run_id,
        rec.stage,
        rec.provider,
        rec.model,
        rec.prompt_name,
        rec.prompt_version,
        rec.prompt_tokens,
        rec.completion_tokens,
        rec.usage_source,
        rec.latency_ms,
        int(rec.cache_hit),
        int(rec.estimated),
        rec.attempts,
        ",".join(rec.attempt_errors),
        rec.error,
        rec.created_at,
        rec.unit_key,
        rec.call_role,
    )


class SqlLedger:
    """The ``llm_calls`` table; summaries are one GROUP BY, so they stay cheap on long histories."""

    def __init__(self, db: SqlDatabase) -> None:
        self._db = db

    def record(self, rec: CallRecord) -> None:
        with self._db.transaction(content=False):
            self._db.execute(_INSERT, record_row(rec))

    def summary(self, run_id: str | None = None, prices: Prices | None = None) -> LedgerSummary:
        where, params = _of_run(run_id)
        rows = self._db.query(_SUMMARY.format(where=where), params)
        groups = ((str(r[0]), str(r[1]), _row_totals(r)) for r in rows)
        return build_summary(groups, prices)

    def run_ids(self) -> list[str]:
        """Runs in the order they first appeared."""
        rows = self._db.query("SELECT run_id, MIN(id) AS first FROM llm_calls GROUP BY run_id ORDER BY first")
        return [str(r[0]) for r in rows]

    def calls(self, run_id: str | None = None) -> list[CallRecord]:
        """The records themselves, oldest first (optionally of one run)."""
        where, params = _of_run(run_id)
        rows = self._db.query(f"SELECT {_COLUMNS} FROM llm_calls {where} ORDER BY id", params)
        return [_row_record(r) for r in rows]


def _of_run(run_id: str | None) -> tuple[str, tuple[str, ...]]:
    return ("WHERE run_id = ?", (run_id,)) if run_id is not None else ("", ())
