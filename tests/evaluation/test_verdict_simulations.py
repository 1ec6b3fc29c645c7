"""Simulations with known truth on the production formulas (seeded, vectorised): intervals hold 95 %
coverage for All, Macro and every stratum of at least ``MIN_STRATUM`` questions with a skewed type mix;
equal pipelines are named best in at most 5 % of question sets however many are compared; and the power
to find a true difference of 0.05 at 68 questions is what the planner predicts. Paired differences, which
pile up at 0 when two pipelines agree on most questions, hold their coverage too."""

from __future__ import annotations

import numpy as np
import pytest

from kgrag.evaluation.stats.intervals import Bootstrap, estimates, paired
from kgrag.evaluation.stats.planner import power_at
from kgrag.evaluation.stats.simulate import (
    DIFFERENCES,
    HARSH,
    SHAPES,
    SPARSE,
    coverage,
    difference_coverage,
    false_best,
    power,
    type_counts,
)
from kgrag.evaluation.stats.spreads import skew_t_bounds

REPS = 4000


@pytest.mark.parametrize("shapes", [SHAPES, HARSH, SPARSE], ids=["skewed", "harsh", "piled-at-one-end"])
@pytest.mark.parametrize("n", [16, 30, 68, 515])
def test_intervals_cover_the_truth_at_every_size_and_stratum(n: int, shapes: tuple) -> None:
    found = coverage(n, REPS, seed=n, shapes=shapes)
    assert found.counts == type_counts(n) and min(found.counts) * 5 <= max(found.counts)  # a skewed mix
    assert found.all >= 0.93 and found.macro >= 0.93, found
    assert found.strata and all(value >= 0.93 for value in found.strata.values()), found


@pytest.mark.parametrize("k", [2, 5, 13])
@pytest.mark.parametrize("column", ["All", "Macro"])
def test_equal_pipelines_are_rarely_named_best(k: int, column: str) -> None:
    """With two pipelines the leader is whichever is ahead, so any exact test names a best in 5 % of
    sets; the measured rate may sit above 0.05 by sampling noise alone, so it is held to 0.05 plus two
    standard errors of the estimate. With more pipelines Holm keeps it far below."""
    reps = 12_000 if k == 2 else 3000
    for n in (16, 68):
        rate = false_best(k, n, reps, seed=10 * k + n, column=column)
        assert rate <= 0.05 + 2 * (0.05 * 0.95 / reps) ** 0.5, (k, n, column, rate)
        assert k == 2 or rate <= 0.01


def test_power_for_a_true_difference_of_005_at_68_questions_matches_the_planner() -> None:
    found, truth = power(68, 0.05, 0.15, REPS, seed=3)
    assert truth == pytest.approx(0.05, abs=0.003)
    predicted = power_at(68, truth, 0.15 * 2**0.5, alpha=0.05)
    assert 0.3 < found < 0.7  # a 0.05 difference at 68 questions is found about half the time
    assert found == pytest.approx(predicted, abs=0.05)


def test_shapes_are_skewed_with_point_masses() -> None:
    assert all(shape.zero > 0 and shape.one > 0 for shape in SHAPES)
    assert {round(shape.mean, 2) for shape in SHAPES} == {0.72, 0.3, 0.5, 0.23}


def test_pairwise_win_rate_intervals_cover_the_true_relative_rate() -> None:
    """Questions × trials of A / B / tie outcomes whose per-question win chances vary: the cluster t
    interval of the relative win rate holds its level at 12 and 30 questions."""
    from kgrag.evaluation.pairwise.stats import cluster_intervals

    rng = np.random.default_rng(6)
    win_a = np.clip(rng.normal(0.4, 0.3, 400_000), 0, 1)
    tie = np.minimum(rng.uniform(0, 0.3, win_a.size), 1 - win_a)
    truth = float(np.mean(win_a - (1 - win_a - tie)))
    for questions, trials in ((12, 3), (30, 1)):
        covered = 0
        for _ in range(250):
            picks = rng.integers(0, win_a.size, questions)
            draws = rng.random((questions, trials))
            a, t = win_a[picks, None], tie[picks, None]
            table = np.where(draws < a, "A", np.where(draws < a + t, "tie", "B")).tolist()
            low, high = cluster_intervals(table, 0.95)["relative"]
            covered += low <= truth <= high
        assert covered / 250 >= 0.93, (questions, trials, covered / 250)


@pytest.mark.parametrize("shape", list(DIFFERENCES), ids=list(DIFFERENCES))
@pytest.mark.parametrize("n", [16, 30, 68, 515])
def test_paired_difference_intervals_cover_the_truth(shape: str, n: int) -> None:
    assert difference_coverage(DIFFERENCES[shape], n, REPS, seed=n) >= 0.93, (shape, n)


