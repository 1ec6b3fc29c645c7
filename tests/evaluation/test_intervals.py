"""Bootstrap intervals and verdicts on synthetic score vectors whose truth is known: a clear difference
is detected, equal pipelines get no "best" at most seeds, a pipeline ahead on the point mean is never
named best without a paired interval that excludes 0, intervals cover the true mean at about their
level, and the same seed gives the same interval."""

from __future__ import annotations

import numpy as np
import pytest

from kgrag.core.eval_records import EvalRunRecord, EvalScore
from kgrag.evaluation.aggregate import ALL, MACRO, QuestionValues, question_values, summarize
from kgrag.evaluation.intervals import Bootstrap, estimates, excludes_zero, paired
from kgrag.evaluation.reports import render_run
from kgrag.evaluation.session import finish
from kgrag.evaluation.verdicts import verdict

TYPES = ("Fact", "Reason", "Summary")
FAST = Bootstrap(resamples=1000, seed=0)


def _values(scores: np.ndarray) -> QuestionValues:
    return {f"q{i:03d}": (TYPES[i % len(TYPES)], float(v)) for i, v in enumerate(scores)}


def _pair(rng: np.random.Generator, n: int, shift: float, noise: float = 0.15) -> tuple[QuestionValues, QuestionValues]:
    """Two pipelines on the same questions: per-question difficulty shared, ``shift`` added to the first."""
    difficulty = rng.uniform(0.2, 0.8, n)
    a = np.clip(difficulty + shift + rng.normal(0, noise, n), 0, 1)
    b = np.clip(difficulty + rng.normal(0, noise, n), 0, 1)
    return _values(a), _values(b)


def test_a_clear_difference_is_detected_and_named() -> None:
    a, b = _pair(np.random.default_rng(1), 60, shift=0.2)
    found = verdict({"a": {"m": a}, "b": {"m": b}}, "m", FAST)
    assert found["best"] == "a" and found["text"].startswith("Best on m")
    diff = found["against"]["b"]
    assert diff["ci95"][0] > 0 and diff["n"] == 60


def test_equal_distributions_get_no_verdict_at_most_seeds() -> None:
    named = 0
    for seed in range(40):
        a, b = _pair(np.random.default_rng(100 + seed), 40, shift=0.0)
        found = verdict({"a": {"m": a}, "b": {"m": b}}, "m", Bootstrap(resamples=500, seed=seed))
        named += found["best"] is not None
        if found["best"] is None:
            assert found["text"].startswith("No significant difference on m") and "95% CI" in found["text"]
    assert named <= 4  # the test's level is 2.5 % per seed (one-sided): about 1 of 40 expected


def test_the_verdict_line_counts_the_comparisons_that_decide_nothing() -> None:
    """Four equal pipelines: no comparison is significant, so the line names the group and counts the
    comparisons instead of listing each; every one stays in the JSON with its Holm-adjusted p."""
    rng = np.random.default_rng(11)
    scores = {name: {"m": _pair(rng, 40, shift=0.0)[0]} for name in ("a", "b", "c", "d")}
    found = verdict(scores, "m", Bootstrap(resamples=500, seed=1))
    against = found["against"]
    assert len(against) == 3 and all(cell["p_holm"] is not None for cell in against.values())
    assert "(3 comparisons, each in the JSON)." in found["text"] and "Holm-adjusted p" not in found["text"]
    assert sorted(found["leading"]) == ["a", "b", "c", "d"]


def _table(rows: dict[str, list[float]]) -> dict[str, dict[str, QuestionValues]]:
    return {name: {"m": {f"q{i:02d}": ("Fact", v) for i, v in enumerate(values)}} for name, values in rows.items()}


def test_a_verdict_names_no_leader_among_pipelines_tied_at_the_top() -> None:
    """Three pipelines score the same on every question, one is a little lower on two questions, one
    misses eight questions they find: the verdict names the three as tied at the top, no one of them as
    leader, the slightly lower one in their group, and the one below them with its interval and p."""
    found_all = [1.0] * 20
    low = [0.0 if i < 8 else 1.0 for i in range(20)]
    slightly = [0.5 if i < 2 else 1.0 for i in range(20)]
    table = _table({"rerank": found_all, "bm25": found_all, "auto": found_all, "dense": low, "hybrid": slightly})
    found = verdict(table, "m", FAST, ALL, (0.0, 1.0))
    text = found["text"]
    assert found["best"] is None and found["top"] == ["auto", "bm25", "rerank"]
    assert found["leading"] == ["auto", "bm25", "rerank", "hybrid"]
    head = "No significant difference on m (question-weighted mean, Holm over 4 paired tests) among "
    assert text.startswith(head + "auto, bm25, rerank (tied at 1.000), hybrid (3 comparisons, each in the JSON).")
    dense = found["against"]["dense"]
    assert dense["p_holm"] is not None and dense["p_holm"] < 0.05
    low_end, high_end = dense["ci95"]
    shown = f"Significantly below them: dense (top − dense: +0.400, 95% CI [{low_end:+.3f}, {high_end:+.3f}], n = 20"
    assert shown in text and f"Holm-adjusted p = {dense['p_holm']:.3f})." in text
    assert "auto −" not in text and "**" not in text


