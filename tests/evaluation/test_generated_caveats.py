"""A retrieval report on LLM-free generated questions says so, and says when the set is too easy to
separate the pipelines (more than half of them find ≥ 90% of its evidence)."""

from __future__ import annotations

from kgrag.evaluation.generated_caveats import generated_caveats
from kgrag.evaluation.retrieval_eval import QuestionOutcome


def _outcomes(kind: str, recall: dict[str, list[float | None]]) -> list[QuestionOutcome]:
    return [
        QuestionOutcome(f"q{i}", kind, pipeline, value, 1.0, [])
        for pipeline, values in recall.items()
        for i, value in enumerate(values)
    ]


def test_hand_written_questions_carry_no_caveat() -> None:
    assert generated_caveats(_outcomes("Fact Retrieval", {"bm25": [1.0, 1.0], "dense": [1.0, 1.0]})) == []


def test_generated_questions_are_named_and_counted() -> None:
    mixed = _outcomes("known-item", {"bm25": [0.5, 1.0], "dense": [0.0, 1.0]})
    mixed += _outcomes("Fact Retrieval", {"bm25": [1.0, 1.0, 0.0], "dense": [0.0, 1.0, 0.0]})
    # q0 and q1 exist in both kinds here, so give the hand-written ones their own ids
    for o in mixed[4:]:
        o.id = "h" + o.id
    caveats = generated_caveats(mixed)
    assert len(caveats) == 1 and caveats[0].startswith("2 of 5 questions were generated without an LLM")


def test_a_set_most_pipelines_nearly_exhaust_is_called_too_easy() -> None:
    easy = {"bm25": [1.0, 0.9, None], "dense": [1.0, 0.8, 1.0], "ppr": [0.2, 0.2, 0.2]}
    caveats = generated_caveats(_outcomes("two-chunk", easy))
    assert len(caveats) == 2 and caveats[1].startswith("2 of 3 pipelines (bm25, dense) find at least 90%")


def test_half_the_pipelines_exhausting_it_is_not_enough() -> None:
    half = {"bm25": [1.0, 1.0], "dense": [0.5, 0.5]}
    assert len(generated_caveats(_outcomes("known-item", half))) == 1
    one = {"bm25": [1.0, 1.0]}
    assert len(generated_caveats(_outcomes("known-item", one))) == 1
