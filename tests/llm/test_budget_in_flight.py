"""The budget holds with requests in flight against a server that ignores ``max_tokens``, and the ledger
records the larger of the reported and the locally counted usage, so a lying server cannot hide spend.

The server here generates each reply as it writes it and stops when the client hangs up; its own count of
what it generated is the measure, not the client's."""

from __future__ import annotations

import threading
from typing import Literal

import pytest

from kgrag.config import LLMConfig
from kgrag.core.errors import BudgetExceededError
from kgrag.models.llm import LLMClient, ScriptedProvider, ScriptRule, create_llm_client
from kgrag.models.llm.http import OpenAICompatibleProvider
from kgrag.models.llm.reply_ceiling import CEILING_FINISH
from kgrag.models.llm.tokens import count_message_tokens
from kgrag.testing.runaway_server import RunawayServer

CAP = 20_000


def _client(base_url: str, **settings: object) -> LLMClient:
    own = {"openai": {"base_url": base_url}}
    cfg = LLMConfig(provider="openai", model="m", providers=own, max_retries=0, **settings)  # type: ignore[arg-type]
    provider = OpenAICompatibleProvider(base_url, json_mode="off", model="m", max_connections=8)
    return create_llm_client(cfg, provider=provider)


def _spend_until_stopped(client: LLMClient, workers: int) -> int:
    """Chat from ``workers`` threads until the budget stops them; returns the calls that came back."""
    done: list[int] = []
    stopped = threading.Event()

    def work(worker: int) -> None:
        for i in range(10_000):
            if stopped.is_set():
                return
            try:
                client.chat([{"role": "user", "content": f"tell me more {worker} {i}"}], stage="test")
            except BudgetExceededError:
                stopped.set()
                return
            done.append(1)

    threads = [threading.Thread(target=work, args=(w,)) for w in range(workers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert stopped.is_set()
    return len(done)


def test_a_server_ignoring_max_tokens_cannot_push_spend_past_the_cap() -> None:
    """Replies of 5,000-15,000 words (each up to 3/4 of the cap) against max_tokens 100, four requests in
    flight: every reply is read up to its ceiling and the connection closed, so the server's own count stays
    within 1.1x the cap. Read whole, the first four replies alone pass it (2.6x in a run of this test with
    the ceiling switched off)."""
    with RunawayServer(reply_words=(5_000, 15_000)) as server:
        client = _client(server.base_url, max_tokens_budget=CAP, max_output_tokens=100, max_concurrency=4)
        calls = _spend_until_stopped(client, workers=4)
        generated = server.generated_tokens
        assert server.hung_up >= calls - 4  # the replies were cut, not read whole
    assert calls >= 50
    assert generated <= 1.1 * CAP, f"{generated} tokens generated against a cap of {CAP}"
    assert client.runner.budget.used <= CAP * 1.1
    rows = client.ledger.calls(client.run_id)
    assert rows and all(r.error and "ceiling" in r.error for r in rows)


@pytest.mark.parametrize("usage", ["zero", "one"])
def test_the_cost_line_with_lying_usage_equals_the_local_count(usage: Literal["zero", "one"]) -> None:
    with RunawayServer(reply_words=(300, 300), usage=usage) as server:
        client = _client(server.base_url, max_output_tokens=1000, max_concurrency=1, cache_enabled=False)
        counter = client.runner.counter()
        expected_prompt = expected_completion = 0
        for i in range(5):
            messages = [{"role": "user", "content": f"question number {i}"}]
            result = client.chat(messages, stage="test")  # type: ignore[arg-type]
            assert result.finish_reason != CEILING_FINISH and result.text.count("word") == 300
            expected_prompt += count_message_tokens(counter, messages)  # type: ignore[arg-type]
            expected_completion += counter.count(result.text)
    total = client.summary().total
    assert (total.prompt_tokens, total.completion_tokens) == (expected_prompt, expected_completion)
    assert total.distrusted_calls == 5
    line = client.summary().lines()[-1]
    assert f"{expected_prompt} prompt + {expected_completion} completion tokens" in line
    assert "5 calls counted here" in line


def test_a_reply_with_a_megabyte_of_whitespace_is_counted() -> None:
    reply = "start" + " " * 1_000_000 + "end"
    client = create_llm_client(LLMConfig(provider="scripted"), provider=ScriptedProvider([ScriptRule(".", reply)]))
    result = client.chat([{"role": "user", "content": "hello"}], stage="test")
    assert result.text == reply and 0 < result.usage.completion_tokens < len(reply)