def test_a_verdict_states_the_significant_comparisons_and_counts_the_rest() -> None:
    """A clear leader, two pipelines not distinguishable from it and two significantly below: the line
    names the leading group, then each pipeline below it (closest first) with its difference, interval
    and Holm-adjusted p, and counts the two comparisons that are not significant."""
    rng = np.random.default_rng(5)
    base = rng.uniform(0.3, 0.7, 40)
    table = _table(
        {
            "a": list(base + 0.2),
            "b": list(base + 0.2 - np.where(np.arange(40) < 2, 0.1, 0.0)),
            "c": list(base + 0.2 - np.where(np.arange(40) < 3, 0.1, 0.0)),
            "d": list(base + 0.05 + rng.normal(0, 0.02, 40)),
            "e": list(base - 0.1 + rng.normal(0, 0.02, 40)),
        }
    )
    found = verdict(table, "m", FAST, ALL, (0.0, 1.0))
    text, against = found["text"], found["against"]
    assert found["best"] is None and found["top"] == ["a"] and found["leading"] == ["a", "b", "c"]
    assert text.startswith("No significant difference on m (question-weighted mean, Holm over 4 paired tests) ")
    assert "among a, b, c (2 comparisons, each in the JSON). Significantly below them: d (a − d: " in text
    assert text.index("d (a − d: ") < text.index("; e (a − e: ")
    for name in ("d", "e"):
        cell = against[name]
        assert cell["p_holm"] is not None and cell["p_holm"] < 0.05
        assert f"{name} (a − {name}: {cell['mean']:+.3f}, 95% CI [{cell['ci95'][0]:+.3f}" in text
        assert f"Holm-adjusted p = {cell['p_holm']:.3f})" in text
    assert all(against[name]["p_holm"] > 0.05 for name in ("b", "c"))


def test_no_best_without_an_interval_excluding_zero_against_every_other_pipeline() -> None:
    rng = np.random.default_rng(7)
    a, b = _pair(rng, 60, shift=0.25)
    c = {q: (t, min(1.0, v + rng.normal(0, 0.05))) for q, (t, v) in a.items()}  # a's equal: same truth
    per_question = {"a": {"m": a}, "b": {"m": b}, "c": {"m": c}}
    for column in (ALL, MACRO):
        found = verdict(per_question, "m", FAST, column)
        assert found["best"] is None, found["text"]
        tied = found["leading"]
        assert set(tied) == {"a", "c"}  # b is clearly behind, so it is not among the tied
        assert "Significantly below them: b (" in found["text"]
        other = "c" if tied[0] == "a" else "a"
        assert not excludes_zero(found["against"][other]["ci95"])
        assert excludes_zero(found["against"]["b"]["ci95"])  # the leader's real lead over b is still shown


def test_intervals_cover_the_true_mean_at_about_their_level() -> None:
    rng = np.random.default_rng(11)
    covered = 0
    trials = 120
    for trial in range(trials):
        sample = rng.beta(2, 3, 50)  # true mean 0.4
        ci = estimates(_values(sample), Bootstrap(resamples=500, seed=trial))[ALL].ci95
        assert ci is not None
        covered += ci[0] <= 0.4 <= ci[1]
    assert 0.85 <= covered / trials <= 1.0


def test_intervals_are_analytic_and_need_no_seed() -> None:
    values = _values(np.random.default_rng(3).uniform(0, 1, 30))
    first = estimates(values, Bootstrap(seed=5))
    assert first == estimates(values, Bootstrap(seed=6))
    assert first[ALL].mean == pytest.approx(np.mean([v for _, v in values.values()]))


