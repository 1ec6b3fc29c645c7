"""The parts of the structural estimate: the stand-in graph, the per-prompt calibration, example-sized replies."""

from __future__ import annotations

from typing import cast

from kgrag.core.llm_types import ChatRequest, Message, PromptRef
from kgrag.core.llm_usage import CallRecord
from kgrag.graph.extract.structural import structural_items
from kgrag.models.llm.base import ChatProvider
from kgrag.models.llm.estimate import EstimatingProvider
from kgrag.models.llm.estimate_assumed import EstimateAssumptions
from kgrag.models.llm.reply_stats import replies_by_prompt
from kgrag.models.llm.tokens import default_token_counter

TEXT = "Aspirin treats Fever. Aspirin and Ibuprofen relieve Pain in Adults. Fever worries Parents."


def test_stand_in_graph_links_names_that_follow_each_other_in_a_sentence() -> None:
    items = structural_items(TEXT)
    assert [e.name for e in items.entities] == ["Aspirin", "Fever", "Ibuprofen", "Pain", "Adults", "Parents"]
    pairs = {frozenset((r.source, r.target)) for r in items.relations}
    assert frozenset(("Aspirin", "Fever")) in pairs and frozenset(("Pain", "Adults")) in pairs
    assert frozenset(("Aspirin", "Parents")) not in pairs


def test_shares_keep_the_most_frequent_names_and_fewer_relations() -> None:
    items = structural_items(TEXT, name_share=0.33, relation_share=0.0)
    assert {e.name for e in items.entities} == {"Aspirin", "Fever"}
    assert items.relations == []


def _record(prompt: str, completion: int, error: str | None = None) -> CallRecord:
    return CallRecord("r", "index.resolve", "openai", "m", 100, completion, "api", 1.0, False, 1,
                      prompt_name=prompt, error=error)  # fmt: skip


def test_replies_by_prompt_measures_size_and_re_asks_per_prompt() -> None:
    records = [_record("confirm_merge", 20), _record("confirm_merge", 4, "invalid"), _record("extract_graph", 900)]
    assert replies_by_prompt(records, model="m", skip={"extract_graph"}) == (("confirm_merge", 12.0, 0.5),)


class _Never:
    """The provider an estimate stands in for: never called."""

    name = "never"
    available = True

    def complete(self, request: ChatRequest) -> None:
        raise AssertionError("an estimate sends nothing")

    def close(self) -> None:
        pass


NEVER: ChatProvider = cast(ChatProvider, _Never())


def test_a_call_without_measurements_replies_as_long_as_its_worked_example() -> None:
    counter = default_token_counter()
    provider = EstimatingProvider(NEVER, counter, EstimateAssumptions(completion_tokens=256))
    system = 'Judge.\n\nExample (invented names). For this input:\nA | B\nthe reply is:\n{"merge": true}'
    messages = cast(tuple[Message, ...], ({"role": "system", "content": system}, {"role": "user", "content": "C | D"}))
    request = ChatRequest(messages, "m", prompt=PromptRef("confirm_merge", "1"))
    assert provider.complete(request).completion_tokens == counter.count('{"merge": true}')
    measured = EstimateAssumptions(replies=(("confirm_merge", 40.0, 0.5),))
    assert EstimatingProvider(NEVER, counter, measured).complete(request).completion_tokens == 40


def test_shares_are_measured_against_the_stand_in_of_the_same_text() -> None:
    from kgrag.indexing.estimate_shares import Shares, UnitSample, measure_shares

    # the model returned two of the six stand-in names and none of their relations
    shares = measure_shares([UnitSample(TEXT, frozenset({"aspirin", "fever"}), frozenset())])
    assert shares is not None and shares.units == 1
    assert shares.names == 2 / 6 and shares.relations == 0.0
    assert Shares.parse(shares.stored()) == Shares(round(2 / 6, 4), 0.0, 1)
    assert Shares.parse("0.5 0.25") == Shares(0.5, 0.25, 1)  # stored before the unit count was kept
    assert measure_shares([UnitSample("no names here.", frozenset(), frozenset())]) is None


def test_the_probe_takes_the_units_at_the_quartiles_of_their_names() -> None:
    from kgrag.graph.extract.units import ExtractionUnit
    from kgrag.indexing.estimate_probe import chosen_units

    words = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India"]
    units = [ExtractionUnit("d", (), " and ".join(words[:count]) + ".", 10) for count in (9, 1, 5, 3, 7)]
    chosen = chosen_units(units)
    assert [len(unit.text.split(" and ")) for unit in chosen] == [3, 7]  # not the extremes, not one unit
    assert [len(unit.text.split(" and ")) for unit in chosen_units(units[:3])] == [5]  # too few: the median


def test_the_probe_reads_documents_spread_over_the_corpus_not_its_first_files() -> None:
    from pathlib import Path

    from kgrag.indexing.estimate_probe import spread_files

    files = [Path(f"{n:02d}.md") for n in range(20)]
    picked = spread_files(files, 8)
    assert len(set(picked)) == 8 and picked == sorted(picked)
    assert picked[0] == Path("01.md") and picked[-1] == Path("18.md")  # the middle of the first and last share
    assert spread_files(files[:5], 8) == files[:5] and spread_files(files[:8], 8) == files[:8]
    assert spread_files([], 8) == []
    assert spread_files(files[:9], 8) == [files[i] for i in (0, 1, 2, 3, 5, 6, 7, 8)]


def test_a_relation_share_above_one_relates_names_further_apart() -> None:
    neighbours = structural_items(TEXT)
    more = structural_items(TEXT, relation_share=1.5)
    assert len(more.relations) == -(-len(neighbours.relations) * 3 // 2)  # ceil(1.5 x)
    pairs = {frozenset((r.source, r.target)) for r in more.relations}
    assert frozenset(("Aspirin", "Pain")) in pairs  # two places apart in the second sentence
    assert structural_items(TEXT, relation_share=9.0).relations  # bounded by the sentences' pairs
