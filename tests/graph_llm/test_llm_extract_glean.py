"""Gleaning: one extra call only where the first pass looks incomplete, re-sending only what is needed."""

from __future__ import annotations

from typing import Any

import pytest

from kgrag.core.llm_types import StructuredResult, Usage
from kgrag.graph.extract.glean import FEW_ENTITIES, FEW_RELATIONS, REASKED, GleanPolicy
from kgrag.graph.extract.parse import ParsedItems
from kgrag.graph.extract.units import build_units
from kgrag.graph.types import ExtractedEntity, ExtractedRelation
from kgrag.testing.extraction_responder import ExtractionResponder

DENSE = (
    "Alice Smith met Bob Jones. Carol White hired Dan Brown. Erin Black joined Acme Corp. "
    "Frank Green left Globex Inc. Grace Hall met Henry Ford. Ivy Lane leads Initech. "
)
PLAIN = (
    "the team reviewed the plan for the next quarter and agreed that the work should continue "
    "at the same pace while the budget is checked again by the finance group later on. "
) * 3
SPARSE = PLAIN + "In the end Zoe Quinn approved it."


@pytest.fixture
def chunks(kit: Any) -> list[Any]:
    return kit.sample_chunks(limit=4)


def test_a_complete_first_pass_is_not_gleaned(kit: Any) -> None:
    chunks = kit.chunk_records(DENSE * 8, "dense")
    responder = ExtractionResponder()
    extractor, _ = kit.run_extraction(chunks, responder)
    assert extractor.stats.gleaned_units == 0
    assert "glean" not in responder.calls
    assert set(extractor.client.summary().by_stage) == {"index.extract"}


def test_sparse_units_are_gleaned_and_the_union_is_the_full_extraction(kit: Any, chunks: list[Any]) -> None:
    _, full = kit.run_extraction(chunks, ExtractionResponder())
    everything_sparse = GleanPolicy(min_entities_per_100_tokens=50.0, min_tokens=1)
    responder = ExtractionResponder(first_pass_share=0.3)
    extractor, extractions = kit.run_extraction(chunks, responder, glean=everything_sparse)
    assert kit.comparable(extractions) == kit.comparable(full)
    assert responder.calls["glean"] == extractor.stats.gleaned_units == extractor.stats.units
    assert extractor.stats.glean_reasons == {FEW_ENTITIES: extractor.stats.units}
    stages = extractor.client.summary().by_stage
    assert stages["index.glean"].calls == stages["index.extract"].calls == extractor.stats.units


def test_gleaning_off_keeps_the_partial_first_pass(kit: Any, chunks: list[Any]) -> None:
    _, full = kit.run_extraction(chunks, ExtractionResponder())
    responder = ExtractionResponder(first_pass_share=0.3)
    _, extractions = kit.run_extraction(chunks, responder, glean=GleanPolicy(enabled=False))
    assert "glean" not in responder.calls
    partial, complete = kit.comparable(extractions), kit.comparable(full)
    assert all(partial[cid][0] <= complete[cid][0] for cid in complete)
    assert sum(len(v[0]) for v in partial.values()) < sum(len(v[0]) for v in complete.values())


def test_a_reask_does_not_trigger_gleaning(kit: Any, chunks: list[Any]) -> None:
    """Whether a reply needed a re-ask depends on transient faults; the calls and the graph must not (#8)."""
    clean_responder = ExtractionResponder()
    _, clean = kit.run_extraction(chunks, clean_responder)
    responder = ExtractionResponder(malformation="garbage")  # every first attempt is unusable
    extractor, extractions = kit.run_extraction(chunks, responder)
    assert kit.comparable(extractions) == kit.comparable(clean)
    assert REASKED not in extractor.stats.glean_reasons
    assert responder.calls["extract-reask"] == extractor.stats.units
    assert responder.calls["glean"] == clean_responder.calls["glean"]


