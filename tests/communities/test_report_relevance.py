"""``global``'s relevance cut: which reports stand out on hand-made cosines (ties, one report, equal
cosines, shifted and scaled cosines), and in a workspace, that off plans over every report as before
while the cut keeps a best-first prefix of it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from tests.communities.conftest import WorkspaceMaker, index_docs

from kgrag import Workspace
from kgrag.documents import TokenCounter
from kgrag.prompts import load_prompt
from kgrag.retrieval.pipeline_settings import GlobalSettings
from kgrag.retrieval.steps.global_plan import MAP_PROMPT, REDUCE_PROMPT, plan_batches
from kgrag.retrieval.steps.report_relevance import relevant_count

SPREADS = (0.5, 1.0, 1.5, 2.0, 3.0)


def test_a_report_far_above_the_rest_is_read_alone() -> None:
    scores = [0.9, 0.5, 0.45, 0.4, 0.35, 0.3]
    # median 0.425, median absolute deviation 0.075 (× 1.4826 = 0.111): floors 0.48 and 0.59
    assert relevant_count(scores, 0.5) == 2
    assert relevant_count(scores, 1.5) == 1
    assert relevant_count(scores, 0) == len(scores)  # off: every report, the budget decides


def test_the_best_report_is_always_read_and_nothing_comes_from_nothing() -> None:
    assert relevant_count([0.31], 3.0) == 1
    assert relevant_count([], 3.0) == 0
    assert relevant_count([0.5, 0.4, 0.3, 0.2, 0.1], 100.0) == 1
    assert relevant_count([0.5, 0.5, 0.3, 0.2, 0.1], 100.0) == 2  # the best's ties with it
    assert relevant_count([float("nan"), 0.4, 0.3], 1.5) == 1  # a vector that was not a number


def test_equal_cosines_say_nothing_so_every_report_is_read() -> None:
    for spreads in SPREADS:
        assert relevant_count([0.42] * 7, spreads) == 7


def test_a_majority_tied_at_the_median_keeps_only_what_lies_above_it() -> None:
    assert relevant_count([0.8, 0.8, 0.6, 0.1, 0.1, 0.1, 0.1], 2.0) == 3
    assert relevant_count([0.1, 0.1, 0.1, 0.1, 0.0, -0.2], 2.0) == 4  # none above: those at the median


def test_ties_are_kept_or_dropped_together() -> None:
    rng = np.random.default_rng(3)
    for _ in range(200):
        scores = sorted(np.round(rng.normal(0.3, 0.1, size=int(rng.integers(2, 40))), 2).tolist(), reverse=True)
        for spreads in SPREADS:
            kept = relevant_count(scores, spreads)
            assert 1 <= kept <= len(scores)
            assert kept == len(scores) or scores[kept - 1] != scores[kept]


def test_the_cut_does_not_depend_on_the_cosines_scale_or_offset() -> None:
    scores = [0.75, 0.625, 0.5, 0.4375, 0.375, 0.3125, 0.25, 0.125]
    for spreads in SPREADS:
        kept = relevant_count(scores, spreads)
        assert relevant_count([2 * s - 0.5 for s in scores], spreads) == kept
        assert relevant_count([s / 4 + 0.25 for s in scores], spreads) == kept


def _global_ids(ws: Workspace, question: str) -> tuple[list[str], dict[str, object]]:
    result = ws.retrieve(question, pipeline="global", k=1)
    step = {s.step: s for s in result.trace}["global_candidates"]
    return [i.id for i in result.items], dict(step.params)


def test_off_plans_over_every_report_and_the_cut_keeps_a_prefix(make_ws: WorkspaceMaker, sample_docs: Path) -> None:
    question = "Which sensors does Osprey make?"
    settings = {"max_prompt_tokens": 20000}
    off = make_ws(name="off", retrieval={"pipelines": {"global": {**settings, "report_spreads": 0}}})
    index_docs(off, sample_docs)
    off.communities.build()
    total = len(off.store.communities.reports())
    ranked = off.retrieve(question, pipeline="community", k=total).items
    prompts = [load_prompt(name) for name in (MAP_PROMPT, REDUCE_PROMPT)]
    count = TokenCounter.for_encoding().count
    plan = plan_batches(question, [i.text for i in ranked], GlobalSettings(**settings), count, *prompts)
    ids, params = _global_ids(off, question)
    assert ids == [i.id for i in ranked[: plan.reports]] and "relevant" not in params

    cut = make_ws(name="cut", retrieval={"pipelines": {"global": {**settings, "report_spreads": 1.5}}})
    index_docs(cut, sample_docs)
    cut.communities.build()
    kept, params = _global_ids(cut, question)
    assert params["relevant"] == relevant_count([i.score for i in ranked], 1.5) == len(kept)
    assert 1 <= len(kept) < len(ids) and kept == ids[: len(kept)]


@pytest.mark.parametrize("value", [-0.5])
def test_a_negative_spread_is_refused(value: float) -> None:
    with pytest.raises(ValueError):
        GlobalSettings(report_spreads=value)
