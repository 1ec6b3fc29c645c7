"""Gleaning priced by the text a gleaning call re-sends (:mod:`kgrag.models.llm.estimate_glean`), and the
point follow-up rate mapped as the range's ends are, so a probed unit retried to the end is not priced into
every unit at more calls than a unit makes (:func:`kgrag.models.llm.estimate_range.extraction_point_rate`);
checked on a recorded real-model run replayed through the current code (:mod:`kgrag.testing.replay_estimate`)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from tests.conftest import SHARED_DATASETS

from kgrag.models.llm.estimate_glean import priced_gleaning
from kgrag.models.llm.estimate_range import MAX_FOLLOW_UPS, FailureSample, extraction_point_rate, extraction_rates
from kgrag.testing.replay_estimate import Recorded, Replayed, replay

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "llm_replies"
NOVEL = SHARED_DATASETS / "graphrag-bench-novel" / "corpus.json"
RECORDING = FIXTURES / "qwen2.5-coder-0.5b-q4km-novel26183-4096.jsonl"
NOVEL_26183 = Recorded(RECORDING, "Novel-26183", (60000, 200000, 380000))


def test_a_gleaning_call_is_priced_at_the_request_built_for_it() -> None:
    first = (4, 4000, 800)  # four first passes of 1,000 prompt tokens
    priced = priced_gleaning(first, (4, 1600), rate=0.5, completion_share=0.25)
    assert (priced.calls, priced.prompt, priced.completion) == (2, 800.0, 100.0)  # two of 400, not of 1,000


def test_without_built_requests_a_gleaning_call_is_priced_as_a_first_pass() -> None:
    priced = priced_gleaning((4, 4000, 800), (0, 0), rate=0.5, completion_share=0.25)
    assert (priced.calls, priced.prompt) == (2, 2000.0)
    assert priced_gleaning((4, 4000, 800), (4, 1600), rate=0.0, completion_share=0.25).calls == 0


def test_per_unit_every_priced_request_is_predicted_sent_whatever_the_rate() -> None:
    """Decided per unit on the stand-in (the requests built are those of the units the run would glean)."""
    priced = priced_gleaning((4, 4000, 800), (1, 400), rate=0.0, completion_share=0.25, per_unit=True)
    assert (priced.calls, priced.prompt, priced.completion) == (1, 400.0, 50.0)  # a quarter of a 200-token reply
    assert priced_gleaning((4, 4000, 800), (0, 0), rate=0.5, completion_share=0.25, per_unit=True).calls == 0


def test_the_point_follow_up_rate_is_the_measured_one_and_lies_in_the_range() -> None:
    assert extraction_point_rate(FailureSample()) == 0.0
    assert extraction_point_rate(FailureSample(calls=2)) == 0.0  # clean replies: no follow-ups
    measured = FailureSample(calls=400, failed=100, follow_ups=100.0)  # a quarter failed, one follow-up each
    assert extraction_point_rate(measured) == pytest.approx(100 / 300)
    every = FailureSample(calls=7, failed=5, follow_ups=5.5)  # one probed unit retried to the end
    low, high = extraction_rates(every)
    assert low <= extraction_point_rate(every) <= high == pytest.approx(MAX_FOLLOW_UPS)  # as many as a unit makes


@pytest.fixture(scope="module")
def replayed_26183(tmp_path_factory: pytest.TempPathFactory) -> Replayed:
    if not NOVEL.exists():
        pytest.skip("../shared/datasets/graphrag-bench-novel is not present")
    return replay(NOVEL_26183, NOVEL, tmp_path_factory.mktemp("replay"))


def test_the_replay_answers_every_request_from_the_recording(replayed_26183: Replayed) -> None:
    done = replayed_26183
    recorded = [json.loads(line) for line in NOVEL_26183.recording.read_text(encoding="utf-8").splitlines()]
    probe = next(line for line in done.lines if line.startswith("probe:"))
    found = re.search(r"(\d+) calls", probe)
    assert found is not None
    probe_calls = int(found.group(1))
    assert done.unrecorded == 0
    assert probe_calls + done.actual["calls"] == len(recorded)
    run = recorded[probe_calls:]
    assert done.actual["prompt_tokens"] == sum(r["usage"][0] for r in run)


def test_the_predicted_gleaning_re_sends_what_the_run_re_sent(replayed_26183: Replayed) -> None:
    """The run gleaned both units it sent, re-sending only their sparse chunks (490 and 589 prompt tokens,
    where a whole unit's first pass took 1,241 and 1,331): the estimate's gleaning calls are priced near
    the former, not the latter."""
    line = next(x for x in replayed_26183.lines if x.startswith("of which predicted: gleaning"))
    calls, prompt = (int(n) for n in re.findall(r"(\d+) (?:calls|prompt)", line))
    assert calls == 2
    assert 0.5 <= (prompt / calls) / ((490 + 589) / 2) <= 1.5
