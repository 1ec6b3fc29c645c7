"""Units a model fails for good, seen before the run: the estimate warns that the run leaves the graph
incomplete, prices the run that happens (community detection waits, so no reports) and shows the reports
apart; and the probe extracts more units when its replies faulted."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from tests.llm.test_estimate_servers import MEDICAL, _slices
from tests.llm.test_estimate_structure import NEVER

from kgrag.core.llm_types import ChatRequest, Message, Prices, PromptRef
from kgrag.indexing.estimate_failures import MORE_UNITS, more_units, probe_failures
from kgrag.models.llm.estimate import EstimatingProvider
from kgrag.models.llm.estimate_assumed import EstimateAssumptions
from kgrag.models.llm.tokens import default_token_counter
from kgrag.testing.estimate_check import Comparison, compare
from kgrag.testing.extraction_responder import ExtractionResponder

GRAPHRAG = {"indexing.pipeline": '"graphrag"'}
REPORTS = "index.community-reports"


def _report_request() -> ChatRequest:
    messages = cast(
        tuple[Message, ...], ({"role": "system", "content": "Report."}, {"role": "user", "content": "Material (1)"})
    )
    return ChatRequest(messages, "m", prompt=PromptRef("community_report", "1"))


def test_held_back_reports_leave_the_total_and_are_shown_apart() -> None:
    counter = default_token_counter()
    priced = EstimatingProvider(NEVER, counter, EstimateAssumptions())
    priced.complete(_report_request())
    waiting = EstimatingProvider(NEVER, counter, EstimateAssumptions(held_back="1 of 2 probed units failed"))
    waiting.complete(_report_request())
    full, held = priced.report(Prices()), waiting.report(Prices())
    assert full.calls == 1 and held.calls == 0
    assert held.assumptions[0] == "warning: 1 of 2 probed units failed"
    held_line = "of which counted: held back (not in the total): community_report 1 calls"
    assert any(line.startswith(held_line) for line in held.predicted)
    assert not any("held back" in line for line in full.predicted)
    no_communities = EstimatingProvider(NEVER, counter, EstimateAssumptions(report_share=0.0))
    no_communities.complete(_report_request())  # a model without communities: none to report, none held back
    assert not any("held back" in line for line in no_communities.report(Prices()).predicted)


def test_more_units_are_new_distinct_and_few() -> None:
    ranked = [f"u{n}" for n in range(8)]
    extra = more_units(ranked, ["u2", "u6"])
    assert extra == ["u4", "u1"] and len(extra) == MORE_UNITS
    assert more_units(ranked[:2], ranked[:2]) == []  # nothing left to add
    assert more_units([], []) == []


def _reports_made(result: Comparison) -> float:
    return result.measured_by_stage.get(REPORTS, {}).get("calls", 0.0)


def _within(result: Comparison) -> None:
    for figure in ("calls", "prompt_tokens", "completion_tokens"):
        assert result.ratio(figure) == pytest.approx(1.0, abs=0.25), f"{figure}\n{result.table()}"


@pytest.mark.slow
@pytest.mark.skipif(not MEDICAL.exists(), reason="the shared Medical corpus is not present")
def test_a_probe_whose_units_all_fail_warns_and_prices_no_reports(tmp_path: Path) -> None:
    # a model that rejects every attempt at every unit: the run makes three calls a unit and no report
    failing = ExtractionResponder(fail_markers=(" the ",)).for_server
    result = compare(_slices(tmp_path, 1, 16_000), tmp_path / "work", GRAPHRAG, responder=failing, probe=True)
    assert result.assumptions[0].startswith("warning: 4 of 4 probed units failed extraction on every attempt")
    assert any("held back (not in the total): community_report" in line for line in result.assumptions)
    assert _reports_made(result) == 0
    _within(result)
    from kgrag import Workspace

    with Workspace.open(tmp_path / "work" / "estimate") as ws:  # the real run has extracted since the probe:
        assert probe_failures(ws.store) == (0, 0)  # the probe's record is stale, the failed chunks say the rest
        assert ws.store.graph.counts()["chunks_failed"] > 0


@pytest.mark.slow
@pytest.mark.skipif(not MEDICAL.exists(), reason="the shared Medical corpus is not present")
def test_chunks_an_earlier_run_left_failed_hold_back_the_reports(tmp_path: Path) -> None:
    # two units of the earlier slice (those naming melanoma) fail on every attempt, in both runs
    failing = ExtractionResponder(fail_markers=("melanoma",)).for_server
    history, target = _slices(tmp_path, 2)
    result = compare([target], tmp_path / "work", GRAPHRAG, responder=failing, history=[history])
    assert "chunks an earlier run left failed are retried" in result.assumptions[0]
    assert _reports_made(result) == 0
    _within(result)