def test_types_macro_and_small_groups() -> None:
    values = {"q1": ("A", 1.0), "q2": ("A", 1.0), "q3": ("A", 1.0), "q4": ("B", 0.0)}
    found = estimates(values, FAST)
    assert found["A"].ci95 == (1.0, 1.0) and found["B"].ci95 is None and found["B"].n == 1
    assert found[ALL].mean == pytest.approx(0.75)
    assert found[MACRO].mean == pytest.approx(0.75)  # both types are below 10 questions: weights 3 : 1
    assert found["A"].small and found["B"].small and found["A"].as_cell()["small"]
    assert found[MACRO].ci95 == (0.75, 0.75)  # no spread within A, none pooled for B
    assert estimates({}, FAST) == {} and estimates({"q": ("A", 0.3)}, FAST)[ALL].ci95 is None
    diff = paired(values, {"q1": ("A", 0.0), "q9": ("A", 1.0)}, FAST)
    assert diff[ALL].n == 1 and diff[ALL].mean == 1.0  # only shared questions are paired


def _scores(per_pipeline: dict[str, np.ndarray], runs: int = 1) -> list[EvalScore]:
    return [
        EvalScore("r", run, pipeline, f"q{i:03d}", TYPES[i % 3], "rouge-l", float(v))
        for run in range(runs)
        for pipeline, values in per_pipeline.items()
        for i, v in enumerate(values)
    ]


def test_report_names_no_best_when_the_interval_includes_zero() -> None:
    rng = np.random.default_rng(2)
    base = rng.uniform(0, 1, 24)
    scores = _scores({"dense": base, "bm25": np.clip(base + rng.normal(0.01, 0.2, 24), 0, 1)}, runs=2)
    record = EvalRunRecord("r", "run", 0.0, "d", payload={"id": "r", "plan": {"pipelines": ["dense", "bm25"]}})
    run = finish(record, scores)
    text = render_run(run)
    assert "Best on" not in text and "No significant difference on rouge-l" in text
    assert run.stats["baseline"] == "dense" and run.stats["paired"]["rouge-l"]["bm25"][ALL]["n"] == 24
    cell = run.summary["bm25"]["rouge-l"][ALL]
    assert cell["n"] == 24 and cell["runs"] == 2 and cell["std"] == 0.0 and len(cell["ci95"]) == 2
    assert set(question_values(scores)) == {"dense", "bm25"}


def test_cold_and_warm_latency_are_apart() -> None:
    scores = [EvalScore("r", run, "p", f"q{i}", "A", "cost.latency_ms", 200.0 if run == 0 else 5.0)
              for run in range(3) for i in range(4)]  # fmt: skip
    row = summarize(scores)["p"]
    assert row["cost.latency_cold_ms"][ALL]["mean"] == 200.0 and row["cost.latency_warm_ms"][ALL]["mean"] == 5.0
    assert row["cost.latency_warm_ms"][ALL]["runs"] == 2


def test_one_question_of_a_small_type_cannot_decide_a_verdict() -> None:
    """Two pipelines that agree on 60 questions of three types and differ by 1.0 on the single question
    of a fourth type: that question weighs 1/31 of Macro, and the verdict is checked without it."""
    rng = np.random.default_rng(4)
    a = {f"q{i:02d}": (TYPES[i % 3], float(v)) for i, v in enumerate(rng.uniform(0, 1, 60))}
    b = {q: (t, v + float(rng.normal(0, 0.01))) for q, (t, v) in a.items()}
    a["creative"], b["creative"] = ("Creative", 0.0), ("Creative", 1.0)
    for column in (MACRO, ALL):
        found = verdict({"a": {"m": a}, "b": {"m": b}}, "m", FAST, column)
        assert found["best"] is None, found["text"]
    macro = paired(b, a, FAST)[MACRO]
    assert macro.mean is not None and macro.mean < 0.05  # the one question's weight is 1/31, not 1/4
    assert paired(b, a, FAST)["Creative"].small


def test_holm_names_a_clear_leader_among_many() -> None:
    rng = np.random.default_rng(8)
    difficulty = rng.uniform(0.2, 0.8, 80)
    per_question = {
        name: {"m": _values(np.clip(difficulty + shift + rng.normal(0, 0.05, 80), 0, 1))}
        for name, shift in [("best", 0.15), *((f"p{i}", 0.0) for i in range(6))]
    }
    found = verdict(per_question, "m", FAST, ALL)
    assert found["best"] == "best" and found["family"] == {"rule": "holm", "alpha": 0.05, "comparisons": 6}
    assert all(cell["p_holm"] <= 0.05 for cell in found["against"].values())


