"""Collecting answer pairs from two pipelines, settings from the config, the A/A check, and scores for the
store."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypedDict

from kgrag.config.evaluation import EvaluationConfig
from kgrag.core.eval_records import EvalScore
from kgrag.evaluation.datasets import QAItem
from kgrag.evaluation.judges.base import JudgeSetup
from kgrag.evaluation.pairwise.alignment import words
from kgrag.evaluation.pairwise.judge_settings import UnbiasedJudgeSettings
from kgrag.evaluation.pairwise.lengths import generator_shortfall
from kgrag.evaluation.pairwise.payloads import AACheck, PairwiseResult
from kgrag.evaluation.pairwise.types import AnswerPair, AnswerWriter, PairwiseJudge, PairwiseSettings
from kgrag.generation import QueryResponse

_VALUE = {"A": 1.0, "B": 0.0, "tie": 0.5}


def pairwise_settings(ev: EvaluationConfig) -> PairwiseSettings:
    """The configured procedure: the `unbiased` judge's own knobs from its table, the shared ones from
    ``[evaluation]``."""
    own = ev.entry_settings("judges", "unbiased", UnbiasedJudgeSettings)
    return PairwiseSettings(
        repeats=own.repeats,
        trials=own.trials,
        tolerance_words=own.length_tolerance_words,
        tolerance_share=own.length_tolerance_share,
        tolerance_min_words=own.length_tolerance_min_words,
        length_attempts=own.length_attempts,
        confidence=ev.confidence,
        bootstrap_samples=ev.bootstrap_samples,
        temperature=ev.pairwise_temperature,
    )


def _context(response: QueryResponse) -> str:
    return "\n\n".join(item.text for item in response.result.items)


class Overrides(TypedDict, total=False):
    """The command line's pairwise options; None leaves the configured value."""

    trials: int | None
    repeats: int | None
    temperature: float | None


def cli_pairwise_settings(ev: EvaluationConfig, naive: bool, overrides: Overrides) -> PairwiseSettings:
    """The configured settings (or the naive protocol) with the command line's non-None overrides."""
    settings = PairwiseSettings.naive() if naive else pairwise_settings(ev)
    trials, repeats, temperature = overrides.get("trials"), overrides.get("repeats"), overrides.get("temperature")
    return replace(
        settings,
        trials=settings.trials if trials is None else trials,
        repeats=settings.repeats if repeats is None else repeats,
        temperature=settings.temperature if temperature is None else temperature,
    )


def trial_note(settings: PairwiseSettings, judge_temperature: float, judge: str) -> str:
    """A note before the run when its trials may all be the same (temperature 0), else empty."""
    temperature = judge_temperature if settings.temperature is None else settings.temperature
    if temperature == 0 and settings.trials > 1 and judge == "unbiased":
        return (
            "note: judge temperature 0: the trials differ only if the server honours the per-trial seed; "
            "if trial 2 repeats trial 1 the run stops there and the report says so"
        )
    return ""


WriterFor = Callable[[str, str, QueryResponse], AnswerWriter | None]
"""(pipeline, question, its response) → that pipeline's generation step for the question, or None."""


def answer_pairs(
    items: Sequence[QAItem],
    a: str,
    b: str,
    query: Callable[[str, str], QueryResponse],
    on_question: Callable[[], None] | None = None,
    writer_for: WriterFor | None = None,
) -> list[AnswerPair]:
    pairs = []
    for item in items:
        ra, rb = query(item.question, a), query(item.question, b)
        wa = writer_for(a, item.question, ra) if writer_for else None
        wb = writer_for(b, item.question, rb) if writer_for else None
        pairs.append(
            AnswerPair(
                item.id,
                item.question,
                item.question_type,
                ra.answer.text,
                rb.answer.text,
                _context(ra),
                _context(rb),
                wa,
                wb,
            )
        )
        if on_question is not None:
            on_question()
    return pairs


def pairwise_scores(run_id: str, a: str, b: str, result: PairwiseResult) -> list[EvalScore]:
    """One score per question per trial: 1 = A won, 0 = B won, 0.5 = tie, None = unmeasured."""
    scores = []
    for row in result.get("per_question", []):
        for trial, outcome in enumerate(row["outcomes"]):
            value = None if outcome is None else _VALUE[outcome]
            note = "" if outcome is not None else "judge failed in every repeat"
            scores.append(
                EvalScore(
                    run_id,
                    trial,
                    f"{a} vs {b}",
                    row["question_id"],
                    row["question_type"],
                    "pairwise.a_wins",
                    value,
                    note,
                )
            )
    return scores


def _aa_pairs(pairs: Sequence[AnswerPair]) -> tuple[list[AnswerPair], list[tuple[int, int]]]:
    """A against A: where A's generator can write again, B's side is a fresh answer of A's length from
    the same context (so a generator that ends short shows up, as it would in the comparison); else A's
    own answer on both sides. Also each such request's (asked, written) word counts."""
    out: list[AnswerPair] = []
    requests: list[tuple[int, int]] = []
    for pair in pairs:
        mirrored = pair.mirrored()
        target = words(pair.answer_a)
        made = pair.writer_a.regenerate(target, 0) if pair.writer_a is not None and target else None
        if made:
            requests.append((target, words(made)))
            mirrored = replace(mirrored, answer_b=made.strip())
        out.append(mirrored)
    return out, requests


def _regenerations(result: PairwiseResult) -> list[tuple[int, int]]:
    alignment = result.get("alignment")
    records = (alignment.get("per_pair") if alignment else None) or []
    return [(int(asked), int(got)) for r in records for asked, got in r.get("regenerations") or []]


def aa_check(
    judge: PairwiseJudge, pairs: Sequence[AnswerPair], setup: JudgeSetup, settings: PairwiseSettings
) -> AACheck:
    """The A/A check: pipeline A against itself, judged as the comparison was (the sanity check of
    zeng-unbiased-eval). It fails on any verdict but a tie, or when the residual length gap of its own
    pairs is flagged; ``generator`` says whether A's generator systematically misses a requested length
    (flagged even when exact alignment closed every gap, since without it that gap decides verdicts)."""
    mirrored, requests = _aa_pairs(pairs)
    result = judge.compare(mirrored, setup, settings)
    verdict = str(result.get("verdict", "no decision"))
    generator = generator_shortfall(requests + _regenerations(result))
    gap = result.get("length_gap")
    gap_flag = str((gap.get("length_flag") if gap else None) or "")
    return {
        "questions": len(pairs),
        "verdict": verdict,
        "passed": verdict.startswith("tie") and not gap_flag,
        "length_flag": gap_flag,
        "generator": generator,
        "flags": [f for f in (gap_flag, generator["flag"]) if f],
        "rates": result.get("rates"),
        "ci": result.get("ci"),
        "position_consistency": result.get("position_consistency"),
        "unmeasured": result.get("unmeasured", 0),
        "trials": result.get("trials"),
    }
