"""The estimate is right for a model it was not tuned on: on a Medical slice, ``--estimate --probe`` of the
standard pipeline is within ±25% of the real run for calls, prompt and completion tokens against both the
realistic scripted server and the terse one (different entities, relations, gleaning and reply sizes);
so are the estimates that need what only the model's replies show: a terse model's graph (calibrated by
the graph an earlier run stored) and how a model answers denoising prompts (measured by the probe)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kgrag.testing.estimate_check import Comparison, compare, medical_slices
from kgrag.testing.extraction_responder import ExtractionResponder
from kgrag.testing.terse_responder import TerseResponder

MEDICAL = Path(__file__).resolve().parents[2].parent / "shared" / "datasets" / "graphrag-bench-medical" / "corpus.json"
TOLERANCE = 0.25
# about 8k tokens: 7-8 extraction units, 5-6 left after the probe's two (fewer, and one gleaning call more
# or less is a quarter of the run's calls)
SLICE_CHARACTERS = 32_000


def _slice(out: Path) -> Path:
    return _slices(out, 1)[0]


def _slices(out: Path, count: int, characters: int = SLICE_CHARACTERS) -> list[Path]:
    """``count`` consecutive slices of the Medical corpus of about ``characters`` each."""
    return medical_slices(MEDICAL, out, count, characters)


def _within(result: Comparison, what: str) -> None:
    for figure in ("calls", "prompt_tokens", "completion_tokens"):
        assert result.ratio(figure) == pytest.approx(1.0, abs=TOLERANCE), f"{what} {figure}\n{result.table()}"


@pytest.mark.slow
@pytest.mark.skipif(not MEDICAL.exists(), reason="the shared Medical corpus is not present")
@pytest.mark.parametrize("server", ["realistic", "terse"])
def test_standard_estimate_within_25_percent_on_both_servers(tmp_path: Path, server: str) -> None:
    responder = ExtractionResponder().for_server if server == "realistic" else TerseResponder().for_server
    result = compare([_slice(tmp_path)], tmp_path / "work", responder=responder, probe=True)
    for figure in ("calls", "prompt_tokens", "completion_tokens"):
        assert result.ratio(figure) == pytest.approx(1.0, abs=TOLERANCE), f"{server} {figure}\n{result.table()}"


@pytest.mark.slow
@pytest.mark.skipif(not MEDICAL.exists(), reason="the shared Medical corpus is not present")
@pytest.mark.parametrize("pipeline", ["graphrag", "denoised"])
def test_a_stored_graph_calibrates_the_stand_in_to_a_terse_model(tmp_path: Path, pipeline: str) -> None:
    # the terse model's relations are dropped by grounding: its graph has (almost) no community to report on,
    # and fewer names to merge; the ledger alone does not show that, the graph an earlier run stored does
    settings = {"indexing.pipeline": f'"{pipeline}"', "denoise.llm_confirm": "true", "denoise.reflection": '"llm"'}
    history, target = _slices(tmp_path, 2)
    result = compare([target], tmp_path / "work", settings, responder=TerseResponder().for_server, history=[history])
    assert any("calibrated by the stored graph" in line for line in result.assumptions), result.assumptions
    reports = [line for line in result.assumptions if "counted: community_report" in line]
    assert all(int(line.split("community_report ")[1].split()[0]) <= 1 for line in reports), reports
    _within(result, f"terse {pipeline}, ledger")


@pytest.mark.slow
@pytest.mark.skipif(not MEDICAL.exists(), reason="the shared Medical corpus is not present")
def test_the_probe_measures_how_the_model_answers_denoising_prompts(tmp_path: Path) -> None:
    # this server answers merge confirmations and reflection invalidly, so each is asked again: only a real
    # call of each prompt shows it
    settings = {"indexing.pipeline": '"denoised"', "denoise.llm_confirm": "true", "denoise.reflection": '"llm"'}
    (target,) = _slices(tmp_path, 1)
    result = compare([target], tmp_path / "work", settings, responder=ExtractionResponder().for_server, probe=True)
    assert any("confirm_merge" in line and "1.00 re-asks" in line for line in result.assumptions), result.assumptions
    _within(result, "realistic denoised, --probe")
