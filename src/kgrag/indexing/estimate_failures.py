"""Units a model fails for good, seen before the run: the estimate's warning and what it leaves out.

A unit whose every attempt was rejected (the reply, its re-ask, the retry at another temperature) is
marked failed and retried by the next run; while any chunk is failed the graph is incomplete, so community
detection waits (:func:`kgrag.indexing.stages.communities.graph_incomplete`) and the run writes no
community report. Two things show such units before a run:

* a ``--probe`` unit that failed (:func:`record_probe_failures`): the probe's units are units of the run,
  and a model that rejected every attempt at one will most likely do so again;
* chunks an earlier run left failed: this run retries them.

The estimate then says so in a warning line and prices the run that will happen: the failing units'
attempts (their first calls are counted, their re-asks and retries are in the measured follow-up rate),
and no community reports (shown apart as held back, :func:`~kgrag.models.llm.estimate_counted.counted_share`).
Merging and reflection do not wait for a complete graph, so they stay priced.

The probe also widens itself when its replies fault (:func:`faulted`, :func:`more_units`): two calls say
little about a share of failed replies, and a third and fourth unit are no waste (the run reuses their
cached replies), while a probe whose replies were all clean stays at two units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from kgrag.graph.types import ChunkExtraction
    from kgrag.models.llm import EstimateAssumptions, LLMClient
    from kgrag.store.base import Store

META_PROBE_FAILED = "estimate.probe_failed_units"  # "failed probed": units of the last --probe that failed
MORE_UNITS = 2  # units a probe adds when the replies of its first units faulted
EXTRACT_STAGE = "index.extract"
Unit = TypeVar("Unit")


def faulted(client: LLMClient, units: int, done: Sequence[Sequence[ChunkExtraction]]) -> bool:
    """Whether extracting ``units`` units (their extractions ``done``) took more than one call each or
    left a unit failed: a reply was rejected, cut or retried."""
    spent = client.summary().by_stage.get(EXTRACT_STAGE)
    calls = spent.calls - spent.cache_hits if spent is not None else 0
    return calls > units or any(x.error for extractions in done for x in extractions)


def more_units(ranked: Sequence[Unit], chosen: Sequence[Unit]) -> list[Unit]:
    """Up to :data:`MORE_UNITS` units of ``ranked`` (the probe's candidates in its order) not ``chosen``
    yet: the median one, then those at the first and seventh eighth."""
    count = len(ranked)
    picks = [ranked[i] for i in (count // 2, count // 8, (7 * count) // 8)] if count else []
    fresh = [unit for n, unit in enumerate(picks) if unit not in chosen and unit not in picks[:n]]
    return fresh[:MORE_UNITS]


def record_probe_failures(store: Store, done: Sequence[Sequence[ChunkExtraction]], run_id: str) -> int:
    """Store how many of the probe's units (their extractions ``done``) failed, with the probe's ledger
    ``run_id``; that number."""
    failed = sum(any(x.error for x in extractions) for extractions in done)
    seen = len(store.llm_ledger.calls(run_id))  # the run's rows so far: a later extraction makes this stale
    with store.transaction():
        store.meta.set(META_PROBE_FAILED, f"{failed} {len(done)} {run_id} {seen}")
    return failed


def probe_failures(store: Store) -> tuple[int, int]:
    """(failed, probed) units of the last ``--probe``, while no run has extracted since it ((0, 0): none
    recorded, or a run since then: the chunks it left failed tell the rest)."""
    return _current_probe(store) or (0, 0)


def probe_is_current(store: Store) -> bool:
    """Whether the last ``--probe`` recorded its units and no extraction call was sent after its own."""
    return _current_probe(store) is not None


def _current_probe(store: Store) -> tuple[int, int] | None:
    """(failed, probed) units of the last ``--probe`` as :func:`record_probe_failures` stored them, or None
    when none is recorded or an extraction call was sent after the probe's."""
    parts = (store.meta.get(META_PROBE_FAILED) or "").split()
    if len(parts) != 4 or not all(part.isdigit() for part in (*parts[:2], parts[3])):
        return None
    if not _latest(store, parts[2], int(parts[3])):
        return None
    return int(parts[0]), int(parts[1])


def _latest(store: Store, probe_run: str, seen: int) -> bool:
    """Whether no extraction call was sent after the probe's (the first ``seen`` rows of ``probe_run``)."""
    ledger = store.llm_ledger
    runs = ledger.run_ids()
    if probe_run not in runs:
        return False
    later = [
        *ledger.calls(probe_run)[seen:],
        *(r for run in runs[runs.index(probe_run) + 1 :] for r in ledger.calls(run)),
    ]
    return not any(r.stage == EXTRACT_STAGE and not r.estimated for r in later)


def held_back(assumptions: EstimateAssumptions, store: Store, stages: Sequence[str]) -> EstimateAssumptions:
    """``assumptions`` with the warning (``held_back``) when the probe or an earlier run saw units fail
    for good; unchanged otherwise."""
    from kgrag.core.stages import COMMUNITIES

    failed, probed = probe_failures(store)
    stored = store.graph.counts()["chunks_failed"]
    if not failed and not stored:
        return assumptions
    seen = [f"{failed} of {probed} probed units failed extraction on every attempt"] if failed else []
    if stored:
        seen.append(f"{stored} chunks an earlier run left failed are retried")
    waits = (
        "; community detection and its reports wait for a complete graph: not in the total (held back)"
        if COMMUNITIES in stages
        else ""
    )
    text = "; ".join(seen) + ": units like them stay failed (the next run retries them), so this run leaves the "
    return replace(assumptions, held_back=text + "graph incomplete" + waits)
