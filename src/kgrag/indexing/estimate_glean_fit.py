"""Which units a run gleans, fitted on the units the workspace's own run gleaned.

The estimate decides per unit whether the run will glean it by applying the run's own rule
(:class:`~kgrag.graph.extract.glean.GleanPolicy`) to the stand-in first pass at the model's measured shares
(:mod:`kgrag.models.llm.estimate_glean`). Measured on a workspace's stored graph, those shares describe
what the run kept in the end, gleaned items included, so they make first passes look denser than they
were: a model whose first passes the run gleaned often is predicted to need no gleaning. The ledger says
which units the run really gleaned (its gleaning calls are linked to their unit), so the decision is
fitted on them: the one scale of the shares (applied to the stand-in used for the decision only) with
which the rule gleans as many of those units as the run did, the scale nearest 1 among equals. The
stand-in graph that prices the later stages keeps the measured shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kgrag.core.llm_usage import FIRST_ROLE, GLEAN_ROLE

if TYPE_CHECKING:
    from kgrag.core.llm_usage import CallRecord
    from kgrag.indexing.estimate_stored import StoredGraph, StoredUnit

SCALES = tuple(round(0.2 + 0.05 * step, 2) for step in range(27))  # 0.2 … 1.5
MIN_UNITS = 4  # fewer first-passed stored units say too little about the rule to fit it
EXTRACT_STAGE = "index.extract"
GLEAN_STAGE = "index.glean"


@dataclass(frozen=True)
class GleanFit:
    """The fitted scale, and what it was fitted on: the stored units whose first pass the ledger holds,
    how many of them the run gleaned, and how many the rule gleans at the scale and at 1."""

    scale: float
    units: int
    gleaned: int
    predicted: int
    unscaled: int

    def line(self) -> str:
        return (
            f"calibrated by the ledger ({self.units} extracted units, {self.gleaned} gleaned): gleaning decided "
            f"on the stand-in at {self.scale:.2f}× the measured shares, where the rule gleans {self.predicted} of "
            f"them ({self.unscaled} at the measured shares)"
        )


def fit_glean_scale(
    stored: StoredGraph, recent: Sequence[CallRecord], model: str | None, shares: tuple[float, float]
) -> GleanFit | None:
    """The scale of ``shares`` at which the gleaning rule, applied to each stored unit's stand-in first pass,
    gleans as many of the units as the ledger's run did (``recent``: its rows, of ``model`` when given);
    None with fewer than :data:`MIN_UNITS` stored units whose first pass the ledger holds."""
    firsts = _linked(recent, model, EXTRACT_STAGE, FIRST_ROLE)
    units = [unit for unit in stored.units if unit.key in firsts]
    if len(units) < MIN_UNITS:
        return None
    gleaned = len(_linked(recent, model, GLEAN_STAGE, GLEAN_ROLE) & {unit.key for unit in units})
    rule = _GleanRule(units)
    counts = {scale: rule.gleaned(shares, scale) for scale in SCALES}
    best = min(SCALES, key=lambda scale: (abs(counts[scale] - gleaned), abs(scale - 1.0)))
    return GleanFit(best, len(units), gleaned, counts[best], counts[1.0])


def _linked(recent: Sequence[CallRecord], model: str | None, stage: str, role: str) -> set[str]:
    """Unit keys of the sent (not cached, not estimated) calls of ``stage`` in ``role``."""
    return {
        record.unit_key
        for record in recent
        if record.unit_key
        and record.stage == stage
        and record.call_role == role
        and not record.cache_hit
        and not record.estimated
        and (not model or record.model == model)
    }


class _GleanRule:
    """The run's gleaning rule over the stored units, each built (and its tokens counted) once for every
    scale tried."""

    def __init__(self, units: Sequence[StoredUnit]) -> None:
        from kgrag.core.llm_types import StructuredResult, Usage
        from kgrag.documents import TokenCounter
        from kgrag.graph.extract.glean import GleanPolicy
        from kgrag.graph.extract.units import ExtractionUnit

        counter = TokenCounter.for_encoding()
        self.policy = GleanPolicy()
        self.whole: StructuredResult[object] = StructuredResult(None, None, Usage())  # a first pass that did not loop
        self.units = [ExtractionUnit("", (), unit.text, counter.count(unit.text)) for unit in units]

    def gleaned(self, shares: tuple[float, float], scale: float) -> int:
        """How many of the units the rule gleans when each first pass is the stand-in at ``scale`` × the
        shares."""
        from kgrag.graph.extract.structural import structural_items

        names, relations = shares[0] * scale, shares[1] * scale
        items = (structural_items(unit.text, names, relations) for unit in self.units)
        return sum(
            self.policy.reason(unit, self.whole, found) is not None
            for unit, found in zip(self.units, items, strict=True)
        )
