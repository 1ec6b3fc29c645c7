"""Each unit's chance that its first extraction reply is cut at ``max_tokens``, from its predicted size.

A first pass cut at the token limit costs its unit more calls (a re-ask, then halves, and halves cut again)
than any other failure. How often that happens is not a property of the model alone: where a model's reply
grows with what its unit names, a unit naming more passes ``max_tokens`` more often. A follow-up rate measured
on earlier units carries their share of cut first passes over to units that may name more or less. So the
calibration (:func:`fit_cut_chance`) keeps the two apart:

* the first passes' reply size as a straight line in the unit's distinct names plus normal noise, fitted on
  the measured first passes by maximum likelihood. A cut reply only says its size was at least what was read,
  so it enters as censored there (a line through the lengths read would stay below the cap that cut them). The
  line's slope is the model's own: a model whose replies do not follow names gets a flat line, and every unit
  the same chance. A new unit's spread is the usual prediction interval's (the noise, the line's intercept and
  its slope measured on ``n`` units);
* the follow-ups per cut first pass and per first pass that was not cut, counted from the ledger's links
  (:data:`~kgrag.models.llm.reply_stats.SIZE_FOLLOW_UPS` per cut first pass when none was cut).

A unit's cut chance (:meth:`CutChance.chance`) is the probability mass of its predicted reply at or above the
request's ``max_tokens``. The follow-up rate measured at the measured units' cut share is moved by the
difference between the units' mean chance and that share, times what a cut adds (:meth:`CutChance.rate`):
where units are as likely to be cut as the measured ones, the rate is the measured one. A server that sent a
first pass longer than the cap whole does not cut: no unit's chance then. Fewer than :data:`MIN_WHOLE` whole
first passes (a probe's two units) say nothing about the tail: no fit, the measured rate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

MIN_WHOLE = 5  # whole first passes a fit needs: more than the line's two parameters and the noise


@dataclass(frozen=True)
class CutChance:
    """A first pass's size for a unit of ``n`` distinct names, ``intercept + slope * n`` plus noise of ``sd``,
    measured on ``measured`` units of ``names`` mean names (``spread``: their sum of squared deviations), and
    what a cut costs."""

    intercept: float
    slope: float
    sd: float
    names: float
    spread: float
    measured: int
    cut_share: float  # first passes cut among the measured
    per_cut: float  # follow-ups per cut first pass
    per_whole: float  # follow-ups per first pass not cut
    longest_whole: int  # the longest first pass the server sent whole (not cut)

    def chance(self, names: int, max_tokens: int | None) -> float:
        """The probability that the first pass of a unit of ``names`` distinct names is cut at ``max_tokens``
        (0 without a cap, or when this server sent longer replies whole)."""
        if not max_tokens or self.longest_whole > max_tokens:
            return 0.0
        far = (names - self.names) ** 2 / self.spread if self.spread > 0 else 0.0
        sd = self.sd * math.sqrt(1 + 1 / self.measured + far)
        return _above(max_tokens, self.intercept + self.slope * names, sd)

    def rate(self, measured_rate: float, mean_chance: float) -> float:
        """Follow-ups per first pass for units whose mean cut chance is ``mean_chance``, from the rate
        measured at :attr:`cut_share`."""
        return max(0.0, measured_rate + (mean_chance - self.cut_share) * (self.per_cut - self.per_whole))

    def line(self) -> str:
        """The assumption line."""
        return (
            f"calibrated from this workspace's ledger: each unit's chance of a first pass cut at max_tokens, from a "
            f"reply of {self.intercept:.0f} {self.slope:+.1f} tokens per distinct name ± {self.sd:.0f} "
            f"({self.cut_share:.0%} of {self.measured} measured first passes cut); {self.per_cut:.1f} follow-ups "
            f"per cut first pass, {self.per_whole:.2f} per other"
        )


def _above(cap: float, mean: float, sd: float) -> float:
    """P(X >= cap) for X normal(mean, sd)."""
    if sd <= 0:
        return 1.0 if mean >= cap else 0.0
    return 0.5 * math.erfc((cap - mean) / (sd * math.sqrt(2)))


def fit_cut_chance(firsts: Sequence[tuple[int, int, bool]], per_cut: float, per_whole: float) -> CutChance | None:
    """The cut chance from measured first passes (distinct names of the unit, completion tokens, whether cut),
    with the follow-ups per cut and per whole first pass; None with fewer than :data:`MIN_WHOLE` whole
    replies or none of their sizes apart."""
    whole = [size for _, size, cut in firsts if not cut]
    if len(whole) < MIN_WHOLE or max(whole) == min(whole):
        return None
    fitted = _censored_line(firsts)
    names = sum(n for n, _, _ in firsts) / len(firsts)
    spread = sum((n - names) ** 2 for n, _, _ in firsts)
    cut = sum(c for _, _, c in firsts) / len(firsts)
    return CutChance(*fitted, names, spread, len(firsts), cut, per_cut, per_whole, max(whole))


def _censored_line(firsts: Sequence[tuple[int, int, bool]]) -> tuple[float, float, float]:
    """Maximum-likelihood intercept, slope and noise of size = intercept + slope * names + normal noise, the
    sizes of cut replies (``True``) only known to be at least what is given."""
    import numpy as np
    from scipy.optimize import minimize
    from scipy.stats import norm

    names = np.array([n for n, _, _ in firsts], dtype=float)
    sizes = np.array([s for _, s, _ in firsts], dtype=float)
    cut = np.array([c for _, _, c in firsts], dtype=bool)
    if np.ptp(names[~cut]) > 0:
        slope, intercept = (float(v) for v in np.polyfit(names[~cut], sizes[~cut], 1))
    else:
        slope, intercept = 0.0, float(sizes[~cut].mean())
    noise = float(np.std(sizes[~cut] - intercept - slope * names[~cut])) or float(np.std(sizes[~cut]))

    def minus_log_likelihood(point: np.ndarray) -> float:
        mean, sd = point[0] + point[1] * names, math.exp(point[2])
        return -float(norm.logpdf(sizes[~cut], mean[~cut], sd).sum() + norm.logsf(sizes[cut], mean[cut], sd).sum())

    start = np.array([intercept, slope, math.log(max(noise, 1.0))])
    found = minimize(minus_log_likelihood, start, method="Nelder-Mead", options={"maxiter": 4000, "fatol": 1e-8})
    return float(found.x[0]), float(found.x[1]), math.exp(float(found.x[2]))
