"""The probe writes one community report for real when the pipeline writes LLM reports, so the estimate
prices how this model answers the report prompt: a model whose reports run past
``communities.report_max_tokens`` pays a re-ask for each of them, which nothing else the probe sends shows."""

from __future__ import annotations

import itertools
import json
from functools import partial
from pathlib import Path

import pytest
from tests.conftest import MEDICAL as MEDICAL_DIR

from kgrag.communities.detect import COMMUNITY_BUILDERS
from kgrag.config import CommunitiesConfig
from kgrag.core.registries import Registries
from kgrag.graph.types import ChunkExtraction, ExtractedEntity, ExtractedRelation
from kgrag.indexing.estimate_communities import reportable_groups
from kgrag.indexing.estimate_probe_report import probe_job
from kgrag.testing.estimate_check import compare, medical_slices
from kgrag.testing.extraction_responder import ExtractionResponder, request_kind
from kgrag.testing.fake_openai_server import cut_at_max_tokens
from kgrag.testing.wire import ChatBody

MEDICAL = MEDICAL_DIR / "corpus.json"
SLICE_CHARACTERS = 32_000


def _groups() -> partial[list]:  # type: ignore[type-arg]
    return partial(reportable_groups, config=CommunitiesConfig(), builders=Registries().get(COMMUNITY_BUILDERS))


def _extraction(chunk: str, names: list[str], pairs: list[tuple[str, str]]) -> ChunkExtraction:
    entities = [ExtractedEntity(name, "concept", f"{name} as the text describes it.") for name in names]
    relations = [ExtractedRelation(a, b, "related to", f"{a} works with {b}.") for a, b in pairs]
    return ChunkExtraction(chunk, entities, relations)


def test_the_probe_reports_on_a_community_of_what_the_model_extracted() -> None:
    square = ["Alder", "Birch", "Cedar", "Damson"]
    line = ["Elm", "Fir", "Gorse", "Hazel", "Ivy", "Juniper"]
    extractions = [
        _extraction("c1", square, [(a, b) for i, a in enumerate(square) for b in square[i + 1 :]]),
        # the same names again (case differs) and a repeated relation: merged as the graph builder merges them
        _extraction("c2", [n.upper() for n in square[:2]] + line, [("ALDER", "BIRCH"), *itertools.pairwise(line)]),
        ChunkExtraction("c3", [ExtractedEntity("Broken", "concept", "")], [], error="invalid reply"),
    ]
    job = probe_job(extractions, _groups())
    assert job is not None
    members = {e.name.casefold() for e in job.entities}
    assert len(members) == job.community.size >= CommunitiesConfig().min_community_size
    assert "broken" not in members  # a failed chunk's items are not the model's graph
    assert all(
        r.source_id in job.community.entity_ids and r.target_id in job.community.entity_ids for r in job.relations
    )
    assert len({(r.source_id, r.target_id) for r in job.relations}) == len(job.relations)
    assert [e.name for e in job.entities][:1] != []  # ranked entities with their own descriptions
    assert all(e.description for e in job.entities)


def test_no_report_is_probed_without_a_community_large_enough() -> None:
    lonely = [_extraction("c1", ["Alder", "Birch", "Cedar"], [])]
    assert probe_job(lonely, _groups()) is None


def _long_reports(body: ChatBody) -> str:
    """The realistic responder, except that every report request, re-asks included, gets a long report
    (eight findings of three sentences) stopped at the request's ``max_tokens``: a model that cannot write
    a report within the cap (each report is asked again, then falls back to the extractive one)."""
    kind, _ = request_kind(body.get("messages", []))
    if kind != "report":
        return ExtractionResponder().for_server(body)
    sentence = "This finding restates at length how the members of the group relate to one another in the text."
    findings = [
        {"summary": f"Finding {n}", "explanation": " ".join([sentence] * 3), "refs": ["E1"]} for n in range(1, 9)
    ]
    long = json.dumps({"title": "A group", "summary": sentence, "findings": findings, "rating": 5})
    return cut_at_max_tokens(long, int(body.get("max_tokens") or 0) or 10**6)[0]


@pytest.mark.slow
@pytest.mark.skipif(not MEDICAL.exists(), reason="the shared Medical corpus is not present")
def test_the_probe_prices_reports_asked_again_after_a_cut(tmp_path: Path) -> None:
    (target,) = medical_slices(MEDICAL, tmp_path, 1, SLICE_CHARACTERS)
    settings = {"indexing.pipeline": '"graphrag"'}
    result = compare([target], tmp_path / "work", settings, responder=_long_reports, probe=True)
    assert any(line.startswith("probe: one community report written for real") for line in result.assumptions)
    measured = [line for line in result.assumptions if "community_report" in line and "re-asks" in line]
    assert measured and "(1.00 re-asks)" in measured[0], result.assumptions
    reports = result.measured_by_stage["index.community-reports"]["calls"]
    assert reports >= 4  # enough reports that their re-asks matter to the run's calls
    for figure in ("calls", "prompt_tokens", "completion_tokens"):
        assert result.ratio(figure) == pytest.approx(1.0, abs=0.25), f"{figure}\n{result.table()}"
