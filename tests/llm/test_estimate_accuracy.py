"""``--estimate`` is honest enough to plan money on (#8): on the sample corpus, every figure (calls,
prompt and completion tokens, money) is within ±20% of a real run against the fake OpenAI server with
the realistic scripted extraction responder, while the estimate itself sends nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import SAMPLE_DOCS

from kgrag.testing.estimate_check import FIGURES, compare

TOLERANCE = 0.20


def test_estimate_within_20_percent_of_the_real_run(tmp_path: Path) -> None:
    result = compare(sorted(SAMPLE_DOCS.iterdir()), tmp_path)
    assert result.requests == 0
    for figure in FIGURES:
        assert result.ratio(figure) == pytest.approx(1.0, abs=TOLERANCE), f"{figure}\n{result.table()}"
    assert any("gleaning" in line for line in result.assumptions)
    assert any("summaries" in line for line in result.assumptions)


def test_gleaning_off_predicts_no_gleaning(tmp_path: Path) -> None:
    result = compare(sorted(SAMPLE_DOCS.iterdir())[:2], tmp_path, {"graph.gleaning": "false"})
    assert any("gleaning 0 calls" in line for line in result.assumptions)