def test_only_sparse_chunks_are_resent_with_the_names_found_there(kit: Any) -> None:
    chunks = [kit.chunk_records(DENSE, "u")[0], kit.chunk_records(SPARSE, "u")[0]]
    chunks[1] = type(chunks[1])(
        **{**chunks[1].__dict__, "id": "u:1", "ord": 1, "char_start": 10_000, "char_end": 10_000 + len(SPARSE)}
    )
    policy = GleanPolicy(min_entities_per_100_tokens=15.0, min_tokens=20)  # unit ~10/100, DENSE ~30/100
    responder = ExtractionResponder()
    client = kit.scripted_client(responder)
    extractor = kit.make_extractor(client, glean=policy)
    list(extractor.extract(chunks))
    assert extractor.stats.glean_reasons == {FEW_ENTITIES: 1}
    glean_request = [r for r in client.runner.provider.requests if r.prompt and r.prompt.name == "glean_graph"]
    assert len(glean_request) == 1
    user = next(m["content"] for m in glean_request[0].messages if m["role"] == "user")
    assert user == f"Found: Zoe Quinn\nText:\n{SPARSE.strip()}"


def _result(reasked: bool = False) -> StructuredResult[Any]:
    return StructuredResult(value=None, error=None, usage=Usage(), reasked=reasked)


def _items(entities: int, relations: int) -> ParsedItems:
    es = [ExtractedEntity(f"E{i}", "concept", "") for i in range(entities)]
    rs = [ExtractedRelation(f"E{i}", f"E{i + 1}", "x", "") for i in range(relations)]
    return ParsedItems(es, rs)


def test_policy_reasons(kit: Any) -> None:
    unit = build_units(kit.chunk_records(PLAIN * 2, "p"), 5000, kit.counter)[0]
    assert unit.n_tokens > 100
    policy = GleanPolicy()
    assert policy.reason(unit, _result(reasked=True), _items(50, 50)) is None
    assert policy.reason(unit, _result(), _items(0, 0)) == FEW_ENTITIES
    assert policy.reason(unit, _result(), _items(20, 2)) == FEW_RELATIONS
    assert policy.reason(unit, _result(), _items(20, 10)) is None
    assert GleanPolicy(enabled=False).reason(unit, _result(reasked=True), _items(0, 0)) is None
    assert GleanPolicy(min_tokens=10_000).reason(unit, _result(), _items(0, 0)) is None  # short: exempt


@pytest.mark.parametrize("per_unit", [True, False])
def test_an_estimate_with_measured_shares_gleans_only_units_whose_stand_in_looks_thin(kit: Any, per_unit: bool) -> None:
    """The run gleans a unit whose first pass looks incomplete; with the stand-in's shares measured the
    estimate decides that per unit on the stand-in first pass (the dense unit: not gleaned), else it
    prices every unit's request and the gleaning rate says how many are sent (nothing is sent either way)."""
    from kgrag.config.llm import LLMConfig
    from kgrag.models.llm.estimate_assumed import EstimateAssumptions
    from kgrag.models.llm.registry import create_llm_client

    chunks = [*kit.chunk_records(DENSE * 8, "dense"), *kit.chunk_records(SPARSE * 3, "sparse")]
    assumed = EstimateAssumptions(glean_rate=1.0, glean_by_stand_in=per_unit)
    client = create_llm_client(
        LLMConfig(provider="scripted"), provider=ExtractionResponder().provider(), counter=kit.counter,
        estimate=True, assumptions=assumed,
    )  # fmt: skip
    extractor = kit.make_extractor(client)
    list(extractor.extract(chunks))
    estimate = client.estimate()
    assert estimate is not None and extractor.stats.units == 2
    gleaning = next(line for line in estimate.predicted if line.startswith("of which predicted: gleaning"))
    calls = 1 if per_unit else 2  # the sparse unit alone; or every unit at the rate (1.0)
    assert gleaning.startswith(f"of which predicted: gleaning {calls} calls")
