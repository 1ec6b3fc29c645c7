"""A reasoning model's thinking left in the reply (``<think>…</think>``) is paid for and counted, then
dropped: never parsed as the JSON, stored, cached or returned as the answer."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.llm.conftest import item_number  # the squares task's item number

from kgrag.config import LLMConfig
from kgrag.models.llm import create_llm_client
from kgrag.models.llm.reasoning import ThinkingFilter, without_reasoning
from kgrag.models.llm.reply_loop import LoopGuard
from kgrag.store import Store
from kgrag.testing import FakeOpenAIServer

THINKING = (
    'The user wants a square. I could answer {"n": 0, "square": 1} but that is wrong; let me compute '
    "it properly, step by step, checking the multiplication twice before writing the answer."
)


@pytest.mark.parametrize(
    ("reply", "answer"),
    [
        ('<think>\nplan {a} first\n</think>\n\n{"x": 1}', '{"x": 1}'),
        ("  <thinking>why</thinking>The answer.", "The answer."),
        ("the template opened the block in the prompt</think>The answer.", "The answer."),  # no opening tag
        ("<think>still thinking when the token limit came", ""),  # cut inside the thinking: no answer
        ("Wrap thoughts in <think> tags, the guide says.", "Wrap thoughts in <think> tags, the guide says."),
        ("A plain answer.", "A plain answer."),
    ],
)
def test_the_thinking_that_opens_a_reply_is_dropped(reply: str, answer: str) -> None:
    assert without_reasoning(reply) == answer


def _thinking_server(request: dict[str, Any]) -> str:
    user = next(m["content"] for m in request["messages"] if m["role"] == "user")
    if "item " in user:
        n = item_number(request)
        return f"<think>\n{THINKING}\n</think>\n\n" + json.dumps({"n": n, "square": n * n})
    return f"<think>{THINKING}</think>\nParis is the capital of France."


def test_a_real_client_pays_for_the_thinking_and_uses_only_the_answer(
    store: Store, prompts_dir: Path, square_model: Any, fast_cfg: Callable[..., LLMConfig]
) -> None:
    with FakeOpenAIServer(_thinking_server, include_usage=False) as server:
        client = create_llm_client(fast_cfg(server.base_url, prompts_dir=prompts_dir, timeout_s=5.0), store)
        result = client.structured("square", {"n": 7}, square_model, stage="test")
        assert result.ok and result.value is not None and result.value.square == 49  # not the brace in the thinking
        chat = client.chat([{"role": "user", "content": "The capital of France?"}], stage="answer")
        assert chat.text == "Paris is the capital of France."
        rows = client.ledger.calls(client.run_id)
        thinking = client.count_tokens(THINKING)
        assert all(row.completion_tokens > thinking for row in rows)  # counted with the thinking it generated
        sent = server.stats.requests
        again = client.chat([{"role": "user", "content": "The capital of France?"}], stage="answer")
        assert server.stats.requests == sent and again.text == chat.text  # the cache holds the answer only


def _pieces(text: str, size: int) -> list[str]:
    return [text[start : start + size] for start in range(0, len(text), size)]


@pytest.mark.parametrize("size", [1, 3, 7, 1000])
@pytest.mark.parametrize(
    ("reply", "shown"),
    [
        ('<think>\nplan {a} first </th ink?</think>\n\n{"a": 1}', '{"a": 1}'),
        ("  <thinking>why</thinking>The answer.", "The answer."),
        ("Paris is the capital.", "Paris is the capital."),  # no thinking: every piece, spaces included
        ("<table>rows</table> after", "<table>rows</table> after"),  # a tag that is not a thinking one
        ("<think>cut inside the thinking", ""),
    ],
)
def test_a_streamed_reply_shows_only_its_answer_whatever_the_pieces(reply: str, shown: str, size: int) -> None:
    answer = ThinkingFilter()
    assert "".join(answer.feed(piece) for piece in _pieces(reply, size)) == shown


def test_a_streamed_answer_and_the_loop_guard_skip_the_thinking(
    store: Store, prompts_dir: Path, fast_cfg: Callable[..., LLMConfig]
) -> None:
    with FakeOpenAIServer(_thinking_server, include_usage=False) as server:
        client = create_llm_client(fast_cfg(server.base_url, prompts_dir=prompts_dir, timeout_s=5.0), store)
        pieces: list[str] = []
        view = client.streaming(pieces.append, ["answer"])
        result = view.chat([{"role": "user", "content": "The capital of France?"}], stage="answer")
        assert server.stats.streams == 1 and len(pieces) > 1
        assert "".join(pieces) == result.text == "Paris is the capital of France."
    # a brace or a repeated object in the thinking is not the JSON the guard follows
    thinking = '<think>{"name": "A"} {"name": "A"} [{"name": "A"}, {"name": "A"}, {"name": "A"}]</think>'
    guard = LoopGuard(lambda text: len(text.split()))
    for piece in _pieces(thinking + json.dumps({"entities": [{"name": "A"}, {"name": "B"}]}), 5):
        guard.feed(piece)  # no loop: the answer names A once
