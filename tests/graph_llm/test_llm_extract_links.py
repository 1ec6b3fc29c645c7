"""Each extraction call's ledger row is linked to its unit, with its role: the first pass, its re-ask, the
retry at another temperature, the halves (and quarters) of a unit whose reply was cut, gleaning. The
estimate's calibration counts follow-ups per first call from these links
(``kgrag.models.llm.reply_stats``), so they must say what really happened."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kgrag.config import LLMConfig
from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.graph.extract.glean import GleanPolicy
from kgrag.graph.extract.split import split_unit
from kgrag.graph.extract.units import build_units
from kgrag.models.llm import LLMClient, create_llm_client
from kgrag.models.llm.reply_stats import measure_replies
from kgrag.testing.extraction_responder import ExtractionResponder


@dataclass
class _Cutting:
    """The responder's replies, except that a reply to an extraction text of more than ``limit`` tokens stops at
    ``max_tokens`` with ``finish_reason`` length (a server that honours ``max_tokens``)."""

    kit: Any
    limit: int
    name: str = "scripted"
    available: bool = True

    def __post_init__(self) -> None:
        self.inner = ExtractionResponder().provider()

    def complete(self, request: ChatRequest) -> ChatResponse:
        user = next(str(m["content"]) for m in request.messages if m["role"] == "user")
        if self.kit.counter.count(user.split("Text:\n", 1)[-1]) > self.limit:
            return ChatResponse('{"entities": [{"name": "Cut', "length", None, request.max_tokens)
        return self.inner.complete(request)

    def close(self) -> None:
        return None


def _client(kit: Any, provider: Any) -> LLMClient:
    return create_llm_client(LLMConfig(provider="scripted", max_concurrency=2), provider=provider, counter=kit.counter)


def test_a_unit_cut_twice_then_in_halves_cut_again_links_every_call_to_it(kit: Any) -> None:
    chunks = kit.sample_chunks(limit=1)[:4]
    (unit,) = build_units(chunks, 10_000, kit.counter)
    halves = split_unit(unit, kit.counter)
    assert halves is not None
    quarters = [q for half in halves for q in split_unit(half, kit.counter) or []]
    sizes = [kit.counter.count(part.text) for part in [*halves, *quarters]]
    assert len(quarters) == 4 and max(sizes[2:]) < min(sizes[:2])
    limit = (max(sizes[2:]) + min(sizes[:2])) // 2  # the whole unit and its halves are cut, quarters are not
    client = _client(kit, _Cutting(kit, limit))
    extractor = kit.make_extractor(client, unit_tokens=10_000, max_output_tokens=600)
    extractions = list(extractor.extract(chunks))
    assert not any(x.error for x in extractions) and extractor.stats.split_units == 3  # the unit and both halves

    rows = client.ledger.calls()
    assert {r.unit_key for r in rows} == {unit.key}  # halves and quarters belong to the unit that was cut
    assert [r.call_role for r in rows[:2]] == ["first", "reask"]
    assert sorted(r.call_role for r in rows) == ["first", "half", "half", "half", "half", "half", "half", "reask"]
    stats = measure_replies(list(reversed(rows)), model=None, stage="index.extract")
    assert stats is not None and stats.linked == 8 and stats.halves_cut == 2
    assert stats.follow_up_rate == 7  # 1 re-ask + 2 halves + 4 quarters, counted (not 4 cut replies x 1.5)


def test_a_rejected_reply_is_linked_as_re_ask_then_retry_and_gleaning_as_glean(kit: Any) -> None:
    chunks = kit.sample_chunks(limit=1)
    responder = ExtractionResponder(first_pass_share=0.5, malformation="garbage", clean_reasks=False)
    client = kit.scripted_client(responder)
    extractor = kit.make_extractor(client, unit_tokens=400)
    list(extractor.extract(chunks))
    rows = client.ledger.calls()
    units = {u.key for u in build_units(chunks, 400, kit.counter)}
    assert {r.unit_key for r in rows} == units and len(units) > 1
    for key in units:
        roles = [(r.stage, r.call_role) for r in rows if r.unit_key == key]
        # every reply is garbage: the first pass, its re-ask and the retry all fail; nothing is gleaned
        assert roles == [("index.extract", "first"), ("index.extract", "reask"), ("index.extract", "retry")]


def test_gleaning_calls_are_linked_to_their_unit(kit: Any) -> None:
    chunks = kit.sample_chunks(limit=1)
    client = kit.scripted_client(ExtractionResponder(first_pass_share=0.3))
    everything_sparse = GleanPolicy(min_entities_per_100_tokens=50.0, min_tokens=1)
    extractor = kit.make_extractor(client, unit_tokens=400, glean=everything_sparse)
    list(extractor.extract(chunks))
    rows = client.ledger.calls()
    gleans = [r for r in rows if r.stage == "index.glean"]
    firsts = {r.unit_key for r in rows if r.call_role == "first"}
    assert gleans and {r.call_role for r in gleans} == {"glean"} and {r.unit_key for r in gleans} <= firsts
    assert extractor.stats.gleaned_units == len(gleans)
