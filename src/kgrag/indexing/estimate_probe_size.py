"""How many units ``kgrag index --estimate --probe`` extracts: more while what a unit costs is still unsure.

The estimate prices every unit the probe did not extract from what the probed units cost. A small local
model's units differ a lot in that cost, whatever their names: a short reply on one unit, a reply several
times as long on the next, a reply stopped in a repetition loop on a third. The mean of two units then
says little about the mean of the run. So after its first units (and those it adds when a reply faulted,
:mod:`~kgrag.indexing.estimate_failures`) the probe keeps extracting units, spread over the ranking by
names, while the :data:`~kgrag.models.llm.estimate_range.CONFIDENCE` Student t interval of the mean
completion per probed unit (:func:`unit_cost`) is wider than ±:data:`SIZE_TOLERANCE` of the mean
(:func:`~kgrag.models.llm.estimate_range.reply_size_factors`, the interval the estimate's range takes
for the reply size).

It stops at :data:`MAX_UNITS` units or a :data:`MAX_SHARE` of the corpus's units, whichever is fewer: a
probed unit is cached, so the run pays nothing more for it, but the user waits for it before the estimate,
and the estimate is meant for a run that has not happened. A corpus of fewer than ``3 / MAX_SHARE`` units (12)
is probed as before. Both limits are choices, not fitted figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from kgrag.core.stages import EXTRACT, ledger_stage

SIZE_TOLERANCE = 0.5  # the mean cost per unit is known when its interval is within ± this share of it
MAX_UNITS = 8  # the most units a probe extracts for the reply size
MAX_SHARE = 0.25  # and at most this share of the corpus's units
EXTRACT_STAGE = ledger_stage(EXTRACT)  # the ledger stage of extraction calls ("index.extract")
Unit = TypeVar("Unit")


def unit_cost(before: int, after: int) -> float:
    """The completion a unit cost: the extraction completion tokens spent while it was extracted (first
    pass, re-asks, retries, halves; ``before`` and ``after`` the client's totals)."""
    return float(max(0, after - before))


def cost_known(costs: Sequence[float]) -> bool:
    """Whether the mean of ``costs`` (per probed unit) is known to ±:data:`SIZE_TOLERANCE`: two units or
    more and the upper end of its interval within the tolerance."""
    from statistics import fmean, stdev

    from kgrag.models.llm.estimate_range import reply_size_factors

    if len(costs) < 2:
        return False
    mean = fmean(costs)
    if mean <= 0:
        return True  # nothing replied: no size to learn
    return reply_size_factors(mean, stdev(costs), len(costs))[1] <= 1 + SIZE_TOLERANCE


def unit_limit(corpus_units: int) -> int:
    """The most units the probe extracts for the reply size in a corpus of about ``corpus_units`` units."""
    return min(MAX_UNITS, int(corpus_units * MAX_SHARE))


def spread(ranked: Sequence[Unit], chosen: Sequence[Unit]) -> list[Unit]:
    """The units of ``ranked`` not ``chosen`` yet, in the order the probe adds them: at the median, then at
    the quarters, eighths, … of the ranking (outermost first), so that each unit added fills the widest gap."""
    count, order, seen = len(ranked), [], set()
    parts = 2
    while parts <= 2 * count:
        odd = list(range(1, parts, 2))
        for j in sorted(odd, key=lambda j: min(j, parts - j)):  # outermost first: 1/8, 7/8, 3/8, 5/8
            index = j * count // parts
            if index not in seen:
                seen.add(index)
                order.append(index)
        parts *= 2
    order.extend(i for i in range(count) if i not in seen)
    return [ranked[i] for i in order if ranked[i] not in chosen]
