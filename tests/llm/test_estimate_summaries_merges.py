"""Description summaries predicted from the model's own entities and description lengths, and merge
confirmations scaled by the groups the resolution plan finds among the model's own entities."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest
from tests.llm.test_estimate_structure import NEVER

from kgrag.config import DenoiseConfig
from kgrag.core.llm_types import ChatRequest, Message, Prices, PromptRef
from kgrag.core.registries import Registries
from kgrag.graph.types import ChunkExtraction, ExtractedEntity
from kgrag.indexing.estimate_descriptions import extraction_share, name_shares, probe_described
from kgrag.indexing.estimate_merges import group_counter, group_ratio, merge_ratio, resolution_groups
from kgrag.indexing.estimate_shares import Shares, UnitSample
from kgrag.models.llm.estimate import EstimatingProvider
from kgrag.models.llm.estimate_assumed import EstimateAssumptions
from kgrag.models.llm.estimate_counted import counted_share
from kgrag.models.llm.estimate_summaries import DescribedName, DescribedNames, occurs, predicted_summaries
from kgrag.models.llm.tokens import default_token_counter

LIMIT = 300


def _described(*names: DescribedName, tokens: float = 50.0, hit: float = 1.0) -> DescribedNames:
    return DescribedNames(names, tokens, hit, 4)


def test_names_are_matched_as_whole_words_as_written() -> None:
    assert occurs(["insulin"], "Doses of insulin vary.")
    assert not occurs(["insulin"], "Insulinoma is rare.")  # part of a word
    assert not occurs(["Insulin"], "doses of insulin vary")  # as written: a model naming "Insulin" wrote it so


def test_a_name_met_in_enough_units_with_long_descriptions_costs_a_summary() -> None:
    texts = [f"Unit {n}: the patient took insulin." for n in range(8)]
    long = _described(DescribedName(("insulin",), 0), tokens=50.0)
    calls, prompt, completion = predicted_summaries(texts, long, LIMIT, 90, None)
    assert calls == 1 and completion == LIMIT  # eight descriptions of ~51 tokens pass 300
    assert prompt > 8 * 50 + 90
    short = _described(DescribedName(("insulin",), 0), tokens=20.0)
    assert predicted_summaries(texts, short, LIMIT, 90, None)[0] == 0  # eight of ~21 do not
    rarely = _described(DescribedName(("insulin",), 0, hit=0.25), tokens=50.0)
    assert predicted_summaries(texts, rarely, LIMIT, 90, None)[0] == 0  # extracted from two units of eight
    assert predicted_summaries(texts, long, LIMIT, 90, 40)[2] == 40  # a measured summary reply


def test_stored_descriptions_count_only_when_the_run_touches_the_name() -> None:
    texts = ["the patient took insulin", "insulin again"]
    stored = _described(DescribedName(("insulin",), 280), DescribedName(("aspirin",), 400), tokens=30.0)
    calls, _, _ = predicted_summaries(texts, stored, LIMIT, 90, None)
    assert calls == 1  # insulin passes the limit with the run's two descriptions; aspirin is not touched
    probed = _described(DescribedName(("aspirin",), 400, touched=True))
    assert predicted_summaries([], probed, LIMIT, 90, None)[0] == 1  # a probed unit names it: the run merges it


def test_the_share_of_units_extracting_a_name_leaves_the_unit_that_made_it_known_out() -> None:
    units = [
        ("insulin and aspirin", frozenset({"insulin", "aspirin"})),
        ("insulin only", frozenset({"insulin"})),
        ("insulin, not extracted", frozenset()),
        ("aspirin, not extracted", frozenset()),
    ]
    surfaces = {"insulin": ("insulin",), "aspirin": ("aspirin",)}
    # insulin: 3 fair trials (each unit naming it, extracted elsewhere), 2 hits; aspirin: 1 trial (the unit
    # extracting it is its only one), 0 hits in the other
    assert extraction_share(units, surfaces) == pytest.approx(2 / 4)
    shares = name_shares(units, surfaces, 0.5)
    assert shares["insulin"] == pytest.approx((2 - 1 + 0.5) / 3)
    assert shares["aspirin"] == pytest.approx((1 - 1 + 0.5) / 2)
    assert extraction_share(units[:1], surfaces) == 1.0  # nothing named twice: nothing measured


def test_the_probe_records_its_names_with_their_descriptions() -> None:
    counter = default_token_counter()
    description = "A hormone that lowers the level of glucose in the blood of a patient."
    first = ChunkExtraction("c1", [ExtractedEntity("insulin", "concept", description)])
    second = ChunkExtraction("c2", [ExtractedEntity("Insulin", "concept", description + " Again.")])
    described = probe_described([("insulin is given", [first]), ("Insulin and insulin", [second])])
    assert described is not None and described.units == 2
    (name,) = described.names
    assert name.touched and set(name.surfaces) == {"insulin", "Insulin"}
    assert name.known_tokens == counter.count(description + "\n" + description + " Again.")
    assert described.mention_tokens == pytest.approx((2 * counter.count(description) + 2) / 2)


def test_the_provider_predicts_summaries_from_the_units_it_prices() -> None:
    described = _described(DescribedName(("insulin",), 200), tokens=60.0)
    assumptions = EstimateAssumptions(summary_limit=LIMIT, summary_overhead_tokens=90, described=described)
    provider = EstimatingProvider(NEVER, default_token_counter(), assumptions)
    for n in range(3):
        provider.complete(_request("extract_graph", f"Extract.\nText:\nDose {n} of insulin was given."))
    report = provider.report(Prices(0.0, 0.0))
    assert "of which predicted: summaries 1 calls" in " ".join(report.predicted)
    assert any("summaries, one call per name" in line for line in report.assumptions)


def test_group_counts_scale_only_when_they_differ_beyond_chance() -> None:
    assert group_ratio(8, 6) == 1.0  # a probe's few units: a group or two is noise
    assert group_ratio(43, 40) == 1.0
    assert group_ratio(0, 21) == 0.0  # none where the stand-in has twenty
    assert group_ratio(30, 5) == pytest.approx(6.0)
    assert group_ratio(3, 0) == 1.0  # no stand-in group: nothing to scale


VARIANTS = (
    "Type 2 Diabetes Mellitus is common. Diabetes Mellitus Type 2 affects adults. "
    "Chronic Kidney Disease follows. Kidney Disease Chronic Stage is late. "
    "Acute Myeloid Leukemia is rare. Myeloid Leukemia Acute Form is treated. "
    "Atrial Fibrillation Episode is common. Fibrillation Atrial Episode recurs."
)


NAMES = (
    "Type 2 Diabetes Mellitus", "Diabetes Mellitus Type 2", "Chronic Kidney Disease", "Kidney Disease Chronic Stage",
    "Acute Myeloid Leukemia", "Myeloid Leukemia Acute Form", "Atrial Fibrillation Episode",
    "Fibrillation Atrial Episode",
)  # fmt: skip
NOUNS = ("diabetes", "kidney", "leukemia", "fibrillation", "episode", "adults", "stage", "form")


def test_the_resolution_plan_finds_groups_among_name_variants_and_none_among_distinct_nouns() -> None:
    config, registries = DenoiseConfig(), Registries()
    nouns = [(word, "concept", "") for word in NOUNS]
    assert resolution_groups(nouns, [], config=config, registries=registries) == 0
    variants = [(name, "concept", "") for name in NAMES]
    assert resolution_groups(variants, [], config=config, registries=registries) >= 2


def test_a_model_of_lower_case_nouns_asks_for_no_confirmation_where_the_stand_in_asks_many() -> None:
    counter = group_counter(DenoiseConfig(), Registries())
    nouns = [(word, "concept", "") for word in NOUNS]
    lower = UnitSample(VARIANTS, frozenset(NOUNS), frozenset(), entities=nouns)
    assert merge_ratio([lower], 1.0, 1.0, counter) == 0.0
    names = [(name, "concept", "") for name in NAMES]  # the stand-in's own names: as many groups
    alike = UnitSample(VARIANTS, frozenset(n.casefold() for n in NAMES), frozenset(), entities=names)
    assert merge_ratio([alike], 1.0, 1.0, counter) == 1.0


def test_the_merge_ratio_is_stored_and_scales_only_the_confirmations() -> None:
    shares = Shares(0.5, 1.2, 4, 30.0, 40.0, 1.5, 0.0)
    assert Shares.parse(shares.stored()) == shares
    old = Shares.parse("0.5 1.2 4 30.0 40.0 1.5")  # stored before the ratio was measured
    assert old is not None and old.merges == 1.0
    assumptions = EstimateAssumptions(merge_share=0.0, report_share=1.5)
    assert counted_share(assumptions, "confirm_merge") == 0.0
    assert counted_share(assumptions, "community_report") == 1.5
    assert counted_share(assumptions, "reflect_triples") == 1.0


def _request(prompt: str, user: str) -> ChatRequest:
    messages = cast(tuple[Message, ...], ({"role": "system", "content": "Extract."}, {"role": "user", "content": user}))
    return ChatRequest(messages, "m", params={}, prompt=PromptRef(prompt, "1"))  # type: ignore[arg-type]


def test_the_stored_graph_gives_each_entity_its_stored_descriptions(tmp_path: Path) -> None:
    from tests.helpers import add_document

    from kgrag import Workspace
    from kgrag.core.graph_records import EntityMention
    from kgrag.core.records import DocumentStatus
    from kgrag.indexing.estimate_descriptions import META_PROBE_DESCRIBED, described_for, stored_described
    from kgrag.indexing.estimate_stored import read_stored_graph

    texts = ["The patient took insulin daily.", "Insulin was raised for the patient.", "The patient slept."]
    with Workspace.init(tmp_path / "ws", embedding={"provider": "fake"}, graph={"extractor": "none"}) as ws:
        chunks = add_document(ws.store, "d", texts, DocumentStatus.EMBEDDED)
        long = "A hormone given to the patient to lower the level of glucose in the blood."
        with ws.store.transaction():
            ws.store.graph.add_entity_mentions(
                [
                    EntityMention("insulin", chunks[0], "insulin", "concept", long),
                    EntityMention("insulin", chunks[1], "Insulin", "concept", long + " Raised."),
                    EntityMention("patient", chunks[0], "patient", "person", "One person."),
                ]
            )
        graph = read_stored_graph(ws.store, unit_tokens=5)  # one unit per chunk
        assert graph is not None and len(graph.units) == 2  # the third unit holds no mention
        described = stored_described(graph)
        assert described is not None and described.units == 2  # the third unit holds no mention
        by_name = {name.surfaces: name for name in described.names}
        counter = default_token_counter()
        insulin = by_name[("Insulin", "insulin")]
        assert insulin.known_tokens == counter.count(long + "\n" + long + " Raised.") and not insulin.touched
        # "patient" is named by both measured units and extracted from one: the pooled share (2 of 3 fair
        # trials, insulin's two among them) stands for that one, over the two units naming it
        assert by_name[("patient",)].hit == pytest.approx((0 + 2 / 3) / 2)
        with ws.store.transaction():  # a probe's measure without the probe's record: stale, not used
            ws.store.meta.set(
                META_PROBE_DESCRIBED, '{"names": [[["x"], 999, 1.0]], "mention_tokens": 1, "hit": 1, "units": 9}'
            )
        merged = described_for(ws.store, graph)
        assert merged is not None and merged.units == 2 and len(merged.names) == 2
