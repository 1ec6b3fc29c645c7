"""A report on LLM-free generated questions says so, and says when the set is too easy to separate the
pipelines (more than half of them find >= 90% of its evidence): the rule itself, and a stored run's
markdown report."""

from __future__ import annotations

from kgrag.core.eval_records import EvalRunRecord, EvalScore
from kgrag.evaluation.datasets import LLM_FREE_KINDS, LLM_KINDS
from kgrag.evaluation.generated_caveats import Row, generated_caveats
from kgrag.evaluation.qgen.generate import PROMPTS
from kgrag.evaluation.reports import render_run
from kgrag.evaluation.session import finish


def _rows(kind: str, recall: dict[str, list[float | None]], prefix: str = "q") -> list[Row]:
    return [
        (f"{prefix}{i}", kind, pipeline, value) for pipeline, values in recall.items() for i, value in enumerate(values)
    ]


def test_hand_written_questions_carry_no_caveat() -> None:
    assert generated_caveats(_rows("Fact Retrieval", {"bm25": [1.0, 1.0], "dense": [1.0, 1.0]})) == []


def test_generated_questions_are_named_and_counted() -> None:
    mixed = _rows("known-item", {"bm25": [0.5, 1.0], "dense": [0.0, 1.0]})
    mixed += _rows("Fact Retrieval", {"bm25": [1.0, 1.0, 0.0], "dense": [0.0, 1.0, 0.0]}, prefix="h")
    caveats = generated_caveats(mixed)
    assert len(caveats) == 1 and caveats[0].startswith("2 of 5 questions were generated without an LLM")


def test_a_mix_with_an_llms_questions_is_told_what_the_mix_is_for() -> None:
    free = _rows("known-item", {"bm25": [1.0, 1.0], "dense": [0.95, 1.0], "ppr": [0.1, 0.2]})
    written = _rows("single-fact", {"bm25": [1.0, 0.5, 1.0], "dense": [0.5] * 3, "ppr": [0.0] * 3}, "w")
    caveats = generated_caveats(free + written)
    assert caveats[0].startswith("2 of 5 questions were generated without an LLM and 3 written by an LLM")
    assert "first choice" in caveats[0] and "choose between pipelines on hand-written" not in caveats[0]
    # most pipelines exhaust the LLM-free part: the differences come from the LLM's questions
    assert len(caveats) == 3 and caveats[1].endswith("the differences between them come from the LLM's.")
    # both kinds put the pipelines in the same order here: the rank agreement says so, with its interval
    assert caveats[2].startswith("On this set the two kinds rank the 3 pipelines at Kendall τ 1.00 [")
    assert "2 and 3 questions" in caveats[2]
    disagreeing = _rows("single-fact", {"bm25": [0.0] * 3, "dense": [0.5] * 3, "ppr": [1.0] * 3}, "w")
    assert "at Kendall τ -1.00 [" in generated_caveats(free + disagreeing)[2]
    # a third source (hand-written questions) is not such a mix: the plain caveat
    hand = _rows("Fact Retrieval", {"bm25": [1.0], "dense": [1.0], "ppr": [1.0]}, "h")
    plain = generated_caveats(free + written + hand)
    assert plain[0].startswith("2 of 6 questions were generated without an LLM (") and "too easy" in plain[1]
    assert len(plain) == 2  # no rank agreement between kinds outside such a mix
    two_pipelines = [row for row in free + written if row[2] != "ppr"]
    assert len(generated_caveats(two_pipelines)) == 2  # nor with fewer than three pipelines to rank
    assert generated_caveats(written) == []  # only an LLM's questions: nothing LLM-free to warn about


def test_the_llm_kinds_are_the_generators_own() -> None:
    assert set(LLM_KINDS) == set(PROMPTS) and not set(LLM_KINDS) & set(LLM_FREE_KINDS)


def test_a_set_most_pipelines_nearly_exhaust_is_called_too_easy() -> None:
    easy = {"bm25": [1.0, 0.9, None], "dense": [1.0, 0.8, 1.0], "ppr": [0.2, 0.2, 0.2]}
    caveats = generated_caveats(_rows("two-chunk", easy))
    assert len(caveats) == 2 and caveats[1].startswith("2 of 3 pipelines (bm25, dense) find at least 90%")


def test_half_the_pipelines_exhausting_it_is_not_enough() -> None:
    assert len(generated_caveats(_rows("known-item", {"bm25": [1.0, 1.0], "dense": [0.5, 0.5]}))) == 1
    assert len(generated_caveats(_rows("known-item", {"bm25": [1.0, 1.0]}))) == 1


def test_a_stored_run_reads_its_caveats_from_its_scores() -> None:
    record = EvalRunRecord(
        "run-x", "run", 0.0, "generated.json", "", {"id": "run-x", "plan": {"pipelines": ["bm25", "dense"]}}
    )
    recall = {"bm25": 1.0, "dense": 0.95}
    scores = [
        EvalScore("run-x", r, pipeline, f"q{i}", "known-item", metric, value)
        for r in (0, 1)
        for pipeline in recall
        for i in range(3)
        for metric, value in (("evidence-recall", recall[pipeline]), ("rouge-l", 0.1), ("cost.context_tokens", 900.0))
    ]
    run = finish(record, scores)
    assert len(run.caveats) == 2 and run.caveats[0].startswith("3 of 3 questions were generated")
    assert "**Generated questions.** " + run.caveats[0] in render_run(run)
    no_recall = finish(record, [s for s in scores if s.metric != "evidence-recall"])
    assert len(no_recall.caveats) == 1  # nothing says how easy the set is without evidence recall


def test_a_report_says_why_a_metric_went_unmeasured() -> None:
    """A 0.5B judge copied its worked example for every faithfulness reply: the table said `–` and
    `unmeasured`, and only an export said why."""
    record = EvalRunRecord("run-y", "run", 0.0, "q.json", "", {"id": "run-y", "plan": {"pipelines": ["bm25", "dense"]}})
    copied = "judge reply unusable: invalid reply after one re-ask: it copies the example reply ('The context …')"
    scores = [
        EvalScore("run-y", 0, pipeline, f"q{i}", "Fact Retrieval", metric, value, note)
        for pipeline in ("bm25", "dense")
        for i in range(2)
        for metric, value, note in (
            ("faithfulness:llm", None, copied),
            ("rouge-l", 0.2, ""),
            ("cost.context_tokens", 900.0, ""),
        )
    ]
    report = render_run(finish(record, scores))
    assert f"- Unmeasured: 4 of 4 scores: 4 × {copied}" in report
    assert report.count("- Unmeasured") == 1  # rouge-l, measured everywhere, has no such line
