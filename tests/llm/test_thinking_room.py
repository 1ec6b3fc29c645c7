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
    cut, nothing = ChatResponse("<think>so", "length"), ChatResponse("", "length")
    assert room.learn(cut, nothing, 100, 100) and room.tokens == 400
    assert room.widen(_request(50)).max_tokens == 450 and room.widen(_request(None)).max_tokens is None
    assert room.learn(cut, nothing, 450, 450, sent_room=400) and room.tokens == 1000  # capped at the limit
    assert not room.learn(cut, nothing, 1050, 1050, sent_room=1000)  # at the limit: not worth a resend


def test_replies_cut_in_one_wave_do_not_compound_the_room() -> None:
    room = ThinkingRoom(4096)
    cut, nothing = ChatResponse("<think>so", "length"), ChatResponse("", "length")
    assert all(room.learn(cut, nothing, 100, 100) for _ in range(5))  # five sent narrow, cut together
    assert room.tokens == 400  # each says the same: four times what it spent
    assert room.learn(cut, nothing, 100, 100)  # a narrow one cut after the room grew is still sent again


def test_a_reply_of_whitespace_alone_is_not_thinking() -> None:
    room = ThinkingRoom(4096)
    runaway = ChatResponse(" \n" * 50, "length")
    assert not room.learn(runaway, runaway, 100, 0) and room.tokens == 0
    hidden = ChatResponse("", "length")  # a reasoning parser sent the thinking apart
    assert room.learn(hidden, hidden, 100, 0) and room.tokens == 400


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


def test_a_server_running_away_in_newlines_is_not_sent_again(store: Store, fast_cfg: Callable[..., LLMConfig]) -> None:
    with FakeOpenAIServer(lambda body: " \n" * 3000, cut_at_max_tokens=True) as server:
        client = create_llm_client(fast_cfg(server.base_url, timeout_s=5.0), store)
        reply = client.chat([{"role": "user", "content": "JSON please."}], stage="answer", max_tokens=100)
        assert reply.finish_reason == "length" and server.stats.requests == 1
        assert client.runner.thinking.tokens == 0


def test_a_budget_that_cannot_hold_the_room_sends_the_request_without_it(
    store: Store, fast_cfg: Callable[..., LLMConfig]
) -> None:
    with FakeOpenAIServer(_thinker(12), cut_at_max_tokens=True) as server:
        config = fast_cfg(server.base_url, timeout_s=5.0).model_copy(update={"max_tokens_budget": 700})
        client = create_llm_client(config, store)
        client.runner.thinking.tokens = 2000  # learned earlier in the run
        with pytest.raises(SummaryCutError):  # narrow: cut while thinking, and no budget for a wider send
            llm_summarize(client, "Aspirin", ["A pain reliever."], 60)
        rows = client.ledger.calls(client.run_id)
        assert len(rows) == server.stats.requests == 2  # every send that was made has its ledger row
        assert all(row.completion_tokens <= 98 for row in rows)  # sent without the room the budget lacked
        assert client.runner.budget.used == sum(row.prompt_tokens + row.completion_tokens for row in rows)


def test_the_room_never_drops_a_quoted_reply_to_fit_the_window(fast_cfg: Callable[..., LLMConfig]) -> None:
    from kgrag.models.llm.request_fit import fit_request
    from kgrag.models.llm.tokens import default_token_counter

    counter = default_token_counter()
    quoted = "An earlier reply that the re-ask quotes. " * 40
    messages = (
        {"role": "user", "content": "Extract."},
        {"role": "assistant", "content": quoted},
        {"role": "user", "content": "That was not JSON."},
    )
    request = ChatRequest(messages, "m", {"max_tokens": 300})
    window = counter.count(quoted) + 400
    base, _ = fit_request(request, counter, window)
    assert base.messages == request.messages  # fits as it is
    room = ThinkingRoom(4096, tokens=600)
    assert room.widened(base, lambda wide: fit_request(wide, counter, window)) is None  # not by dropping the quote
    small = ThinkingRoom(4096, tokens=20)
    widened = small.widened(base, lambda wide: fit_request(wide, counter, window))
    assert widened is not None and widened[0].messages == request.messages and widened[0].max_tokens == 320


def test_a_streamed_reply_cut_while_thinking_shows_only_the_answer_of_the_wider_send(
    store: Store, fast_cfg: Callable[..., LLMConfig]
) -> None:
    with FakeOpenAIServer(_thinker(12), cut_at_max_tokens=True) as server:
        shown: list[str] = []
        client = create_llm_client(fast_cfg(server.base_url, timeout_s=5.0), store).streaming(shown.append)
        reply = client.chat([{"role": "user", "content": "Summarise."}], stage="answer", max_tokens=60)
        assert reply.text == SUMMARY and server.stats.requests == 2  # cut while thinking, then sent wider
        assert "".join(shown).strip() == SUMMARY  # neither send's thinking, the answer once