def test_a_recall_interval_stays_within_what_a_recall_can_be() -> None:
    """One hit among 17 questions skews Hall's interval past 0; with the range known it stops at 0,
    and a difference of two such recalls stays within [-1, 1]."""
    values = {f"q{i:02d}": ("Fact", 1.0 if i == 0 else 0.0) for i in range(17)}
    raw = estimates(values, FAST)["Fact"].ci95
    assert raw is not None and raw[0] < 0  # the range is what cuts it, not the method
    cut = estimates(values, FAST, (0.0, 1.0))["Fact"]
    assert cut.ci95 is not None and cut.ci95[0] == 0.0 and cut.ci95[1] == raw[1] and cut.mean == 1 / 17
    ones = {q: ("Fact", 1.0 - v) for q, (_, v) in values.items()}
    diff = paired(ones, values, FAST, (0.0, 1.0))[ALL]
    assert diff.ci95 is not None and diff.ci95[0] >= -1.0 and diff.ci95[1] <= 1.0


BM25 = [1, 0.67, 1, 1, 1, 1, 0.5, 0, 1, 1]
RERANK = [1, 0.67, 1, 1, 1, 1, 0.5, 0, 0.67, 1]  # the same but one question lower


def test_a_higher_score_does_not_move_the_far_side_of_its_interval_down() -> None:
    """Ten recalls piled at 1 with one 0: one question scoring higher raises the skewness, and Hall's
    inverse transform, read near where its slope vanishes, had sent the lower bound from 0.36 to −0.14."""
    from kgrag.evaluation.stats.spreads import score_bounds, skew_t_bounds

    higher, lower = np.asarray(BM25, dtype=float), np.asarray(RERANK, dtype=float)
    assert higher.mean() > lower.mean()
    assert skew_t_bounds(higher, 0.95)[0] >= skew_t_bounds(lower, 0.95)[0] - 0.02
    assert score_bounds(higher, 0.95, 1.0)[0] >= score_bounds(lower, 0.95, 1.0)[0] - 0.02
    reported = [estimates(_values(np.asarray(v)), FAST, (0.0, 1.0))[ALL].ci95 for v in (BM25, RERANK)]
    assert reported[0] is not None and reported[1] is not None and reported[0][0] >= reported[1][0] - 0.02


@pytest.mark.parametrize("n", [5, 10, 16, 30, 100])
def test_hall_s_interval_stays_within_twice_student_s_half_width(n: int) -> None:
    """Every shape of skew, down to one odd value among n equal ones: the skewness-corrected side reaches
    further than Student's, never past twice its half-width (the transform is read where it is steep)."""
    from scipy import stats as sps

    from kgrag.evaluation.stats.spreads import skew_t_bounds, t_stats

    rng = np.random.default_rng(n)
    piled = np.where(rng.random((3000, n)) < rng.uniform(0.0, 0.95, (3000, 1)), 1.0, rng.beta(0.5, 2, (3000, n)))
    odd_one = np.ones((n, n)) - np.eye(n) * np.linspace(0.05, 1.0, n)[:, None]
    for values in (piled, 1 - piled, odd_one, 1 - odd_one):
        low, high = skew_t_bounds(values, 0.95)
        mean, se, df = t_stats(values)
        half = float(sps.t.ppf(0.975, df)) * se
        assert np.all(low >= mean - 2 * half - 1e-12) and np.all(high <= mean + 2 * half + 1e-12)
        assert np.all(low <= mean + 1e-12) and np.all(high >= mean - 1e-12)


def test_a_best_among_many_gives_its_closest_comparison_and_counts_the_others() -> None:
    rng = np.random.default_rng(5)
    difficulty = rng.uniform(0.2, 0.6, 80)
    scores = {"lead": _values(np.clip(difficulty + 0.35, 0, 1))}
    for i, gap in enumerate((0.3, 0.25, 0.2, 0.15)):
        scores[f"p{i}"] = _values(np.clip(difficulty + 0.35 - gap + rng.normal(0, 0.02, 80), 0, 1))
    found = verdict({p: {"m": v} for p, v in scores.items()}, "m", FAST)
    assert found["best"] == "lead"
    text = found["text"]
    assert "closest, vs p3: " in text and "the other 3 comparisons further apart, each in the JSON" in text
    assert "vs p0" not in text and set(found["against"]) == {"p0", "p1", "p2", "p3"}
