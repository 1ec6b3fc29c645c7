"""Requests fitted to a known window: a unit that cannot fit fails alone, with its reason; the others go on.

The stand-in server test (tests/llm/test_small_window_run.py) covers replies cut at the token limit over
HTTP; these tests cover the pieces: the request fit, the split of a unit, and a unit too large for any
request.
"""

from __future__ import annotations

from typing import Any

import pytest

from kgrag.core.llm_types import ChatRequest, PromptRef
from kgrag.core.records import ChunkRecord
from kgrag.documents.records import content_hash
from kgrag.graph.extract.split import merge_parts, split_unit
from kgrag.graph.extract.units import build_units
from kgrag.models.llm.request_fit import (
    DROPPED_REPLY,
    RequestTooLargeError,
    fit_request,
    is_size_failure,
)
from kgrag.testing.extraction_responder import ExtractionResponder


def _request(*contents: str, max_tokens: int = 500, prompt: str = "extract_graph") -> ChatRequest:
    roles = ["system", "user", "assistant", "user"]
    messages = tuple({"role": roles[i], "content": c} for i, c in enumerate(contents))
    return ChatRequest(messages, "m", {"max_tokens": max_tokens}, PromptRef(prompt, "1"))  # type: ignore[misc]


def test_a_request_is_fitted_not_refused(kit: Any) -> None:
    counter = kit.counter
    fits = _request("rules", "text " * 100)
    assert fit_request(fits, counter, 1000)[0] is fits
    assert fit_request(fits, counter, None)[0] is fits
    # a re-ask quoting a long reply: the quote goes first, the reply room stays
    reask = _request("rules", "text " * 100, "reply " * 600, "that was cut")
    fitted, prompt_tokens = fit_request(reask, counter, 1000)
    assert fitted.messages[2]["content"] == DROPPED_REPLY and fitted.max_tokens == 500
    assert prompt_tokens + 500 <= 1000
    # then the reply room shrinks, down to its floor
    shrunk, prompt_tokens = fit_request(_request("rules", "text " * 600), counter, 1000)
    assert shrunk.max_tokens == 1000 - prompt_tokens and shrunk.max_tokens >= 256


def test_a_request_too_large_names_the_settings_that_size_it(kit: Any) -> None:
    with pytest.raises(RequestTooLargeError) as error:
        fit_request(_request("rules", "text " * 900), kit.counter, 1000)
    message = str(error.value)
    assert "graph.extractors.llm.unit_tokens" in message and "llm.context_window" in message
    assert "generation.context_tokens" not in message  # it does not size an extraction request
    assert is_size_failure(message)


def test_split_halves_a_unit_by_chunks_or_by_sentences(kit: Any) -> None:
    chunks = kit.sample_chunks(limit=1)[:4]
    (unit,) = build_units(chunks, 10_000, kit.counter)
    halves = split_unit(unit, kit.counter)
    assert halves is not None and halves[0].chunks + halves[1].chunks == unit.chunks
    assert all(h.n_tokens < unit.n_tokens * 0.8 for h in halves)
    (single,) = build_units(chunks[:1], 10_000, kit.counter)
    parts = split_unit(single, kit.counter)
    assert parts is not None and all(p.chunks == single.chunks for p in parts)
    assert " ".join(p.text for p in parts).split() == single.text.split()  # nothing lost, nothing repeated
    merged = merge_parts(unit, [[], []])
    assert [m.chunk_id for m in merged] == [c.id for c in chunks] and [m.unit_end for m in merged][-1]


def test_a_unit_that_cannot_fit_fails_alone_with_its_reason(kit: Any) -> None:
    blob = "QmFzZTY0" * 700  # one chunk of one long token run: no sentence or word to split it at
    big = ChunkRecord("blob:0", "blob", 0, 0, len(blob), blob, kit.counter.count(blob), content_hash(blob))
    chunks = [big, *kit.sample_chunks(limit=1)]
    client = kit.scripted_client(ExtractionResponder(), context_window=2048)
    extractor = kit.make_extractor(client, unit_tokens=300, max_output_tokens=600)
    extractions = list(extractor.extract(chunks))
    failed = [x for x in extractions if x.error]
    assert {x.chunk_id for x in failed} == {c.id for c in chunks if c.doc_id == "blob"}
    assert all(
        "graph.extractors.llm.unit_tokens" in (x.error or "") and "not split further" in (x.error or "") for x in failed
    )
    assert all(x.entities for x in extractions if not x.error)  # every other unit was still extracted
