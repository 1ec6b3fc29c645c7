"""LLM summaries of merged descriptions: within the token limit, counted under index.summarize."""

from __future__ import annotations

from typing import Any

from kgrag.config import LLMConfig
from kgrag.graph.build.summarize import CallableSummarizer
from kgrag.graph.build.summarize_llm import STAGE_SUMMARIZE, llm_summarize
from kgrag.models.llm import ScriptedProvider, ScriptRule, create_llm_client
from kgrag.testing.extraction_responder import ExtractionResponder

NOTES = [
    "Kestrel is the stream-processing platform.",
    "Kestrel  is the stream-processing platform.",
    "Kestrel 4.2 shipped in March 2024.",
    "",
    "Platform owns Kestrel.",
]


def _scripted(kit: Any, reply: str) -> Any:
    provider = ScriptedProvider([ScriptRule(r".", reply)])
    return create_llm_client(LLMConfig(provider="scripted"), provider=provider, counter=kit.counter), provider


def test_summary_is_merged_from_distinct_notes_and_counted(kit: Any) -> None:
    responder = ExtractionResponder()
    client = kit.scripted_client(responder)
    text = llm_summarize(client, "Kestrel", NOTES, max_tokens=60)
    assert text.startswith("Kestrel is the stream-processing platform. Kestrel 4.2 shipped")
    assert client.count_tokens(text) <= 60
    assert responder.calls["summarize"] == 1
    request = client.runner.provider.requests[0]
    user = request.messages[-1]["content"]
    assert user.count("stream-processing") == 1  # duplicates (after whitespace clean-up) sent once
    assert "at most 45 words" in request.messages[0]["content"]
    assert request.params["max_tokens"] == 98
    assert client.summary().by_stage[STAGE_SUMMARIZE].calls == 1


def test_an_overlong_reply_is_cut_to_whole_sentences(kit: Any) -> None:
    long_reply = " ".join(f"Sentence number {i} says something about Kestrel." for i in range(40))
    client, _ = _scripted(kit, long_reply)
    text = llm_summarize(client, "Kestrel", NOTES, max_tokens=30)
    assert 0 < client.count_tokens(text) <= 30
    assert text.endswith(".") and text.startswith("Sentence number 0")


def test_nothing_to_summarise_makes_no_call(kit: Any) -> None:
    client, provider = _scripted(kit, "unused")
    assert llm_summarize(client, "Kestrel", ["", "  "], max_tokens=30) == ""
    assert provider.requests == []


def test_many_notes_are_capped_to_the_input_budget(kit: Any) -> None:
    client, provider = _scripted(kit, "Short.")
    notes = [f"Note {i} about the relation between Kestrel and Shale, with some detail." for i in range(500)]
    llm_summarize(client, "Kestrel - Shale", notes, max_tokens=50, kind="relation", max_input_tokens=400)
    sent = provider.requests[0].messages[-1]["content"]
    assert sent.startswith("relation: Kestrel - Shale")
    assert 10 < sent.count("Note ") < 40


def test_plugs_into_the_callable_summarizer_hook(kit: Any) -> None:
    client = kit.scripted_client(ExtractionResponder())
    summarizer = CallableSummarizer(lambda name, ds: llm_summarize(client, name, ds, 40), max_tokens=40)
    assert summarizer.summarize("Kestrel", NOTES).startswith("Kestrel is the stream-processing platform.")
    assert summarizer.failures == 0
