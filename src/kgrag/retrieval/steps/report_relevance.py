"""Which community reports stand out for a query: the relevance cut ``global`` applies before planning.

A fixed cosine threshold does not carry from one corpus or embedder to the next, so the cut is set by
the query's own cosines against every report searched: a report is read when its cosine lies at least
``spreads`` robust standard deviations (1.4826 × the median absolute deviation) above their median. The
rule is unchanged by any shift or positive scaling of the cosines. A query the corpus covers well has a
tail of reports far above the rest; one it barely covers has few or none, and reads fewer reports
instead of every report the budget fits. The best report is always read, and reports tied with the
last one kept are kept too, so the cut never depends on the order of equal cosines.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

MAD_TO_SD = 1.4826  # the median absolute deviation of a normal sample times this estimates its sd


def relevant_count(scores: Sequence[float], spreads: float) -> int:
    """How many of ``scores`` (best first, as a search returns them) to read: all when ``spreads`` is 0
    (off), else those at least ``spreads`` robust deviations above the median; when none is, the best
    (with any tied with it). When half the cosines or more are equal the deviation is 0 and says
    nothing: then the reports above that median are read, or, when none is above it, those equal to it."""
    if spreads <= 0 or len(scores) <= 1:
        return len(scores)
    values = np.asarray(scores, dtype=np.float64)
    median = float(np.median(values))
    deviation = float(np.median(np.abs(values - median))) * MAD_TO_SD
    if deviation > 0:
        kept = int(np.count_nonzero(values >= median + spreads * deviation))
    else:
        kept = int(np.count_nonzero(values > median)) or int(np.count_nonzero(values >= median))
    return kept or int(np.count_nonzero(values >= values.max())) or 1  # 1: a cosine was not a number
