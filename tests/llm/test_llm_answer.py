"""Answer generation with the scripted provider: citations, "I don't know", context budget."""

from __future__ import annotations

import pytest

from kgrag.config import GenerationConfig, LLMConfig
from kgrag.core.context import ContextItem, RetrievalResult
from kgrag.documents.tokens import TokenCounter
from kgrag.generation import IDK_SENTENCE, build_context, generate_answer
from kgrag.generation.answer import extract_citations, is_idk
from kgrag.generation.context import allocate
from kgrag.models.llm import ChatRequest, ScriptedProvider, ScriptRule, create_llm_client

COUNT = TokenCounter.for_encoding("cl100k_base").count


def _chunk(cid: str, text: str, score: float = 1.0) -> ContextItem:
    return ContextItem(kind="chunk", id=cid, text=text, score=score, chunk_ids=[cid])


def _result(items: list[ContextItem]) -> RetrievalResult:
    return RetrievalResult(pipeline="hybrid", query="q", items=items)


def _client(reply: str) -> tuple[object, ScriptedProvider]:
    provider = ScriptedProvider([ScriptRule("Question:", reply)])
    return create_llm_client(LLMConfig(provider="scripted"), provider=provider), provider


ITEMS = [
    _chunk("c1", "Marie Curie won the Nobel Prize in Physics in 1903."),
    _chunk("c2", "She won a second Nobel Prize, in Chemistry, in 1911."),
    ContextItem(
        kind="entity", id="marie_curie", text="Marie Curie: physicist and chemist.", score=0.5, chunk_ids=["c1", "c7"]
    ),
    ContextItem(kind="community", id="k0", text="Report: Nobel laureates in early physics.", score=0.2),
]


def test_citations_kept_only_when_in_context() -> None:
    reply = "Curie won in 1903 [c:c1] and 1911 [c:c2, c:c99]. Also [c:c404]. Background [entity:marie_curie]."
    client, provider = _client(reply)
    answer = generate_answer(client, "When did Curie win?", _result(ITEMS), GenerationConfig())  # type: ignore[arg-type]
    assert answer.mode == "llm" and not answer.idk
    assert answer.citations == ["c1", "c2"]
    assert "c99" not in answer.text and "c404" not in answer.text and "[c:c2]" in answer.text
    assert set(answer.usage["invented_citations"]) == {"c:c99", "c:c404", "entity:marie_curie"}
    sent = provider.requests[0]
    prompt_text = sent.messages[-1]["content"]
    assert "[c:c1] Marie Curie" in prompt_text and "[entity:marie_curie]" in prompt_text
    assert "(sources: [c:c1] [c:c7])" in prompt_text and "[report:k0]" in prompt_text
    assert IDK_SENTENCE in sent.messages[0]["content"]
    assert answer.cost_line.startswith("LLM:") and answer.usage["prompt_tokens"] > 0


def test_provenance_chunks_of_graph_items_are_citable() -> None:
    client, _ = _client("Curie was a chemist [c:c7].")
    answer = generate_answer(client, "Who?", _result(ITEMS), GenerationConfig())  # type: ignore[arg-type]
    assert answer.citations == ["c7"]


def test_i_dont_know_path() -> None:
    client, _ = _client("I don\u2019t know based on the provided context.")
    answer = generate_answer(client, "Who won in 1950?", _result(ITEMS), GenerationConfig())  # type: ignore[arg-type]
    assert answer.idk and answer.citations == []


def test_no_context_means_no_call() -> None:
    client, provider = _client("unused")
    answer = generate_answer(client, "Anything?", _result([]), GenerationConfig())  # type: ignore[arg-type]
    assert answer.idk and answer.text == IDK_SENTENCE and provider.requests == []


@pytest.mark.parametrize("budget", [64, 120, 300, 1000])
def test_context_budget_respected(budget: int) -> None:
    items = [
        _chunk(f"c{i}", f"Passage number {i} says something long about topic {i}. " * 4, 1 / (i + 1)) for i in range(30)
    ]
    items += [
        ContextItem(kind="relation", id=f"r{i}", text=f"A relates to B number {i}.", score=0.1, chunk_ids=[f"c{i}"])
        for i in range(10)
    ]
    block = build_context(items, budget, {"passages": 0.6, "graph": 0.25, "communities": 0.15}, COUNT)
    assert COUNT(block.text) <= budget
    assert block.tokens <= budget and block.dropped > 0
    assert block.item_ids, "something always fits at these sizes"


def test_generate_answer_respects_configured_budget() -> None:
    items = [_chunk(f"c{i}", "word " * 100) for i in range(20)]
    client, provider = _client("ok [c:c0]")
    cfg = GenerationConfig(context_tokens=500)
    answer = generate_answer(client, "q?", _result(items), cfg)  # type: ignore[arg-type]
    request: ChatRequest = provider.requests[0]
    context = request.messages[-1]["content"].split("Context:\n", 1)[1].split("\n\nQuestion:")[0]
    assert COUNT(context) <= 500 and answer.usage["context_items"] == 4


def test_unused_share_flows_to_other_groups() -> None:
    assert allocate(
        1000, {"passages": 0.6, "graph": 0.25, "communities": 0.15}, {"passages": 5000, "graph": 100, "communities": 0}
    ) == {"passages": 900, "graph": 100, "communities": 0}
    only_passages = [_chunk(f"c{i}", "text " * 40) for i in range(10)]
    block = build_context(only_passages, 400, {"passages": 0.2, "graph": 0.5, "communities": 0.3}, COUNT)
    assert len(block.item_ids) >= 8, "a lone group may use the whole budget"


def test_extract_citations_leaves_ordinary_brackets() -> None:
    text, kept, invented = extract_citations("A [sic] claim [c1] and [c:c2; c:c3].", frozenset({"c1", "c2"}))
    assert text == "A [sic] claim [c:c1] and [c:c2]." and kept == ["c1", "c2"] and invented == ["c:c3"]
    assert is_idk("i don't know based on the provided context")
    assert not is_idk("I know it: 1903 [c:c1]")


def test_an_empty_reply_is_asked_once_more_like_a_cut_one() -> None:
    provider = ScriptedProvider([ScriptRule("Question:", "", times=1), ScriptRule("Question:", "In 1903 [c:c1].")])
    client = create_llm_client(LLMConfig(provider="scripted"), provider=provider)
    answer = generate_answer(client, "When did Curie win?", _result(ITEMS), GenerationConfig())
    assert answer.text == "In 1903 [c:c1]." and answer.citations == ["c1"]
    assert len(provider.requests) == 2
