"""First passes stopped in a repetition loop, measured from the ledger and priced by the estimate
(:mod:`kgrag.models.llm.estimate_loops`): at what was read before the loop, and never gleaned."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import cast

import pytest
from tests.conftest import SAMPLE_DOCS
from tests.graph_llm.test_llm_extract_loop import _hung_up, _looping
from tests.llm.test_estimate_structure import NEVER

from kgrag import Workspace
from kgrag.core.llm_types import ChatRequest, Message, Prices, PromptRef, UsageSource
from kgrag.core.llm_usage import CallRecord
from kgrag.models.llm.estimate import EstimatingProvider
from kgrag.models.llm.estimate_assumed import EstimateAssumptions
from kgrag.models.llm.estimate_loops import LoopShare
from kgrag.models.llm.reply_stats import measure_replies
from kgrag.models.llm.tokens import default_token_counter
from kgrag.testing import FakeOpenAIServer
from kgrag.testing.estimate_check import KEY_ENV, write_workspace
from kgrag.testing.extraction_responder import ExtractionResponder

TEXT = "Ada Morrow of Fenwick Labs met Jonas Pell in Harwick."


def _row(completion: int, source: UsageSource = "api", error: str | None = None) -> CallRecord:
    return CallRecord("r", "index.extract", "openai", "m", 1000, completion, source, 1.0, False, 1, error=error)


def _request(prompt: str) -> ChatRequest:
    messages = cast(tuple[Message, ...], ({"role": "user", "content": f"Extract.\nText:\n{TEXT}"},))
    return ChatRequest(messages, "m", {"max_tokens": 2400}, PromptRef(prompt, "1"))


def _estimate(assumptions: EstimateAssumptions, units: int = 4) -> tuple[int, str]:
    """Completion of ``units`` first passes, and the gleaning line, with a gleaning request built for each."""
    provider = EstimatingProvider(NEVER, default_token_counter(), assumptions)
    for _ in range(units):
        provider.complete(_request("extract_graph"))
        provider.complete(_request("glean_graph"))  # the stand-in's choice: every unit gleaned
    report = provider.report(Prices())
    gleaning = next(line for line in report.predicted if "gleaning" in line)
    return provider._extract.completion, gleaning


def test_the_ledger_tells_the_share_of_first_passes_that_looped_and_what_was_read() -> None:
    cut = "the reply was cut off at the token limit; give a shorter complete answer"
    rows = [_row(450, "loop"), _row(200), _row(200, "counted"), _row(800, error=cut), _row(200), _row(200)]
    stats = measure_replies(rows, model="m", stage="index.extract")
    assert stats is not None and stats.loops == 1 and stats.loop_completion == 450
    assert stats.first_calls == pytest.approx(6 - 1.5)  # a cut reply causes 1.5 follow-ups on average
    assert stats.loop_share == pytest.approx(1 / 4.5)
    assert stats.unlooped_completion == pytest.approx((200 * 4 + 800) / 5)
    every = measure_replies([_row(300, "loop")], model="m", stage="index.extract")
    assert every is not None and every.loop_share == 1.0 and every.unlooped_completion == 300


def test_a_share_of_first_passes_is_priced_at_the_loop_and_those_units_are_not_gleaned() -> None:
    measured = EstimateAssumptions(extraction_completion=200.0, glean_by_stand_in=True, glean_completion_share=0.5)
    clean_completion, clean_gleaning = _estimate(measured)
    assert clean_completion == 4 * 200 and "gleaning 4 calls" in clean_gleaning
    assert clean_gleaning.endswith("+ 400 completion tokens")  # half of a 200-token reply each

    half = LoopShare(share=0.5, completion=600.0, loops=1, first_calls=2.0)
    looped_completion, looped_gleaning = _estimate(replace(measured, loops=half))
    assert looped_completion == 4 * (0.5 * 200 + 0.5 * 600)
    assert "gleaning 2 calls" in looped_gleaning  # the looping half is not gleaned...
    assert looped_gleaning.endswith("+ 200 completion tokens")  # ...and the rest replies as a clean unit's share

    every = LoopShare(share=1.0, completion=600.0, loops=1, first_calls=1.0)
    _, none = _estimate(replace(measured, loops=every))
    assert "gleaning 0 calls" in none


def test_the_assumption_lines_say_what_the_loop_share_rests_on() -> None:
    lines = EstimateAssumptions(loops=LoopShare(1.0, 386.0, 1, 1.0)).lines()
    assert any("100% of first passes stop in a repetition loop (1 of 1 measured)" in line for line in lines)
    assert not any("repetition loop" in line for line in EstimateAssumptions().lines())


def test_a_probe_whose_reply_loops_is_stopped_and_prices_the_run_by_it(tmp_path: Path) -> None:
    """Over HTTP, a local server learning its JSON mode (``json_schema`` refused) whose model loops: the
    probe's first call is streamed and stopped at the loop, and the estimate prices the other units at what
    was read, without gleaning them."""
    os.environ.setdefault(KEY_ENV, "sk-estimate-check")
    docs = sorted(SAMPLE_DOCS.iterdir())[:3]
    looping = _looping(ExtractionResponder())
    with (
        FakeOpenAIServer(looping, behaviour="llama-cpp-python", stream_delay_s=0.001) as server,
        Workspace.open(write_workspace(tmp_path / "ws", server.base_url)) as ws,
    ):
        _, estimate = ws.estimate_index(docs, probe=True)
        probed = [c for c in ws.store.llm_ledger.calls() if c.stage == "index.extract" and not c.estimated]
        rejected, aborted = dict(server.stats.format_rejections), _hung_up(server, len(probed))
    assert rejected == {"json_schema": 1}
    assert probed and all(c.usage_source == "loop" for c in probed)
    assert aborted == len(probed)  # the first one too: read only up to its loop, then hung up on
    read = sum(c.completion_tokens for c in probed) / len(probed)
    assert any(f"each priced at the {read:.0f} tokens read before the loop" in line for line in estimate.assumptions)
    assert any(line.startswith("of which predicted: gleaning 0 calls") for line in estimate.predicted)


def test_the_range_takes_the_loop_share_at_the_ends_of_its_interval_for_the_gleaning() -> None:
    """One probed unit that did not loop does not rule out a model that loops on most units: the low end
    glean less (looped units are not gleaned); the point keeps the measured share (none)."""
    measured = EstimateAssumptions(extraction_completion=200.0, glean_by_stand_in=True, glean_completion_share=0.5)
    clean_one = replace(measured, loops=LoopShare(share=0.0, completion=0.0, loops=0, first_calls=1.0))
    unmeasured = _range(measured)
    point, low, high = _range(clean_one)
    assert point == unmeasured[0] == 8  # four first passes, four gleaning calls
    assert unmeasured[1] == 8  # nothing measured: no loop term
    assert high == unmeasured[2]  # the high end: no loop (the interval's low end), re-asks as before
    assert low == 4 + round(4 * (1 - LoopShare(0.0, 0.0, 0, 1.0).interval()[1]))
    assert LoopShare(0.0, 0.0, 0, 1.0).interval() == pytest.approx((0.0, 0.771), abs=1e-3)


def _range(assumptions: EstimateAssumptions) -> tuple[int, int, int]:
    provider = EstimatingProvider(NEVER, default_token_counter(), assumptions)
    for _ in range(4):
        provider.complete(_request("extract_graph"))
        provider.complete(_request("glean_graph"))
    report = provider.report(Prices())
    assert report.low is not None and report.high is not None
    return report.calls, report.low.calls, report.high.calls
