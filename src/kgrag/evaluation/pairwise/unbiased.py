"""The unbiased pairwise procedure of zeng-unbiased-eval.

For each question: align the answers' lengths (discarding pairs that cannot be aligned); judge in both
orders, each order ``repeats`` (N) times, scoring four aspects in whole points 0-5 per answer; an
answer's score is its mean over repeats and then over the two orders; equal totals are a tie. The whole
judgement is repeated for ``trials`` (M) trials; the report gives win/tie rates with bootstrap confidence
intervals, per-trial rates (box plots), the relative win rate, per-aspect win rates, the
position-consistency rate (do AB and BA alone agree?), the alignment record (how each answer was
aligned, the discard rate), the residual length gap with its correlation with the outcomes, and
unmeasured judgements (failed calls, never counted as a loss).

Trials differ only if the judge's replies do: each trial sends its own seed, and the judge temperature
is ``settings.temperature`` (else the judge set-up's). At temperature 0 a server that ignores the seed
returns the same scores every trial; when trial 2 repeats trial 1 exactly for every question the run
stops there and says so, since trials 3 to M would be copies.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from kgrag.evaluation.judges.base import JudgeSetup
from kgrag.evaluation.judges.call import ask
from kgrag.evaluation.judges.schemas import AspectComparison
from kgrag.evaluation.pairwise.alignment import JUDGE_PAD, JUDGE_REWRITE, PADDED, REGENERATED, align, words
from kgrag.evaluation.pairwise.judge_settings import UnbiasedJudgeSettings
from kgrag.evaluation.pairwise.lengths import gap_summary, generator_shortfall
from kgrag.evaluation.pairwise.payloads import AlignmentSummary, AlignRecord, Outcome, PairwiseResult, TrialInfo
from kgrag.evaluation.pairwise.stats import consistency, summarize_outcomes
from kgrag.evaluation.pairwise.types import AnswerPair, PairwiseSettings

ASPECTS = ("comprehensiveness", "relevance", "empowerment", "directness")
Scores = dict[str, float]  # aspect → mean score
Signature = tuple[tuple[int, ...] | None, tuple[int, ...] | None]


@dataclass(frozen=True)
class Judgement:
    """One question in one trial: the overall and per-aspect winners, each order's own winner, and the
    raw points of every call (``signature``: tells whether two trials differ)."""

    overall: Outcome
    aspects: dict[str, Outcome]
    ab: Outcome
    ba: Outcome
    signature: Signature


def judge_temperature(setup: JudgeSetup, settings: PairwiseSettings) -> float:
    return setup.temperature if settings.temperature is None else settings.temperature


def _winner(a: float, b: float) -> str:
    if abs(a - b) < 1e-9:
        return "tie"
    return "A" if a > b else "B"


def _one_order(
    pair: AnswerPair, setup: JudgeSetup, a_first: bool, seed: int, settings: PairwiseSettings
) -> tuple[Scores, Scores, tuple[int, ...]] | None:
    """Mean aspect scores of A and B over ``repeats`` calls in one order, and the raw points (to tell
    whether trials differ); None if every call failed."""
    first, second = (pair.answer_a, pair.answer_b) if a_first else (pair.answer_b, pair.answer_a)
    got: list[AspectComparison] = []
    for repeat in range(settings.repeats):
        reply = ask(
            setup.primary,
            "eval_pairwise_aspects",
            {"question": pair.question, "answer_1": first, "answer_2": second},
            AspectComparison,
            stage="eval.pairwise.judge",
            temperature=judge_temperature(setup, settings),
            seed=seed * 1000 + repeat,
        )
        if reply.value is not None:
            got.append(reply.value)
    if not got:
        return None
    ones = {k: statistics.fmean(getattr(g.answer_1, k) for g in got) for k in ASPECTS}
    twos = {k: statistics.fmean(getattr(g.answer_2, k) for g in got) for k in ASPECTS}
    raw = tuple(getattr(s, k) for g in got for s in (g.answer_1, g.answer_2) for k in ASPECTS)
    return (ones, twos, raw) if a_first else (twos, ones, raw)


def _total(scores: Scores) -> float:
    return sum(scores[k] for k in ASPECTS)


def judge_pair(pair: AnswerPair, setup: JudgeSetup, settings: PairwiseSettings, trial: int) -> Judgement:
    """One question in one trial (:class:`Judgement`)."""
    seed = settings.seed * 100_000 + trial * 2
    ab = _one_order(pair, setup, True, seed, settings)
    ba = _one_order(pair, setup, False, seed + 1, settings) if settings.both_orders else None
    orders = [o for o in (ab, ba) if o is not None]
    signature = (ab[2] if ab else None, ba[2] if ba else None)
    if not orders or (settings.both_orders and len(orders) < 2):
        return Judgement(None, dict.fromkeys(ASPECTS), None, None, signature)
    a = {k: statistics.fmean(o[0][k] for o in orders) for k in ASPECTS}
    b = {k: statistics.fmean(o[1][k] for o in orders) for k in ASPECTS}
    return Judgement(
        overall=_winner(_total(a), _total(b)),
        aspects={k: _winner(a[k], b[k]) for k in ASPECTS},
        ab=_winner(_total(ab[0]), _total(ab[1])) if ab else None,
        ba=_winner(_total(ba[0]), _total(ba[1])) if ba else None,
        signature=signature,
    )


def _aligned(
    pairs: Sequence[AnswerPair], setup: JudgeSetup, settings: PairwiseSettings
) -> tuple[list[AnswerPair], AlignmentSummary]:
    """The pairs to judge and the alignment record: how many answers each route changed, the discards."""
    kept: list[AnswerPair] = []
    records: list[AlignRecord] = []
    discarded: list[str] = []
    for pair in pairs:
        if not settings.align_lengths:
            kept.append(pair)
            continue
        result = align(pair, setup.primary, settings)
        records.append(result.record)
        if result.pair is None:
            discarded.append(f"{pair.question_id}: {result.note}")
        else:
            kept.append(result.pair)

    def changed_by(step: str) -> int:
        return sum(step in r.get("steps", ()) for r in records)

    summary: AlignmentSummary = {
        "enabled": settings.align_lengths,
        "pairs": len(pairs),
        "discarded": len(discarded),
        "discard_rate": len(discarded) / len(pairs) if pairs else 0.0,
        "reasons": discarded[:20],
        "within_tolerance": sum(not r.get("steps") for r in records),
        "regenerated": changed_by(REGENERATED),
        "judge_rewrite": changed_by(JUDGE_REWRITE),
        "padded": changed_by(PADDED),
        "judge_pad": changed_by(JUDGE_PAD),
        "generator": generator_shortfall([(x[0], x[1]) for r in records for x in r.get("regenerations", ())]),
        "per_pair": records,
    }
    return kept, summary


def _same(row: Sequence[Judgement]) -> bool:
    return all(r.signature == row[0].signature for r in row)


def run_trials(
    kept: Sequence[AnswerPair], setup: JudgeSetup, settings: PairwiseSettings
) -> tuple[list[list[Judgement]], TrialInfo]:
    """Questions × trials of judgements, and what the trials were: requested, run, identical or not."""
    temperature = judge_temperature(setup, settings)
    rows: list[list[Judgement]] = [[] for _ in kept]
    for trial in range(settings.trials):
        for row, pair in zip(rows, kept, strict=True):
            row.append(judge_pair(pair, setup, settings, trial))
        if trial == 1 and temperature == 0 and kept and all(_same(row) for row in rows):
            break
    run = len(rows[0]) if rows else 0
    identical = run > 1 and bool(kept) and all(_same(row) for row in rows)
    info: TrialInfo = {
        "requested": settings.trials,
        "run": run,
        "temperature": temperature,
        "identical": identical,
        "note": "",
    }
    info["note"] = _trial_note(info)
    return rows, info


def _trial_note(info: TrialInfo) -> str:
    if not info["identical"]:
        return ""
    if info["temperature"] == 0:
        return (
            f"trial 2 repeated trial 1 exactly for every question: at temperature 0 the judge ignores the per-trial "
            f"seed, so trials would be copies; ran {info['run']} of {info['requested']}. Set "
            "evaluation.pairwise_temperature (or --temperature) above 0 for trials that measure the judge's spread"
        )
    return (
        f"all {info['run']} trials gave identical scores at temperature {info['temperature']}: the judge server "
        "appears deterministic, so the spread over trials says nothing about trial bias"
    )


class UnbiasedJudge:
    name = "unbiased"
    settings_model = UnbiasedJudgeSettings  # [evaluation.judges.unbiased], read into PairwiseSettings
    paper = "zeng-unbiased-eval"
    prompts = ("eval_pairwise_aspects", "eval_length_align", "eval_length_pad", "answer_length")

    def compare(self, pairs: list[AnswerPair], setup: JudgeSetup, settings: PairwiseSettings) -> PairwiseResult:
        kept, alignment = _aligned(pairs, setup, settings)
        results, trials = run_trials(kept, setup, settings)
        stats = (settings.confidence, settings.bootstrap_samples, settings.seed)
        overall: list[list[Outcome]] = [[r.overall for r in row] for row in results]
        out: PairwiseResult = (
            {**summarize_outcomes(overall, *stats)} if kept else {"rates": None, "verdict": "no decision"}
        )
        out["aspects"] = {
            k: summarize_outcomes([[r.aspects[k] for r in row] for row in results], *stats)["rates"] if kept else None
            for k in ASPECTS
        }
        out["position_consistency"] = consistency([(r.ab, r.ba) for row in results for r in row])
        out["alignment"] = alignment
        out["trials"] = trials
        gaps = [words(p.answer_a) - words(p.answer_b) for p in kept]
        out["length_gap"] = gap_summary(gaps, overall, out["verdict"])
        out["per_question"] = [
            {
                "question_id": p.question_id,
                "question_type": p.question_type,
                "outcomes": [r.overall for r in row],
                "gap": gap,
            }
            for p, row, gap in zip(kept, results, gaps, strict=True)
        ]
        return out
