"""The JSON a pairwise run stores and its report writes: rates with intervals, the length gap, the
alignment record, the trials, the A/A check and the stored run's payload. Plain dicts at run time
(``json.dumps`` writes them as built); keys a run stored by an older kgrag may lack are ``NotRequired``,
and the report reads those with ``.get``."""

from __future__ import annotations

from typing import NotRequired, TypedDict, cast

from pydantic import JsonValue

from kgrag.evaluation.judges.base import JudgeDisclosure

Outcome = str | None  # "A", "B", "tie", or None (unmeasured in that trial)


class Rates(TypedDict):
    """Win A, win B and tie shares and the relative win rate (A − B) / all decisions."""

    win_a: float
    win_b: float
    tie: float
    relative: float


class OutcomeSummary(TypedDict):
    """Pooled rates with their intervals (rate → ``[low, high]``), per-trial rates and their spread, and
    the unmeasured and decided judgement counts."""

    rates: Rates | None
    ci: dict[str, list[float]]
    confidence: float
    verdict: str
    per_trial: list[Rates]
    per_trial_mean_std: dict[str, list[float]]
    unmeasured: int
    decisions: int


class Correlation(TypedDict):
    """A correlation coefficient with its p-value and the points behind it."""

    r: float
    p: float | None
    n: int


class GapSummary(TypedDict):
    """The signed length gaps (words of A − words of B) of the judged pairs; only ``pairs`` when none."""

    pairs: int
    mean: NotRequired[float]
    min: NotRequired[int]
    max: NotRequired[int]
    a_longer: NotRequired[int]
    b_longer: NotRequired[int]
    equal: NotRequired[int]
    spearman: NotRequired[Correlation | None]
    point_biserial: NotRequired[Correlation | None]
    length_flag: NotRequired[str]


class Shortfall(TypedDict):
    """Requested minus written words over a generator's regenerations, and a flag when it misses one way."""

    regenerations: int
    mean: NotRequired[float]
    short: NotRequired[int]
    long: NotRequired[int]
    flag: str


class AlignRecord(TypedDict):
    """What alignment did to one pair: the gap before, the steps taken, each regeneration's (asked,
    written) words, whether it ended aligned and the gap after."""

    question_id: str
    gap_before: int
    tolerance: int
    steps: NotRequired[list[str]]
    rewritten: NotRequired[str | None]
    regenerations: NotRequired[list[tuple[int, int]]]
    aligned: NotRequired[bool]
    gap_after: NotRequired[int]


class AlignmentSummary(TypedDict):
    """The alignment of a run: pairs, discards with reasons, answers changed by each route, the
    generator's shortfall and every pair's record."""

    enabled: bool
    pairs: int
    discarded: int
    discard_rate: float
    reasons: NotRequired[list[str]]
    within_tolerance: NotRequired[int]
    regenerated: NotRequired[int]
    judge_rewrite: NotRequired[int]
    padded: NotRequired[int]
    judge_pad: NotRequired[int]
    generator: NotRequired[Shortfall]
    per_pair: NotRequired[list[AlignRecord]]


class TrialInfo(TypedDict):
    """Trials requested and run, the judge temperature, whether they were identical, and why that matters."""

    requested: int
    run: int
    temperature: float
    identical: bool
    note: str


class QuestionOutcomes(TypedDict):
    """One question's outcome per trial (or per pass) and its length gap."""

    question_id: str
    question_type: str
    outcomes: list[Outcome]
    gap: int


class CriterionSummary(TypedDict):
    """A two-pass criterion: its outcome summary (only ``rates`` without pairs) and the A/B/tie counts."""

    rates: Rates | None
    ci: NotRequired[dict[str, list[float]]]
    confidence: NotRequired[float]
    verdict: NotRequired[str]
    per_trial: NotRequired[list[Rates]]
    per_trial_mean_std: NotRequired[dict[str, list[float]]]
    unmeasured: NotRequired[int]
    decisions: NotRequired[int]
    counts: dict[str, int]


class AACheck(TypedDict):
    """Pipeline A judged against itself: the verdict, whether it passed, and what flagged it."""

    questions: int
    verdict: str
    passed: bool
    length_flag: str
    generator: Shortfall
    flags: list[str]
    rates: Rates | None
    ci: dict[str, list[float]] | None
    position_consistency: float | None
    unmeasured: int
    trials: TrialInfo | None


class PairwiseResult(TypedDict):
    """What a pairwise judge returns (``result`` of a stored run): the overall outcome summary and the
    judge's own parts (aspects, alignment and trials for ``unbiased``; criteria for ``two-pass``)."""

    criteria: NotRequired[dict[str, CriterionSummary]]
    rates: Rates | None
    ci: NotRequired[dict[str, list[float]] | None]
    confidence: NotRequired[float]
    verdict: str
    per_trial: NotRequired[list[Rates]]
    per_trial_mean_std: NotRequired[dict[str, list[float]]]
    unmeasured: NotRequired[int]
    decisions: NotRequired[int]
    aspects: NotRequired[dict[str, Rates | None]]
    position_consistency: NotRequired[float | None]
    alignment: NotRequired[AlignmentSummary]
    trials: NotRequired[TrialInfo]
    length_gap: NotRequired[GapSummary]
    per_question: NotRequired[list[QuestionOutcomes]]
    aa_check: NotRequired[AACheck]


class SettingsRow(TypedDict, total=False):
    """The :class:`PairwiseSettings` a run used, as stored."""

    repeats: int
    trials: int
    align_lengths: bool
    both_orders: bool
    tolerance_words: int
    tolerance_share: float
    tolerance_min_words: int
    length_attempts: int
    exact_lengths: bool
    confidence: float
    bootstrap_samples: int
    seed: int
    temperature: float | None
    protocol: str


class PairwisePayload(TypedDict):
    """The payload of a stored pairwise run (and one entry of a pairwise report's JSON)."""

    id: str
    a: str
    b: str
    judge_name: NotRequired[str]
    protocol: NotRequired[str]
    dataset: NotRequired[str]
    questions: NotRequired[int]
    settings: NotRequired[SettingsRow]
    judge: NotRequired[JudgeDisclosure]
    result: PairwiseResult


def stored_pairwise(payload: dict[str, JsonValue]) -> PairwisePayload:
    """A stored pairwise run's payload, as :func:`kgrag.evaluation.service.pairwise.pairwise_run` wrote it
    (the store hands it back as plain JSON; keys newer than the run are missing, never of another type)."""
    return cast(PairwisePayload, payload)


__all__ = [
    "AACheck",
    "AlignRecord",
    "AlignmentSummary",
    "Correlation",
    "CriterionSummary",
    "GapSummary",
    "Outcome",
    "OutcomeSummary",
    "PairwisePayload",
    "PairwiseResult",
    "QuestionOutcomes",
    "Rates",
    "SettingsRow",
    "Shortfall",
    "TrialInfo",
    "stored_pairwise",
]
