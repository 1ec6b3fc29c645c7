"""A reasoning model's thinking counts against ``max_tokens``: a call sized for its answer alone is cut before it
answers. The client learns the model's thinking room, sends such a call again once with it, bills both sends,
and gives later calls the room at once; a model that does not think is never given any."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kgrag.config import LLMConfig
from kgrag.core.llm_types import ChatRequest, ChatResponse
from kgrag.graph.build.summarize_llm import SummaryCutError, llm_summarize
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.thinking_room import ThinkingRoom
from kgrag.store import Store
from kgrag.testing import FakeOpenAIServer

THOUGHT = "Let me weigh each description against the others and decide which facts to keep. "
SUMMARY = "Aspirin is a pain reliever that also thins the blood."


def _thinker(repeats: int) -> Callable[[dict[str, Any]], str]:
    def answer(body: dict[str, Any]) -> str:
        return f"<think>{THOUGHT * repeats}</think>\n{SUMMARY}"

    return answer


def _request(max_tokens: int | None) -> ChatRequest:
    params: dict[str, Any] = {} if max_tokens is None else {"max_tokens": max_tokens}
    return ChatRequest(({"role": "user", "content": "hi"},), "m", params)


def test_the_room_grows_only_for_a_reply_cut_before_it_answered() -> None:
    room = ThinkingRoom(1000)
    plain = ChatResponse("An answer.", "length")
    assert not room.learn(plain, plain, 100, 0) and room.tokens == 0  # cut inside an answer: not thinking
    assert room.widen(_request(50)).max_tokens == 50
    cut = ChatResponse("<think>so", "length")
    assert room.learn(cut, ChatResponse("", "length"), 100, 100) and room.tokens == 400
    assert room.widen(_request(50)).max_tokens == 450 and room.widen(_request(None)).max_tokens is None
    assert room.learn(cut, ChatResponse("", "length"), 450, 450) and room.tokens == 1000  # capped at the limit
    assert not room.learn(cut, ChatResponse("", "length"), 1050, 1050)  # at the limit: not worth a resend


def test_thinking_seen_whole_sets_the_room_with_a_margin() -> None:
    room = ThinkingRoom(4096)
    whole = ChatResponse("<think>...</think>Yes.", "stop")
    assert not room.learn(whole, ChatResponse("Yes.", "stop"), 130, 120) and room.tokens == 150
    room.learn(whole, ChatResponse("Yes.", "stop"), 30, 20)
    assert room.tokens == 150  # a shorter thought does not shrink it


def test_no_limit_means_no_room_and_no_resend() -> None:
    room = ThinkingRoom(0)
    assert not room.learn(ChatResponse("<think>so", "length"), ChatResponse("", "length"), 100, 100)
    assert room.tokens == 0


@pytest.mark.parametrize("apart", [False, True], ids=["think-block-in-reply", "reasoning-parser"])
def test_a_summary_cut_while_thinking_is_sent_again_with_room_and_later_ones_get_it_at_once(
    store: Store, fast_cfg: Callable[..., LLMConfig], apart: bool
) -> None:
    with FakeOpenAIServer(_thinker(12), cut_at_max_tokens=True, reasoning_apart=apart) as server:
        client = create_llm_client(fast_cfg(server.base_url, timeout_s=5.0), store)
        thinking = client.count_tokens(THOUGHT * 12)
        assert thinking > 98  # more than the summary call's max_tokens (60 * 1.5 + 8)
        first = llm_summarize(client, "Aspirin", ["A pain reliever.", "It thins the blood."], 60)
        assert first == SUMMARY and server.stats.requests == 2
        (row,) = client.ledger.calls(client.run_id)
        assert row.completion_tokens > 98  # both sends billed: the cut one and the answered one
        assert any("before it answered" in reason for reason in row.attempt_errors)
        second = llm_summarize(client, "Ibuprofen", ["A pain reliever."], 60)
        assert second == SUMMARY and server.stats.requests == 3  # the learned room, at once


def test_without_room_the_same_summary_is_cut_as_before(store: Store, fast_cfg: Callable[..., LLMConfig]) -> None:
    with FakeOpenAIServer(_thinker(12), cut_at_max_tokens=True) as server:
        config = fast_cfg(server.base_url, timeout_s=5.0).model_copy(update={"max_thinking_tokens": 0})
        client = create_llm_client(config, store)
        with pytest.raises(SummaryCutError):
            llm_summarize(client, "Aspirin", ["A pain reliever.", "It thins the blood."], 60)
        assert server.stats.requests == 2  # the summariser's own two attempts, no resend


def test_a_model_that_does_not_think_is_never_widened(store: Store, fast_cfg: Callable[..., LLMConfig]) -> None:
    long_reply = "word " * 400
    with FakeOpenAIServer(lambda body: long_reply, cut_at_max_tokens=True) as server:
        client = create_llm_client(fast_cfg(server.base_url, timeout_s=5.0), store)
        reply = client.chat([{"role": "user", "content": "Say a lot."}], stage="answer", max_tokens=50)
        assert reply.text and server.stats.requests == 1
        assert client.runner.thinking.tokens == 0
