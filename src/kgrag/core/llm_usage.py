"""What the LLM layer stores: cached replies and usage records, and the totals summarised from them.

They live in ``core`` because two layers speak them: the store persists them (its LLM cache and usage
ledger repositories) and the LLM client produces and reads them. Keeping them here lets the store hold
the LLM bookkeeping without importing the LLM layer.

Rows hold tokens, not money: cost is computed at summary time from the prices passed in, so a price
change re-prices history. Token totals count every call (a cached call still had that size, which is
what per-question cost comparisons need); ``billed_*`` tokens and the cost leave cache hits out.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from kgrag.core.llm_types import Prices, UsageSource

BATCH_SOURCE: UsageSource = "batch"  # the usage source of a call answered through the Batch API
DISTRUSTED_SOURCE: UsageSource = "distrusted"  # the server under-reported: the row holds the local count
LOOP_SOURCE: UsageSource = "loop"  # the reply was stopped in a repetition loop: the tokens read, counted here

# Why a linked call was made (``CallRecord.call_role``): the first pass of a unit, or a call a reply caused
FIRST_ROLE = "first"  # a unit's first extraction call
GLEAN_ROLE = "glean"  # a unit's gleaning call (the first call of the gleaning stage)
REASK_ROLE = "reask"  # the same request again, quoting what was wrong with the previous reply
RETRY_ROLE = "retry"  # a fresh request at another temperature after the re-ask failed too
HALF_ROLE = "half"  # a smaller part of a unit whose reply was cut at the token limit (halves, quarters)
FIRST_ROLES = frozenset({FIRST_ROLE, GLEAN_ROLE})  # the calls no earlier reply caused


@dataclass(frozen=True)
class CachedResponse:
    """A stored reply with the token counts it cost when it was first fetched."""

    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class CallLink:
    """The unit of work a call serves (``key``, stable across runs) and why it was made (``role``, one of the
    ``*_ROLE`` names): what lets the ledger count the calls a reply caused per first call exactly."""

    key: str
    role: str

    def as_role(self, role: str) -> CallLink:
        """The same unit's link for a call made in ``role``."""
        return CallLink(self.key, role)


@dataclass(frozen=True)
class CallRecord:
    """One logical call: ``attempts`` counts HTTP attempts, ``attempt_errors`` lists why retries happened.

    ``unit_key`` and ``call_role`` link the calls of one unit of work (:class:`CallLink`); None on calls made
    without a link (every call but extraction's and gleaning's) and on rows written before the ledger had
    them."""

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
    unit_key: str | None = None
    call_role: str | None = None

    @property
    def link(self) -> CallLink | None:
        """The row's link, or None when it has none."""
        if self.unit_key is None or self.call_role is None:
            return None
        return CallLink(self.unit_key, self.call_role)


@dataclass(frozen=True)
class Totals:
    """Aggregated calls of one stage, one run, or everything."""

    calls: int = 0
    cache_hits: int = 0
    errors: int = 0
    attempts: int = 0
    estimated_calls: int = 0
    batch_calls: int = 0  # answered through the Batch API (priced at the batch share)
    distrusted_calls: int = 0  # the server reported under half the local count; the local count was kept
    loop_calls: int = 0  # replies stopped in a repetition loop (their part before the loop was kept)
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

    @classmethod
    def of(cls, rec: CallRecord) -> Totals:
        """The totals of a single record (what a ledger backend without GROUP BY sums)."""
        return cls(
            calls=1,
            cache_hits=int(rec.cache_hit),
            errors=int(rec.error is not None),
            attempts=rec.attempts,
            estimated_calls=int(rec.estimated),
            batch_calls=int(rec.usage_source == BATCH_SOURCE),
            distrusted_calls=int(rec.usage_source == DISTRUSTED_SOURCE),
            loop_calls=int(rec.usage_source == LOOP_SOURCE),
            prompt_tokens=rec.prompt_tokens,
            completion_tokens=rec.completion_tokens,
            billed_prompt_tokens=0 if rec.cache_hit else rec.prompt_tokens,
            billed_completion_tokens=0 if rec.cache_hit else rec.completion_tokens,
            latency_ms=rec.latency_ms,
        )


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
    batch = f", {t.batch_calls} batch" if t.batch_calls else ""
    distrusted = (
        f" ({t.distrusted_calls} calls counted here: the server reported under half)" if t.distrusted_calls else ""
    )
    loops = f"; {t.loop_calls} replies stopped in a repetition loop" if t.loop_calls else ""
    return (
        f"{t.calls} calls ({t.cache_hits} cached{batch}, {t.retries} retries, {t.errors} errors{loops}), "
        f"{t.prompt_tokens} prompt + {t.completion_tokens} completion tokens{distrusted}, ${t.cost_usd:.4f}"
    )


def build_summary(groups: Iterable[tuple[str, str, Totals]], prices: Prices | None) -> LedgerSummary:
    """Fold ``(run_id, stage, totals)`` groups into a priced summary; shared by every ledger backend."""
    prices = prices or Prices()
    total = Totals()
    by_stage: dict[str, Totals] = {}
    by_run: dict[str, Totals] = {}
    for run_id, stage, totals in groups:
        # a group holds only batch calls or none (the ledgers group by the batch marker too)
        price = prices.batch_cost if totals.batch_calls else prices.cost
        cost = price(totals.billed_prompt_tokens, totals.billed_completion_tokens)
        priced = replace(totals, cost_usd=cost)
        total = total + priced
        by_stage[stage] = by_stage.get(stage, Totals()) + priced
        by_run[run_id] = by_run.get(run_id, Totals()) + priced
    return LedgerSummary(total=total, by_stage=by_stage, by_run=by_run)
