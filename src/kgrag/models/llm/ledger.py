"""The usage ledger: one row per logical LLM call, summarised per stage and per run.

Every call is recorded, cache hits and estimates included, so ``kgrag status`` can show the hit rate
and an evaluation can split tokens by stage (``index.extract``, ``query.generate``...). Rows hold tokens,
not money: cost is computed at summary time from the prices passed in, so a price change re-prices history.
Token totals count every call (a cached call still had that size, which is what per-question cost
comparisons need); ``billed_*`` tokens and the cost leave cache hits out.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from kgrag.core.llm_types import Prices, UsageSource
from kgrag.store.sqlite.database import Database


@dataclass(frozen=True)
class CallRecord:
    """One logical call: ``attempts`` counts HTTP attempts, ``attempt_errors`` lists why retries happened."""

    run_id: str
    stage: str
    provider: str
    model: str
    prompt_tokens: int
    completion_tokens: int
    usage_source: UsageSource
    latency_ms: float
    cache_hit: bool
    attempts: int
    prompt_name: str | None = None
    prompt_version: str | None = None
    estimated: bool = False
    attempt_errors: tuple[str, ...] = ()
    error: str | None = None
    created_at: float = 0.0


@dataclass(frozen=True)
class Totals:
    """Aggregated calls of one stage, one run, or everything."""

    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    attempts: int = 0
    estimated_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    billed_prompt_tokens: int = 0
    billed_completion_tokens: int = 0
    latency_ms: float = 0.0
    cost_usd: float = 0.0

    @property
    def retries(self) -> int:
        """Attempts beyond the first of each call that reached the provider."""
        sent = self.calls - self.cache_hits
        return max(0, self.attempts - sent)

    @property
    def hit_rate(self) -> float:
        return self.cache_hits / self.calls if self.calls else 0.0

    def __add__(self, other: Totals) -> Totals:
        return Totals(*(getattr(self, name) + getattr(other, name) for name in self.__dataclass_fields__))


@dataclass(frozen=True)
class LedgerSummary:
    """Totals overall, per stage and per run, priced with the given :class:`Prices`."""

    total: Totals
    by_stage: dict[str, Totals] = field(default_factory=dict)
    by_run: dict[str, Totals] = field(default_factory=dict)

    def lines(self) -> list[str]:
        """Human-readable lines for the CLI: one per stage, then the total."""
        out = [f"{stage}: {_line(t)}" for stage, t in sorted(self.by_stage.items())]
        out.append(f"total: {_line(self.total)}")
        return out


def _line(t: Totals) -> str:
    return (
        f"{t.calls} calls ({t.cache_hits} cached, {t.retries} retries, {t.errors} errors), "
        f"{t.prompt_tokens} prompt + {t.completion_tokens} completion tokens, ${t.cost_usd:.4f}"
    )


class UsageLedger(Protocol):
    """Where call records go; :meth:`summary` aggregates them (optionally one run only)."""

    def record(self, rec: CallRecord) -> None: ...

    def summary(self, run_id: str | None = None, prices: Prices | None = None) -> LedgerSummary: ...


def _totals_of(rec: CallRecord) -> Totals:
    return Totals(
        calls=1,
        cache_hits=int(rec.cache_hit),
        errors=int(rec.error is not None),
        attempts=rec.attempts,
        estimated_calls=int(rec.estimated),
        prompt_tokens=rec.prompt_tokens,
        completion_tokens=rec.completion_tokens,
        billed_prompt_tokens=0 if rec.cache_hit else rec.prompt_tokens,
        billed_completion_tokens=0 if rec.cache_hit else rec.completion_tokens,
        latency_ms=rec.latency_ms,
    )


def build_summary(groups: Iterable[tuple[str, str, Totals]], prices: Prices | None) -> LedgerSummary:
    """Fold ``(run_id, stage, totals)`` groups into a priced summary; shared by every ledger backend."""
    prices = prices or Prices()
    total = Totals()
    by_stage: dict[str, Totals] = {}
    by_run: dict[str, Totals] = {}
    for run_id, stage, totals in groups:
        cost = prices.cost(totals.billed_prompt_tokens, totals.billed_completion_tokens)
        priced = replace(totals, cost_usd=cost)
        total = total + priced
        by_stage[stage] = by_stage.get(stage, Totals()) + priced
        by_run[run_id] = by_run.get(run_id, Totals()) + priced
    return LedgerSummary(total=total, by_stage=by_stage, by_run=by_run)


class InMemoryLedger:
    """List-backed ledger for tests and runs without a workspace; ``records`` is public for inspection."""

    def __init__(self) -> None:
        self.records: list[CallRecord] = []
        self._lock = threading.Lock()

    def record(self, rec: CallRecord) -> None:
        with self._lock:
            self.records.append(rec)

    def summary(self, run_id: str | None = None, prices: Prices | None = None) -> LedgerSummary:
        with self._lock:
            chosen = [r for r in self.records if run_id is None or r.run_id == run_id]
        return build_summary(((r.run_id, r.stage, _totals_of(r)) for r in chosen), prices)


_INSERT = (
    "INSERT INTO llm_calls (run_id, stage, provider, model, prompt_name, prompt_version, prompt_tokens, "
    "completion_tokens, usage_source, latency_ms, cache_hit, estimated, attempts, attempt_errors, error, "
    "created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)

_SUMMARY = (
    "SELECT run_id, stage, COUNT(*), SUM(cache_hit), SUM(error IS NOT NULL), SUM(attempts), SUM(estimated), "
    "SUM(prompt_tokens), SUM(completion_tokens), SUM(CASE WHEN cache_hit THEN 0 ELSE prompt_tokens END), "
    "SUM(CASE WHEN cache_hit THEN 0 ELSE completion_tokens END), SUM(latency_ms) "
    "FROM llm_calls {where} GROUP BY run_id, stage"
)


def _row_totals(r: Any) -> Totals:
    ints = [int(v or 0) for v in r[2:11]]
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
    )


class SQLiteLedger:
    """The ``llm_calls`` table; summaries are one GROUP BY, so they stay cheap on long histories."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def record(self, rec: CallRecord) -> None:
        row = (
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
        )
        with self._db.transaction(content=False):
            self._db.execute(_INSERT, row)

    def summary(self, run_id: str | None = None, prices: Prices | None = None) -> LedgerSummary:
        where, params = ("WHERE run_id = ?", (run_id,)) if run_id is not None else ("", ())
        rows = self._db.query(_SUMMARY.format(where=where), params)
        groups = ((str(r[0]), str(r[1]), _row_totals(r)) for r in rows)
        return build_summary(groups, prices)

    def run_ids(self) -> list[str]:
        """Runs in the order they first appeared."""
        rows = self._db.query("SELECT run_id, MIN(id) AS first FROM llm_calls GROUP BY run_id ORDER BY first")
        return [str(r[0]) for r in rows]
