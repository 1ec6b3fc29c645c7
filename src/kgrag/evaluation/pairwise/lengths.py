"""The length gap that alignment leaves, and whether verdicts follow it.

A judge that prefers longer answers turns even a small *systematic* gap into a verdict: alignment within
a tolerance is not enough if the rewritten answer always ends up a few words short. So every judged pair
reports its signed gap (words of A − words of B, as judged), and the report gives the gap's mean, its
share of pairs where A is the longer one, and two correlations with the outcome:

* Spearman's ρ between the gap and the question's net score (A wins − B wins) / measured trials;
* the point-biserial r between the gap and "A won" over the decided (non-tie) judgements.

A verdict that goes the way of the mean gap is flagged when the correlation is clearly positive or the
gap is one-sided (the same side longer in 80 % of pairs, which no correlation can show when every gap is
equal): the comparison may measure length rather than quality.

:func:`generator_shortfall` summarises how far the pipelines' generators miss a requested length (each
regeneration's request against what it wrote): one that systematically ends short is what leaves
one-sided gaps, and the A/A check names it even when alignment closed every gap.
"""

from __future__ import annotations

import math
import statistics
import warnings
from collections.abc import Sequence

from scipy import stats as sps

from kgrag.evaluation.pairwise.payloads import Correlation, GapSummary, Outcome, Shortfall

FLAG_CORRELATION = 0.3
FLAG_P = 0.05
ONE_SIDED = 0.8


def _finite(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _correlation(kind: str, x: Sequence[float], y: Sequence[float]) -> Correlation | None:
    """ρ or r with its p-value; None when either side is constant or there are fewer than 3 points."""
    if len(x) < 3 or len(set(x)) < 2 or len(set(y)) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = sps.spearmanr(x, y) if kind == "spearman" else sps.pointbiserialr(y, x)
    r, p = _finite(res[0]), _finite(res[1])
    return None if r is None else {"r": round(r, 4), "p": None if p is None else round(p, 6), "n": len(x)}


def _net(row: Sequence[Outcome]) -> float | None:
    measured = [o for o in row if o is not None]
    if not measured:
        return None
    return (measured.count("A") - measured.count("B")) / len(measured)


def gap_summary(gaps: Sequence[int], table: Sequence[Sequence[Outcome]], verdict: str) -> GapSummary:
    """Mean/min/max of the signed gaps, the correlations with outcomes, and the length flag."""
    if not gaps:
        return {"pairs": 0}
    nets = [(g, n) for g, row in zip(gaps, table, strict=True) if (n := _net(row)) is not None]
    decided = [
        (float(g), 1.0 if o == "A" else 0.0) for g, row in zip(gaps, table, strict=True) for o in row if o in ("A", "B")
    ]
    mean = round(statistics.fmean(gaps), 3)
    out: GapSummary = {
        "pairs": len(gaps),
        "mean": mean,
        "min": min(gaps),
        "max": max(gaps),
        "a_longer": sum(g > 0 for g in gaps),
        "b_longer": sum(g < 0 for g in gaps),
        "equal": sum(g == 0 for g in gaps),
        "spearman": _correlation("spearman", [float(g) for g, _ in nets], [n for _, n in nets]),
        "point_biserial": _correlation("pointbiserial", [g for g, _ in decided], [w for _, w in decided]),
    }
    out["length_flag"] = _flag(out, mean, verdict)
    return out


def _flag(summary: GapSummary, mean: float, verdict: str) -> str:
    """A warning when the verdict goes the way the residual gap points and the gap predicts outcomes."""
    leaning = "A better" if mean > 0 else "B better" if mean < 0 else ""
    strong = [
        c
        for c in (summary.get("spearman"), summary.get("point_biserial"))
        if c and c["r"] >= FLAG_CORRELATION and (c["p"] or 0) < FLAG_P
    ]
    longer = summary.get("a_longer", 0) if mean > 0 else summary.get("b_longer", 0)
    one_sided = abs(mean) >= 1 and longer >= ONE_SIDED * summary["pairs"]
    if leaning and verdict == leaning and (strong or one_sided):
        why = (
            "the gap predicts the outcomes"
            if strong
            else f"that side is the longer one in {longer} of {summary['pairs']} pairs"
        )
        return (
            f"the verdict ({verdict}) goes the way of the residual length gap (mean {mean:+.1f} words) "
            f"and {why}: it may measure length rather than quality (tighten the length tolerance, or run --aa-check)"
        )
    if strong:
        return (
            "within pairs, the longer answer tends to win (the gap correlates with the outcomes): this judge rewards "
            "length; the verdict does not go the way of the mean gap, but a tighter tolerance would make it safer"
        )
    return ""


SHORTFALL_WORDS = 1.0


def generator_shortfall(requests: Sequence[tuple[int, int]]) -> Shortfall:
    """Requested minus written words over regenerations: mean, how many ended short / long, and a flag
    when the generator misses one way (mean at least a word, the same way in 80 % of at least 3)."""
    if not requests:
        return {"regenerations": 0, "flag": ""}
    misses = [asked - got for asked, got in requests]
    mean = statistics.fmean(misses)
    short, long = sum(m > 0 for m in misses), sum(m < 0 for m in misses)
    one_way = short if mean > 0 else long
    flag = ""
    if len(misses) >= 3 and abs(mean) >= SHORTFALL_WORDS and one_way >= ONE_SIDED * len(misses):
        how = "short of" if mean > 0 else "past"
        flag = (
            f"the generator ends {abs(mean):.1f} words {how} the requested length in {one_way} of {len(misses)} "
            "regenerations: a gap it leaves favours one side with a judge that prefers longer answers, so only "
            "exact length alignment (padding the shorter answer) keeps it from deciding verdicts"
        )
    return {"regenerations": len(misses), "mean": round(mean, 3), "short": short, "long": long, "flag": flag}
