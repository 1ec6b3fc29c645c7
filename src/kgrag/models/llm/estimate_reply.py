"""An extraction reply measured on some units, priced for another unit by the names it holds.

Calibration (``kgrag index --estimate --probe``, or a workspace's ledger) measures how long a model's
extraction replies are on the units it really extracted. Other units name more or fewer things, and a
reply lists what its unit names, so a unit naming more replies longer; but not in proportion: a reply
has a part that does not grow with the text's names (the JSON frame, the few entities a small model lists
whatever the text). So with the measured units' mean distinct names known
(``EstimateAssumptions.extraction_names``, recorded by the probe), a unit of ``n`` distinct names is
priced at the measured reply times ``(REPLY_FIXED_NAMES + n) / (REPLY_FIXED_NAMES + measured names)``.
Without them (calibration from a ledger alone) every unit is priced at the measured mean.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kgrag.models.llm.estimate_assumed import EstimateAssumptions

# The part of a reply that does not grow with its unit's names, in names: fitted on recorded extraction
# replies of a small local model on four corpora (docs/results/local-models.md). 0 would scale a reply in
# proportion to its unit's names, a very large value not at all.
REPLY_FIXED_NAMES = 15


def name_scale(assumptions: EstimateAssumptions, names: int) -> float:
    """How many times the measured reply a unit of ``names`` distinct names is priced at (1 when the
    measured units' names are unknown)."""
    measured = assumptions.extraction_names
    if measured is None:
        return 1.0
    return (REPLY_FIXED_NAMES + names) / (REPLY_FIXED_NAMES + measured)


def measured_reply_line(assumptions: EstimateAssumptions) -> str:
    """The assumption line of a measured extraction reply size."""
    size, names = assumptions.extraction_completion or 0.0, assumptions.extraction_names
    other = f"other calls {assumptions.completion_tokens}"
    if names is None:
        return f"assumed: extraction replies {size:.0f} completion tokens each; {other}"
    return (
        f"assumed: extraction replies {size:.0f} completion tokens for a unit of {names:.0f} distinct names (as "
        f"measured), scaled to each unit by ({REPLY_FIXED_NAMES} + its names) / ({REPLY_FIXED_NAMES} + {names:.0f}); "
        + other
    )
