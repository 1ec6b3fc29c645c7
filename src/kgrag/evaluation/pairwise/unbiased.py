"""The unbiased pairwise procedure of zeng-unbiased-eval.

For each question: align the answers' lengths (discarding pairs that cannot be aligned); judge in both
orders, each order ``repeats`` (N) times, scoring four aspects 0-5 per answer; an answer's score is its
mean over repeats and then over the two orders; equal totals are a tie. The whole judgement is repeated
for ``trials`` (M) trials; the report gives win/tie rates with bootstrap confidence intervals, per-trial
rates (box plots), the relative win rate, per-aspect win rates, the position-consistency rate (do AB
and BA alone agree?), the discard rate, and unmeasured judgements (failed calls, never counted as a loss).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from kgrag.evaluation.judges.base import JudgeSetup
from kgrag.evaluation.judges.call import ask
from kgrag.evaluation.judges.schemas import AspectComparison
from kgrag.evaluation.pairwise.alignment import align
from kgrag.evaluation.pairwise.stats import Outcome, consistency, summarize_outcomes
from kgrag.evaluation.pairwise.types import AnswerPair, PairwiseSettings

ASPECTS = ("comprehensiveness", "relevance", "empowerment", "directness")
Scores = dict[str, float]  # aspect (and "total") → mean score


def _winner(a: float, b: float, ties: bool) -> str:
    if abs(a - b) < 1e-9:
        return "tie" if ties else "A"  # forced choice: the naive protocol gives the first slot the win
    return "A" if a > b else "B"


def _one_order(
    pair: AnswerPair, setup: JudgeSetup, a_first: bool, seed: int, repeats: int
) -> tuple[Scores, Scores] | None:
    """Mean aspect scores of A and B over ``repeats`` calls in one order; None if every call failed."""
    first, second = (pair.answer_a, pair.answer_b) if a_first else (pair.answer_b, pair.answer_a)
    got: list[AspectComparison] = []
    for repeat in range(repeats):
        reply = ask(
            setup.primary,
            "eval_pairwise_aspects",
            {"question": pair.question, "answer_1": first, "answer_2": second},
            AspectComparison,
            stage="eval.pairwise.judge",
            temperature=setup.temperature,
            seed=seed * 1000 + repeat,
        )
        if reply.value is not None:
            got.append(reply.value)
    if not got:
        return None
    ones = {k: statistics.fmean(getattr(g.answer_1, k) for g in got) for k in ASPECTS}
    twos = {k: statistics.fmean(getattr(g.answer_2, k) for g in got) for k in ASPECTS}
    return (ones, twos) if a_first else (twos, ones)


def _total(scores: Scores) -> float:
    return sum(scores[k] for k in ASPECTS)


def judge_pair(pair: AnswerPair, setup: JudgeSetup, settings: PairwiseSettings, trial: int) -> dict[str, Any]:
    """One question in one trial: the overall and per-aspect winners, and each order's own winner."""
    seed = settings.seed * 100_000 + trial * 2
    ab = _one_order(pair, setup, True, seed, settings.repeats)
    ba = _one_order(pair, setup, False, seed + 1, settings.repeats) if settings.both_orders else None
    orders = [o for o in (ab, ba) if o is not None]
    if not orders or (settings.both_orders and len(orders) < 2):
        return {"overall": None, "aspects": dict.fromkeys(ASPECTS), "ab": None, "ba": None}
    a = {k: statistics.fmean(o[0][k] for o in orders) for k in ASPECTS}
    b = {k: statistics.fmean(o[1][k] for o in orders) for k in ASPECTS}
    ties = settings.allow_ties
    return {
        "overall": _winner(_total(a), _total(b), ties),
        "aspects": {k: _winner(a[k], b[k], ties) for k in ASPECTS},
        "ab": _winner(_total(ab[0]), _total(ab[1]), ties) if ab else None,
        "ba": _winner(_total(ba[0]), _total(ba[1]), ties) if ba else None,
    }


def _aligned(
    pairs: Sequence[AnswerPair], setup: JudgeSetup, settings: PairwiseSettings
) -> tuple[list[AnswerPair], list[str]]:
    if not settings.align_lengths:
        return list(pairs), []
    kept, discarded = [], []
    for pair in pairs:
        result = align(pair, setup.primary, settings)
        if result.pair is None:
            discarded.append(f"{pair.question_id}: {result.note}")
        else:
            kept.append(result.pair)
    return kept, discarded


class UnbiasedJudge:
    name = "unbiased"
    paper = "zeng-unbiased-eval"
    prompts = ("eval_pairwise_aspects", "eval_length_align", "eval_length_pad")

    def compare(self, pairs: list[AnswerPair], setup: JudgeSetup, settings: PairwiseSettings) -> dict[str, Any]:
        kept, discarded = _aligned(pairs, setup, settings)
        results = [[judge_pair(p, setup, settings, t) for t in range(settings.trials)] for p in kept]
        stats = (settings.confidence, settings.bootstrap_samples, settings.seed)
        overall: list[list[Outcome]] = [[r["overall"] for r in row] for row in results]
        out: dict[str, Any] = summarize_outcomes(overall, *stats) if kept else {"rates": None, "verdict": "no decision"}
        out["aspects"] = {
            k: summarize_outcomes([[r["aspects"][k] for r in row] for row in results], *stats)["rates"]
            if kept
            else None
            for k in ASPECTS
        }
        out["position_consistency"] = consistency([(r["ab"], r["ba"]) for row in results for r in row])
        out["alignment"] = {
            "enabled": settings.align_lengths,
            "pairs": len(pairs),
            "discarded": len(discarded),
            "discard_rate": len(discarded) / len(pairs) if pairs else 0.0,
            "reasons": discarded[:20],
        }
        out["per_question"] = [
            {"question_id": p.question_id, "question_type": p.question_type, "outcomes": [r["overall"] for r in row]}
            for p, row in zip(kept, results, strict=True)
        ]
        return out