def test_a_skewness_corrected_interval_would_not_cover_sparse_differences() -> None:
    """The shapes above can fail a method: the score intervals' skewness correction, applied to
    differences where one question in seven differs, covers well under 0.93."""
    shape = DIFFERENCES["14 % differ, either way"]
    values = shape.draw(np.random.default_rng(54), (REPS, 54))
    low, high = skew_t_bounds(values, 0.95)
    assert np.mean((low <= shape.mean) & (shape.mean <= high)) < 0.91


def test_the_p_of_a_paired_difference_inverts_its_interval() -> None:
    """A difference is significant exactly when its interval excludes 0: seven questions down, one up,
    46 the same (the shape where a skewness-corrected interval excluded 0 and the t-test did not)."""
    base = {f"q{i}": ("Fact", 0.5) for i in range(54)}
    changes = dict.fromkeys(range(7), -0.25) | {7: 0.5}
    other = {f"q{i}": ("Fact", 0.5 + changes.get(i, 0.0)) for i in range(54)}
    for found in paired(other, base, Bootstrap()).values():
        assert found.ci95 is not None and found.p_value() is not None
        assert (found.ci95[1] < 0) == (found.p_value() < 0.05), found
    same = paired(base, base, Bootstrap(), (0.0, 1.0))["All"]
    assert same.mean == 0 and same.ci95 is not None and same.ci95[0] < 0 < same.ci95[1]  # no certainty from ties


def test_a_type_where_every_score_is_0_still_gets_an_interval() -> None:
    """No hit in 11 questions is not proof that the pipeline never finds anything there: with the
    scores' range known, the interval reaches about where three hits in 11 would put the mean."""
    nothing = {f"q{i}": ("Creative Generation", 0.0) for i in range(11)}
    found = estimates(nothing, Bootstrap(), (0.0, 1.0))["Creative Generation"]
    assert found.mean == 0 and found.ci95 is not None
    assert found.ci95[0] == 0 and 0.15 < found.ci95[1] < 0.35, found
    assert estimates(nothing, Bootstrap())["Creative Generation"].ci95 == (0.0, 0.0)  # range unknown


def test_pairwise_relative_win_rate_covers_when_the_judge_mostly_calls_ties() -> None:
    """Nine trials in ten a tie, A slightly ahead: the relative win rate piles up at 0 per question, as a
    paired difference does, and still holds its level at 12 × 3 and 30 × 1 (Hall's interval alone
    covered 0.84–0.86 here)."""
    from kgrag.evaluation.pairwise.stats import cluster_intervals

    rng = np.random.default_rng(3)
    win_a, tie = 0.06, 0.90
    truth = win_a - (1 - win_a - tie)
    for questions, trials in ((12, 3), (30, 1)):
        covered = 0
        for _ in range(400):
            draws = rng.random((questions, trials))
            table = np.where(draws < win_a, "A", np.where(draws < win_a + tie, "tie", "B")).tolist()
            low, high = cluster_intervals(table, 0.95)["relative"]
            covered += low <= truth <= high
        assert covered / 400 >= 0.93, (questions, trials, covered / 400)


def test_one_tiny_difference_does_not_collapse_an_interval() -> None:
    """A type where two pipelines tie everywhere and the same type with one difference of 0.001: the
    pseudo pair moves towards the observed size gradually, so the interval and Macro's p barely move."""
    a = {f"a{i}": ("A", 0.1) for i in range(12)} | {f"b{i}": ("B", 0.25 if i < 14 else 0.0) for i in range(40)}
    b = {f"a{i}": ("A", 0.1) for i in range(12)} | {f"b{i}": ("B", 0.0) for i in range(40)}
    tied = paired(a, b, Bootstrap(), (0.0, 1.0))
    nudged = paired(a | {"a0": ("A", 0.101)}, b, Bootstrap(), (0.0, 1.0))
    assert tied["A"].ci95 is not None and nudged["A"].ci95 is not None
    assert nudged["A"].ci95[1] > 0.5 * tied["A"].ci95[1]
    assert nudged["Macro"].p_value() > 0.2 and tied["Macro"].p_value() > 0.2  # type: ignore[operator]


def test_a_verdict_tests_the_differences_its_table_shows() -> None:
    """With the scores' range given to both, the verdict names a best only where the table's interval
    excludes 0 (a tied type's spread depends on the range)."""
    from kgrag.evaluation.stats.verdicts import verdict

    a = {f"a{i}": ("A", 0.1) for i in range(12)} | {f"b{i}": ("B", 0.25 if i < 14 else 0.0) for i in range(40)}
    b = {f"a{i}": ("A", 0.1) for i in range(12)} | {f"b{i}": ("B", 0.0) for i in range(40)}
    table = paired(a, b, Bootstrap(), (0.0, 1.0))["Macro"]
    found = verdict({"p1": {"recall": a}, "p2": {"recall": b}}, "recall", Bootstrap(), "Macro", (0.0, 1.0))
    assert table.ci95 is not None
    assert (found["best"] == "p1") == (table.ci95[0] > 0), (found["text"], table.ci95)
